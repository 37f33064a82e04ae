/**
 * trsm through a CUDA context on triangles whose diagonal holds a subnormal entry (its reciprocal
 * overflows; test/helpers/subnormal-diagonal.ts): X finite and as the CPU reference's, side 'left'
 * (where the reference BLAS divides), every uplo and transA (non-unit), real and complex, orders that reach the register leaves, the chained
 * substitution, the recursion and the blocked inverses (from 512), one and many right-hand sides; on
 * the default routes and with cuBLAS's trsmBatched forced (its complex route sets those matrices aside for the own route). Skips
 * with one line where no GPU is usable.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { referenceContext } from '../../src/api/context.js';
import { strided } from '../../src/core/batch.js';
import type { ElementType } from '../../src/core/dtype.js';
import type { Side, Trans, Uplo } from '../../src/core/enums.js';
import { vendorUsable } from '../../src/cuda/vendor/index.js';
import { gpu, gpuContext, gpuSkipReason } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';
import { plantSubnormalDiagonal } from '../helpers/subnormal-diagonal.js';

const skip = gpuSkipReason();
const SHAPES: readonly (readonly [number, number])[] = [[8, 5], [33, 16], [100, 1], [128, 40], [200, 3], [520, 20]];
const COUNT = 3;

interface Case { dtype: ElementType; side: Side; uplo: Uplo; transA: Trans; order: number; vectors: number }

const single = (t: ElementType): boolean => t === 'float32' || t === 'complex64';
const partsOf = (t: ElementType): 1 | 2 => (t === 'complex64' || t === 'complex128' ? 2 : 1);

/** A and B of the case (column-major, dense), the triangle well conditioned, entry k = order / 3 subnormal in matrices 0 and 2. */
function build(c: Case, rng: Rng): { a: Float64Array | Float32Array; b: Float64Array | Float32Array } {
  const parts = partsOf(c.dtype), t = c.order;
  const [rows, cols] = c.side === 'left' ? [t, c.vectors] : [c.vectors, t];
  const make = (n: number): Float64Array | Float32Array => (single(c.dtype) ? new Float32Array(n) : new Float64Array(n));
  const a = make(parts * t * t * COUNT), b = make(parts * rows * cols * COUNT);
  for (let q = 0; q < COUNT; q++) for (let j = 0; j < t; j++) for (let i = 0; i < t; i++) {
    const e = parts * (q * t * t + i + j * t);
    a[e] = i === j ? 2 + rng.next() : rng.uniform() / t;
    if (parts === 2) a[e + 1] = rng.uniform() / t;
  }
  for (let f = 0; f < b.length; f++) b[f] = rng.uniform();
  const spec = { single: single(c.dtype), parts, uplo: c.uplo, side: c.side, order: t, vectors: c.vectors, k: Math.floor(t / 3) } as const;
  // Matrices 0 and 2 (matrix 1 normal: a vendor route solves it, the others it sets aside).
  plantSubnormalDiagonal(spec, a, { offsets: [0, 2].map((q) => q * t * t), ld: t }, b, { offsets: [0, 2].map((q) => q * rows * cols), ld: rows });
  return { a, b };
}

function check(c: Case, route: string | undefined, rng: Rng): void {
  const { ctx, backend } = gpuContext();
  const { a, b } = build(c, rng);
  const t = c.order;
  const [rows, cols] = c.side === 'left' ? [t, c.vectors] : [c.vectors, t];
  const complex = partsOf(c.dtype) === 2 ? { dtype: c.dtype } : {};
  const call = (x: Float64Array | Float32Array) => ({
    side: c.side, uplo: c.uplo, transA: c.transA, diag: 'nonunit' as const, alpha: partsOf(c.dtype) === 2 ? [0.75, -0.5] as [number, number] : 0.75,
    a: strided(a, { rows: t, cols: t, count: COUNT, ...complex }), b: strided(x, { rows, cols, count: COUNT, ...complex }),
  });
  const want = b.slice(), got = b.slice();
  referenceContext.trsm(call(want));
  const saved = backend.force;
  backend.force = route === undefined ? saved : { ...saved, trsm: route };
  try {
    ctx.trsm(call(got));
  } finally {
    backend.force = saved;
  }
  const at = `${route ?? 'default'} ${ctx.lastRoute?.route} ${c.dtype} ${c.side} ${c.uplo} ${c.transA} order ${t}, ${c.vectors} vectors`;
  assert.ok(want.every(Number.isFinite), `${at}: the reference's X is finite`);
  const eps = single(c.dtype) ? 2 ** -23 : 2 ** -52;
  const tol = 32 * t * eps;
  let worst = 0;
  for (let f = 0; f < got.length; f++) {
    assert.ok(Number.isFinite(got[f]!), `${at}: X[${f}] = ${got[f]} (the reference's ${want[f]})`);
    worst = Math.max(worst, Math.abs(got[f]! - want[f]!) / Math.max(Math.abs(want[f]!), 1));
  }
  assert.ok(worst <= tol, `${at}: relative difference ${worst} above ${tol}`);
}

// The left side only: there the reference BLAS divides by the diagonal (xTRSM's left branches), as
// LAPACK's solves need; its right-side branches multiply by the reciprocal, which overflows here too.
for (const dtype of ['float32', 'float64', 'complex64', 'complex128'] as const) {
  for (const route of [undefined, 'cublas'] as const) {
    // cuBLAS's complex trsmBatched multiplies by the overflowing reciprocal (on an H200, complex64, left, lower, N,
    // order 8: NaN where ztrsm divides); its route sets such matrices aside for the own route.
    test(`GPU ${dtype} trsm (left) with a subnormal diagonal entry on the ${route ?? 'default'} route: X finite and the reference's`, { skip, timeout: 600_000 }, (t) => {
      if (route === 'cublas' && !vendorUsable(gpu(), 'cublas')) { t.skip('cuBLAS does not load on this machine'); return; }
      const rng = new Rng(dtype.length * 31 + (single(dtype) ? 1 : 0));
      const transes: readonly Trans[] = partsOf(dtype) === 2 ? ['N', 'T', 'C'] : ['N', 'T'];
      for (const [order, vectors] of SHAPES) for (const uplo of ['lower', 'upper'] as const) for (const transA of transes) {
        check({ dtype, side: 'left', uplo, transA, order, vectors }, route, rng);
      }
    });
  }
}
