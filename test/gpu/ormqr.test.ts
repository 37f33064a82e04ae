/**
 * Batched ormqr on a real GPU (skipped where none is usable): the ormqr kernels against the CPU
 * reference, every side and trans, both dtypes, orders 1..40 (a selection), 64 and 100, square,
 * tall (k < r) and wide (A with more columns than k) reflector blocks, one vector of C up to 200
 * (several passes through the tile); odd ld, stride and offset with NaN in everything the kernel
 * must not read (A's diagonal and upper part, padding) or write (C's padding, which must come back
 * bit for bit); pointer arrays (a list batch in reverse order); 20,000 matrices at once; a CUDA
 * context on host arrays, and a size beyond the kernel's shared memory (the blocked driver). The
 * blocked compact-WY driver: orders 64...512 (its default from 64 reflectors), k < r, pointer arrays,
 * and forced onto small orders with ragged blocks.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Context } from '../../src/api/context.js';
import { list, strided } from '../../src/core/batch.js';
import type { DType, FloatArray } from '../../src/core/dtype.js';
import type { Side } from '../../src/core/enums.js';
import type { Op } from '../../src/core/ops.js';
import { cpuOrmqr } from '../../src/cpu/lapack/index.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { ormqrCuda, ormqrFits, type OrmqrForce } from '../../src/cuda/kernels/ormqr/index.js';
import { gpuCovers } from '../../src/cuda/router.js';
import type { GpuDevice } from '../../src/cuda/runtime/index.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';
import { SIDES, TRANSES, ormqrTolerance, reflectors } from '../helpers/ormqr-data.js';
import { Rng } from '../helpers/random.js';
import { compareOutput, inStrided, layoutLength, oddLayout, randomBuffer, type Layout } from '../helpers/trsm-data.js';

const skip = gpuSkipReason();
const DTYPES: DType[] = ['float64', 'float32'];

interface Case { r: number; k: number; cols: number; nvec: number; count: number; pointer?: boolean; force?: OrmqrForce }

/** One batch on the GPU against cpuOrmqr on the same buffers. */
function check(dev: GpuDevice, rng: Rng, dtype: DType, side: Side, trans: Op, c: Case): void {
  const { r, k, cols, nvec, count } = c;
  const pointer = c.pointer === true;
  const [m, n] = side === 'left' ? [r, nvec] : [nvec, r];
  const la: Layout = oddLayout(r, cols, count), lt: Layout = oddLayout(k, 1, count), lc: Layout = oddLayout(m, n, count);
  // A and tau: NaN except the reflectors' part below the diagonal and tau's k entries.
  const A = randomBuffer(rng, dtype, layoutLength(la)).fill(NaN);
  const T = randomBuffer(rng, dtype, layoutLength(lt)).fill(NaN);
  for (let i = 0; i < count; i++) {
    const { a, tau } = reflectors(rng, dtype, r, Math.max(cols, k), k);
    for (let j = 0; j < k; j++) for (let p = j + 1; p < r; p++) A[la.offset + i * la.stride + p + j * la.ld] = a[p + j * r]!;
    for (let j = 0; j < k; j++) T[lt.offset + i * lt.stride + j] = tau[j]!;
  }
  // C: random inside the matrices, NaN in its padding and gaps.
  const C = randomBuffer(rng, dtype, layoutLength(lc));
  const inC = inStrided(lc);
  for (let e = 0; e < C.length; e++) if (!inC(e)) C[e] = NaN;
  const sa = { rows: r, cols, count, ld: la.ld, stride: la.stride, offset: la.offset };
  const st = { rows: k, cols: 1, count, ld: lt.ld, stride: lt.stride, offset: lt.offset };
  const sc = { rows: m, cols: n, count, ld: lc.ld, stride: lc.stride, offset: lc.offset };
  const want = C.slice();
  cpuOrmqr({ side, trans, a: strided(A, sa), tau: strided(T, st), c: strided(want, sc) });
  const dA = dev.upload(A), dT = dev.upload(T), dC = dev.upload(C);
  try {
    if (!pointer) {
      ormqrCuda(dev, { side, trans, a: strided(dA, sa), tau: strided(dT, st), c: strided(dC, sc) }, { force: c.force });
    } else {
      // The same matrices as pointer arrays, listed in reverse order.
      const entries = (l: Layout) => Array.from({ length: count }, (_, i) => l.offset + (count - 1 - i) * l.stride);
      ormqrCuda(dev, {
        side, trans,
        a: list(entries(la).map((offset) => ({ data: dA, offset })), { rows: r, cols, ld: la.ld }),
        tau: list(entries(lt).map((offset) => ({ data: dT, offset })), { rows: k, cols: 1, ld: lt.ld }),
        c: list(entries(lc).map((offset) => ({ data: dC, offset })), { rows: m, cols: n, ld: lc.ld }),
      }, { force: c.force });
    }
    const got = dev.download(dC) as FloatArray;
    compareOutput(got, want, inC, ormqrTolerance(dtype, r), `ormqr ${dtype} ${side} ${trans} r=${r} k=${k} cols=${cols} nvec=${nvec} count=${count}${pointer ? ' pointer' : ''}`);
    assert.deepEqual(dev.download(dA), A, 'A changed');
    assert.deepEqual(dev.download(dT), T, 'tau changed');
  } finally {
    dA.dispose(); dT.dispose(); dC.dispose();
  }
}

const ORDERS = [1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 24, 31, 32, 33, 40, 64, 100];

test('ormqr on the GPU: every side and trans, orders 1..40 (a selection), 64, 100; square, tall and wide reflector blocks', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1818);
  for (const dtype of DTYPES) for (const side of SIDES) for (const trans of TRANSES) {
    for (const r of ORDERS) {
      check(dev, rng, dtype, side, trans, { r, k: r, cols: r, nvec: r, count: 3 });
      check(dev, rng, dtype, side, trans, { r, k: Math.ceil(r / 2), cols: Math.ceil(r / 2), nvec: 3, count: 5 });
      check(dev, rng, dtype, side, trans, { r, k: r, cols: r + 3, nvec: 1, count: 2, pointer: r % 2 === 1 });
    }
  }
});

test('ormqr on the GPU: C with more vectors than a pass (200), pointer arrays, 20,000 matrices', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(99);
  for (const dtype of DTYPES) for (const side of SIDES) for (const trans of TRANSES) {
    check(dev, rng, dtype, side, trans, { r: 24, k: 20, cols: 20, nvec: 200, count: 2 });
    check(dev, rng, dtype, side, trans, { r: 12, k: 12, cols: 12, nvec: 7, count: 9, pointer: true });
  }
  check(dev, rng, 'float64', 'left', 'T', { r: 8, k: 8, cols: 8, nvec: 8, count: 20_000 });
  check(dev, rng, 'float32', 'right', 'N', { r: 4, k: 3, cols: 3, nvec: 5, count: 20_000 });
});

test('ormqr in a CUDA context: host arrays staged through the GPU; reflectors beyond the shared memory on the CPU reference', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const backend = new CudaBackend(dev, 'test');
  const ctx = new Context('cuda', backend, backend);
  const rng = new Rng(5);
  for (const [dtype, r] of [['float64', 20], ['float32', 100], ['float64', 180]] as const) {
    const { a, tau } = reflectors(rng, dtype, r, r);
    const c0 = randomBuffer(rng, dtype, r * 4);
    const want = c0.slice();
    cpuOrmqr({ side: 'right', trans: 'T', a: strided(a, { rows: r }), tau: strided(tau, { rows: r, cols: 1 }), c: strided(want, { rows: 4, cols: r }) });
    const got = c0.slice();
    const args = { side: 'right', trans: 'T', a: strided(a, { rows: r }), tau: strided(tau, { rows: r, cols: 1 }), c: strided(got, { rows: 4, cols: r }) } as const;
    ctx.ormqr(args);
    assert.equal(gpuCovers('ormqr', { ...args }, dev), true, 'every size (the blocked driver beyond the shared kernel)');
    compareOutput(got, want, () => true, ormqrTolerance(dtype, r), `context ormqr ${dtype} r=${r}`);
  }
  assert.ok(!ormqrFits('float64', 180, 180, 4), 'the last case runs on the blocked driver');
});

test('blocked ormqr on the GPU: orders 64...512, every side and trans, both dtypes, k < r, pointer arrays, forced designs', { skip, timeout: 900_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1820);
  for (const dtype of DTYPES) for (const side of SIDES) for (const trans of TRANSES) {
    for (const r of [64, 100, 128, 200, 256, 512]) check(dev, rng, dtype, side, trans, { r, k: r, cols: r, nvec: r >= 256 ? 40 : r, count: r >= 256 ? 2 : 3 });
    check(dev, rng, dtype, side, trans, { r: 300, k: 77, cols: 80, nvec: 33, count: 3, pointer: true });
    check(dev, rng, dtype, side, trans, { r: 512, k: 48, cols: 48, nvec: 5, count: 2 });
  }
  // The blocked driver where the shared kernel would serve (small orders, ragged blocks), and the reverse.
  for (const [r, k, panel] of [[9, 9, 4], [40, 33, 8], [70, 70, 32]] as const)
    for (const side of SIDES) for (const trans of TRANSES)
      check(dev, rng, 'float64', side, trans, { r, k, cols: k, nvec: 6, count: 4, force: { design: 'blocked', panel } });
  check(dev, rng, 'float64', 'left', 'T', { r: 100, k: 100, cols: 100, nvec: 9, count: 3, force: { design: 'shared' } });
});
