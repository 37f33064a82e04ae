/**
 * Test data of the triangular solves (CPU emulation of the GPU plan and the GPU tests): well
 * conditioned triangles (diagonal dominant) with everything a solve must not read poisoned with
 * NaN (the other triangle; the diagonal where diag is 'unit'), B buffers with odd ld, stride and
 * offset, and the comparison of a result with the CPU reference: close in each matrix's m x n,
 * bit for bit elsewhere (padding and gaps keep their values, NaN included).
 */
import assert from 'node:assert/strict';
import type { Diag, Side, Uplo } from '../../src/core/enums.js';
import { allocate, DTYPE_EPS, type DType, type FloatArray } from '../../src/core/dtype.js';
import type { Op } from '../../src/core/ops.js';
import { Rng } from './random.js';

export interface TrsmCase { side: Side; uplo: Uplo; transA: Op; diag: Diag }

/** The 16 variants, side x uplo x trans x diag. */
export const TRSM_VARIANTS: readonly TrsmCase[] = (['left', 'right'] as const).flatMap((side) =>
  (['lower', 'upper'] as const).flatMap((uplo) => (['N', 'T'] as const).flatMap((transA) =>
    (['nonunit', 'unit'] as const).map((diag) => ({ side, uplo, transA, diag })))));

export const caseName = (c: TrsmCase): string => `${c.side}/${c.uplo}/${c.transA}/${c.diag}`;

/** A strided layout with odd ld, a gap between matrices and an odd offset. */
export interface Layout { rows: number; cols: number; count: number; ld: number; stride: number; offset: number }
export function oddLayout(rows: number, cols: number, count: number, broadcast = false): Layout {
  const ld = rows % 2 === 0 ? rows + 1 : rows + 2;
  return { rows, cols, count, ld, stride: broadcast ? 0 : ld * cols + 3, offset: 5 };
}
/** A strided layout the kernels' 16-byte copies can take: even ld, stride and offset (stride 0: A broadcast). */
export function evenLayout(rows: number, cols: number, count: number, broadcast = false): Layout {
  const ld = rows + (rows % 2) + 2;
  return { rows, cols, count, ld, stride: broadcast ? 0 : ld * cols + 4, offset: 2 };
}
export const layoutLength = (l: Layout): number => l.offset + Math.max(0, l.count - 1) * l.stride + l.ld * l.cols + 2;

/**
 * A triangular case's operands: `count` well-conditioned t x t triangles of `c` (one, stride 0, where
 * `broadcast`) and random m x n matrices of B, in `layout` (oddLayout by default), NaN around every
 * matrix (and in each triangle's other half, fillTriangle).
 */
export function triangularData(
  rng: Rng, dtype: DType, c: Pick<TrsmCase, 'uplo' | 'diag'>, t: number, m: number, n: number, count: number, broadcast = false,
  layout: (rows: number, cols: number, count: number, broadcast?: boolean) => Layout = oddLayout,
): { readonly la: Layout; readonly lb: Layout; readonly A: FloatArray; readonly B: FloatArray } {
  const la = layout(t, t, count, broadcast), lb = layout(m, n, count);
  const A = randomBuffer(rng, dtype, layoutLength(la));
  for (let i = 0; i < (broadcast ? 1 : count); i++) fillTriangle(rng, A, la.offset + i * la.stride, la.ld, t, c.uplo, c.diag);
  poisonOutside(A, la);
  const B = randomBuffer(rng, dtype, layoutLength(lb));
  poisonOutside(B, lb);
  return { la, lb, A, B };
}

/** Every element of `buf` outside the matrices of layout `l` set to NaN: what a kernel must leave alone. */
export function poisonOutside(buf: FloatArray, l: Layout): void {
  const inside = inStrided(l);
  for (let e = 0; e < buf.length; e++) if (!inside(e)) buf[e] = NaN;
}

/** A buffer of random values in [-1, 1]. */
export function randomBuffer(rng: Rng, dtype: DType, length: number): FloatArray {
  const a = allocate(dtype, length);
  for (let i = 0; i < a.length; i++) a[i] = rng.uniform();
  return a;
}

/**
 * Makes the t x t matrix at `off` a well-conditioned `uplo` triangle: off-diagonal entries
 * in [-1, 1] / t, diagonal in +-[1, 2]; the other triangle NaN, and the diagonal too where unit.
 */
export function fillTriangle(rng: Rng, a: FloatArray, off: number, ld: number, t: number, uplo: Uplo, diag: Diag): void {
  for (let j = 0; j < t; j++) {
    for (let i = 0; i < t; i++) {
      const inside = uplo === 'lower' ? i > j : i < j;
      a[off + i + j * ld] = i === j
        ? (diag === 'unit' ? NaN : (rng.uniform() < 0 ? -1 : 1) * rng.uniform(1, 2))
        : inside ? rng.uniform() / t : NaN;
    }
  }
}

const same = (x: number, y: number): boolean => x === y || (Number.isNaN(x) && Number.isNaN(y));

/** The relative tolerance of a solve of size t in `dtype` (results are O(1), triangles well conditioned). */
export const trsmTolerance = (dtype: DType, t: number): number => DTYPE_EPS[dtype] * 64 * Math.max(8, t);

/**
 * Compares a whole output buffer with the reference: inside a written region (`written(e)`) within
 * tol * max(1, |want|), elsewhere bit for bit.
 */
export function compareOutput(got: FloatArray, want: FloatArray, written: (e: number) => boolean, tol: number, what: string): void {
  for (let e = 0; e < got.length; e++) {
    const g = got[e]!, w = want[e]!;
    if (same(g, w)) continue;
    if (written(e) && Number.isFinite(g) && Number.isFinite(w) && Math.abs(g - w) <= tol * Math.max(1, Math.abs(w))) continue;
    assert.fail(`${what}: element ${e} is ${g}, expected ${w}${written(e) ? '' : ' (must be unchanged)'}`);
  }
}

/** Whether buffer element e lies in the rows x cols part of a matrix of a strided layout. */
export function inStrided(l: Layout): (e: number) => boolean {
  return (e) => {
    const q = e - l.offset;
    if (q < 0 || l.stride === 0) return q >= 0 && q < l.ld * l.cols && q % l.ld < l.rows && l.count > 0;
    const m = Math.floor(q / l.stride);
    if (m >= l.count) return false;
    const w = q - m * l.stride;
    return w < l.ld * l.cols && w % l.ld < l.rows;
  };
}

/**
 * Compares a buffer laid out as `l` with the reference element by element: equal (NaN = NaN), or
 * inside the matrices within `tol`; outside them (padding, gaps) bit for bit. `loose(mat)`: a
 * matrix whose elements are only checked for staying inside (NaN spreads by the order of sums).
 */
export function assertLayoutClose(got: FloatArray, want: FloatArray, l: Layout, tol: number, what: string, loose: (mat: number) => boolean = () => false): void {
  for (let e = 0; e < got.length; e++) {
    const g = got[e]!, x = want[e]!;
    if (g === x || (Number.isNaN(g) && Number.isNaN(x))) continue;
    const q = e - l.offset, mat = Math.floor(q / l.stride), rest = q - mat * l.stride;
    const inside = q >= 0 && mat < l.count && rest % l.ld < l.rows && Math.floor(rest / l.ld) < l.cols;
    assert.ok(inside, `${what}: element ${e} outside the matrices changed (${x} -> ${g})`);
    if (loose(mat)) continue;
    assert.ok(Math.abs(g - x) <= tol, `${what}: element ${e} (matrix ${mat}, row ${rest % l.ld}, column ${Math.floor(rest / l.ld)}) is ${g}, expected ${x}`);
  }
}
