// Issue 13: the host side of one large potrf / getrf call without a driver: the launches a call makes
// and the JavaScript time per call and per launch, on the recording fake device of the tests (no
// kernel runs; what remains is planning, sub-blocks, arguments). Usage: node scripts/probe/host-cost.mjs
import { recordingDevice } from '../../dist/test/helpers/fake-gpus.js';
import { strided } from '../../dist/src/core/batch.js';
import { potrfCuda } from '../../dist/src/cuda/kernels/potrf/index.js';
import { getrfCuda } from '../../dist/src/cuda/kernels/getrf/index.js';
const { dev, launches } = recordingDevice();
for (const n of [1024, 4096]) {
  const a = dev.alloc('float64', n * n), info = dev.alloc('int32', 1), ipiv = dev.alloc('int32', n);
  const A = strided(a, { rows: n, cols: n, count: 1 });
  for (const [name, f] of [['potrf', () => potrfCuda(dev, { uplo: 'lower', a: A, info })], ['getrf', () => getrfCuda(dev, { a: A, ipiv, pivotStride: n, info })]]) {
    for (let w = 0; w < 3; w++) f();
    launches.length = 0;
    const t0 = performance.now(); const R = 20;
    for (let r = 0; r < R; r++) f();
    const ms = (performance.now() - t0) / R;
    console.log(`${name} ${n}: ${(launches.length / R)} launches, host ${ms.toFixed(3)} ms per call (${(1000 * ms / (launches.length / R)).toFixed(2)} us per launch, no driver)`);
  }
}
