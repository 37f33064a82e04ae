/**
 * Every LAPACK- and BLAS-level operation of a CUDA context runs on the GPU for device-resident
 * data (skipped where no GPU is usable): the backend sees the device through a proxy that logs
 * every host <-> device copy, and a call may copy nothing but its int32 info back (trtri, potri and
 * poti above 32 read info on the host to pass only the matrices that did not fail to the next
 * step). A fallback to the CPU reference downloads the matrices and would fail this test. syev and
 * gesvd are checked at both sizes (their GPU kernels cover n <= 512; beyond, they run on the CPU by
 * design, README "GPU kernels"); geqrf and orgqr at 24 and 100 (covered while the tile fits the
 * shared memory), ormqr and gels at both (reflectors within ormqr's shared slot, the tile within geqrf's).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Context } from '../../src/api/context.js';
import { Random, randomGeneral, randomMatrices, randomSpd } from '../../src/bench/data.js';
import { strided } from '../../src/core/batch.js';
import type { FloatArray } from '../../src/core/dtype.js';
import { OP_NAMES, type OpName } from '../../src/core/ops.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { hasGpuOp } from '../../src/cuda/router.js';
import type { CudaDevice, DeviceArray } from '../../src/cuda/runtime/index.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';

const skip = gpuSkipReason();
/** Operations with no GPU kernel yet (a CUDA context runs them on the CPU reference with copies). */
const CPU_ONLY: readonly OpName[] = [];

interface Copy { readonly what: 'upload' | 'download'; readonly dtype: string }

function loggingContext(dev: CudaDevice): { ctx: Context; log: Copy[] } {
  const log: Copy[] = [];
  const proxy = new Proxy(dev, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      const f = value as (...args: unknown[]) => unknown;
      if (prop === 'upload') return (...args: unknown[]) => { log.push({ what: 'upload', dtype: (args[0] as { constructor: { name: string } }).constructor.name }); return f.apply(target, args); };
      if (prop === 'download') return (...args: unknown[]) => { log.push({ what: 'download', dtype: (args[0] as DeviceArray).dtype }); return f.apply(target, args); };
      return f.bind(target);
    },
  });
  const backend = new CudaBackend(proxy, 'test');
  return { ctx: new Context('cuda', backend, backend), log };
}

test('every operation on device data runs on the GPU: no copy but info', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Random(77);
  const count = 3;
  const covered = new Set<OpName>();
  for (const n of [24, 100]) {
    const put = (x: FloatArray): DeviceArray => dev.upload(x);
    const sq = (d: DeviceArray, cols = n) => strided(d, { rows: n, cols, count });
    const spd = () => sq(put(randomSpd('float64', n, count, rng)));
    const general = () => sq(put(randomGeneral('float64', n, count, rng)));
    const rhs = () => sq(put(randomMatrices('float64', n, 10, count, rng)), 10);
    const info = dev.alloc('int32', count);
    const ipiv = dev.alloc('int32', count * n);
    const calls: [OpName, (ctx: Context) => unknown][] = [
      ['gemm', (c) => c.gemm({ a: general(), b: general(), c: general() })],
      ['trsm', (c) => c.trsm({ a: spd(), b: rhs(), uplo: 'lower' })],
      ['trmm', (c) => c.trmm({ a: spd(), b: rhs(), uplo: 'upper', side: 'left' })],
      ['syrk', (c) => c.syrk({ a: general(), c: general(), uplo: 'lower' })],
      ['herk', (c) => c.herk({ a: general(), c: general(), uplo: 'lower' })],
      ['potrf', (c) => c.potrf({ a: spd(), info })],
      ['posv', (c) => c.posv({ a: spd(), b: rhs(), info })],
      ['potrs', (c) => { const a = spd(); c.potrf({ a, info }); return c.potrs({ a, b: rhs(), info }); }],
      ['getrf', (c) => c.getrf({ a: general(), ipiv, info })],
      ['gesv', (c) => c.gesv({ a: general(), b: rhs(), ipiv, info })],
      ['getrs', (c) => { const a = general(); c.getrf({ a, ipiv, info }); return c.getrs({ a, b: rhs(), ipiv, info }); }],
      ['getri', (c) => { const a = general(); c.getrf({ a, ipiv, info }); return c.getri({ a, ipiv, info }); }],
      ['trtri', (c) => c.trtri({ a: spd(), uplo: 'lower', info })],
      ['lauum', (c) => c.lauum({ a: spd(), uplo: 'upper', info })],
      ['potri', (c) => { const a = spd(); c.potrf({ a, info }); return c.potri({ a, info }); }],
      ['poti', (c) => c.poti({ a: spd(), info })],
      ['geqrf', (c) => c.geqrf({ a: general(), tau: strided(dev.alloc('float64', n * count), { rows: n, cols: 1, count }), info })],
      ['orgqr', (c) => { const a = general(); const tau = strided(dev.alloc('float64', n * count), { rows: n, cols: 1, count }); c.geqrf({ a, tau, info }); return c.orgqr({ a, tau }); }],
      ['ormqr', (c) => { const a = general(); const tau = strided(dev.alloc('float64', n * count), { rows: n, cols: 1, count }); c.geqrf({ a, tau, info }); return c.ormqr({ side: 'left', trans: 'T', a, tau, c: general() }); }],
      ['gels', (c) => c.gels({ a: general(), b: rhs(), info })],
      ['syev', (c) => c.syev({ a: spd(), w: strided(dev.alloc('float64', n * count), { rows: n, cols: 1, count }), info })],
      ['heev', (c) => c.heev({ a: spd(), w: strided(dev.alloc('float64', n * count), { rows: n, cols: 1, count }), info })],
      ['gesvd', (c) => c.gesvd({
        a: general(), s: strided(dev.alloc('float64', n * count), { rows: n, cols: 1, count }),
        u: sq(dev.alloc('float64', n * n * count)), vt: sq(dev.alloc('float64', n * n * count)), info,
      })],
    ];
    for (const [op, call] of calls) {
      assert.ok(hasGpuOp(op), `${op} has a GPU kernel`);
      const { ctx, log } = loggingContext(dev);
      call(ctx);
      dev.synchronize();
      const floats = log.filter((c) => c.dtype !== 'int32' && c.dtype !== 'Int32Array');
      assert.deepEqual(floats, [], `${op} n=${n}: copies of matrix data (a CPU fallback or a host round trip)`);
      assert.ok(log.every((c) => c.what === 'download'), `${op} n=${n}: uploads ${JSON.stringify(log)}`);
      covered.add(op);
    }
    info.dispose();
    ipiv.dispose();
  }
  assert.deepEqual(OP_NAMES.filter((op) => !covered.has(op) && !CPU_ONLY.includes(op)), [], 'every operation is checked');
  for (const op of CPU_ONLY) assert.ok(!hasGpuOp(op), `${op} has a GPU kernel now: check it here`);
});
