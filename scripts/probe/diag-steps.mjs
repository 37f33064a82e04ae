// The large Cholesky's fused diagonal kernel alone (potrf/generate-diagonal.ts), one matrix, CUDA events
// around 20 launches (median of 5 such), by nb and by `size` (steps run): the fixed cost (size 1)
// against the cost per step.
import { open } from '../../dist/src/index.js';
import { arg } from '../../dist/src/cuda/runtime/types.js';
import { randomSpd, Random } from '../../dist/src/bench/data.js';
import { potrfDiagonalSource, potrfDiagonalThreads } from '../../dist/src/cuda/kernels/potrf/generate-diagonal.js';
import { kernelFor } from '../../dist/src/cuda/kernels/common/kernel-cache.js';

const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const dtype = process.argv[2] ?? 'float64';
for (const nb of [32, 64, 96, 128]) {
  const a0 = ctx.upload(randomSpd(dtype, nb, 1, new Random(1))), a = ctx.alloc(dtype, nb * nb), w = ctx.alloc(dtype, nb * nb), info = ctx.alloc('int32', 1);
  const p = { dtype, uplo: 'lower', nb };
  const k = kernelFor(dev, 'potrf-diagonal', p, () => potrfDiagonalSource(p));
  const line = [];
  for (const size of [1, nb / 4, nb / 2, nb]) {
    const run = () => { for (let r = 0; r < 20; r++) k.launch({ grid: [1, 1, 1], block: [potrfDiagonalThreads(nb), 1, 1] }, [arg.ptr(a.ptr), arg.i64(0), arg.i64(nb * nb), arg.i32(nb), arg.ptr(w.ptr), arg.ptr(info.ptr), arg.i32(1), arg.i32(size), arg.i32(0)]); };
    ctx.copy(a0, a); run();
    const ms = []; for (let r = 0; r < 5; r++) { ctx.copy(a0, a); ms.push(ctx.time(run)); } ms.sort((x, y) => x - y);
    line.push(`size ${size}: ${(ms[2] * 1000 / 20).toFixed(1)} us`);
  }
  console.log(`${dtype} nb ${nb} (${potrfDiagonalThreads(nb)} threads): ${line.join(', ')}`);
}
ctx.dispose();
