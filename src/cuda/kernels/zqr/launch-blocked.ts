/**
 * This family's launches for the blocked complex Householder drivers (LAPACK's zgeqrf, zungqr and
 * zunmqr; the compact WY form of generate-wy.ts), which common/householder-launch.ts and
 * householder-blocked.ts run as they run the real family's (`ZQR_FAMILY`): panels on this family's
 * shared kernel over a view of A, the block reflector I - V T V^H applied to the rest as two complex
 * GEMMs through the gemm family's public face (`complexGemmCuda`), zlaset.
 *
 * geqrf, for each panel j = 0, nb, ... below the plan's tail:
 *   the (m - j) x ib panel factored (zgeqr2 on the view, tau from row j),
 *   V and Y = V T from it, then A(j:m, j+ib:n) -= V (Y^H A(j:m, j+ib:n))   (H^H applied),
 * and the (m - tail) x (n - tail) rest by one shared kernel where the plan says so.
 * orgqr (Q over A, m >= n >= k), backwards as zungqr:
 *   columns tail..n-1: the shared orgqr kernel on A(tail:m, tail:n) with k - tail reflectors (or unit
 *   columns by zlaset), zeros in A(0:tail, tail:n);
 *   for each panel j from the last below the tail down to 0: A(j:m, j+ib:n) -= Y (V^H A(j:m, j+ib:n))
 *   (H applied), then the panel's own columns by the shared orgqr kernel, zeros in A(0:j, j:j+ib).
 * ormqr: blocks of nb reflectors in zunmqr's order, each applied to C(i:m, :) (left) or C(:, i:n)
 * (right) by `applyZwy` (common/householder-launch.ts runHouseholderOrmqr).
 * Each matrix's work touches only its own memory and workspace: NaN stays in its matrix.
 */
import type { DType } from '../../../core/dtype.js';
import type { Side } from '../../../core/enums.js';
import type { Batch } from '../../../core/batch.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { cachedKernel, kernelFor, plannedOnce } from '../common/kernel-cache.js';
import type { HouseholderFamily } from '../common/householder-launch.js';
import { operandArgs, type OperandArgs } from '../common/operands.js';
import { complexGemmCuda } from '../gemm/index.js';
import { zgeqrfSharedSource, zorgqrSharedSource } from './generate-shared.js';
import { ZWY_THREADS, zlasetName, zlasetSource, zwySource } from './generate-wy.js';
import type { ZlasetParams, ZwyParams } from './params.js';
import { planZqr } from './plan.js';

const ONE: readonly [number, number] = [1, 0];
const ZERO: readonly [number, number] = [0, 0];
const MINUS_ONE: readonly [number, number] = [-1, 0];

/** The operands of one block-reflector application (every batch of the chunk's count). */
interface ZwyApply {
  readonly side: Side;
  /** Apply H = I - V T V^H ('N') or H^H ('C'). */
  readonly trans: 'N' | 'C';
  readonly v: Batch<DeviceArray>;
  /** Y = V T, or V T^H where side 'right' and trans 'N' (`zwyConjT`). */
  readonly y: Batch<DeviceArray>;
  /** Workspace W: ib x (C's columns) on the left, (C's rows) x ib on the right. */
  readonly w: Batch<DeviceArray>;
  readonly c: Batch<DeviceArray>;
}

/** Whether the Y of an application is V T^H (only C H on the right). */
const zwyConjT = (side: Side, trans: 'N' | 'C'): boolean => side === 'right' && trans === 'N';

/**
 * C := H C, H^H C, C H or C H^H by two complex GEMMs:
 *   left:  W = P^H C, C -= Q W with (P, Q) = (Y, V) for H^H (C - V T^H V^H C) and (V, Y) for H;
 *   right: W = C V,   C -= W Y^H (Y = V T^H for H, V T for H^H).
 */
function applyZwy(dev: GpuDevice, x: ZwyApply): void {
  if (x.side === 'left') {
    const [p, q] = x.trans === 'C' ? [x.y, x.v] : [x.v, x.y];
    complexGemmCuda(dev, { transA: 'C', transB: 'N', alpha: ONE, a: p, b: x.c, beta: ZERO, c: x.w });
    complexGemmCuda(dev, { transA: 'N', transB: 'N', alpha: MINUS_ONE, a: q, b: x.w, beta: ONE, c: x.c });
  } else {
    complexGemmCuda(dev, { transA: 'N', transB: 'N', alpha: ONE, a: x.c, b: x.v, beta: ZERO, c: x.w });
    complexGemmCuda(dev, { transA: 'N', transB: 'C', alpha: MINUS_ONE, a: x.w, b: x.y, beta: ONE, c: x.c });
  }
}

/** V (explicit) and Y = V T (or V T^H) of the r x ib reflectors at `a` (a view), tau at `tau`; one matrix every `strideW` pairs of v and y. */
function zwyFactor(dev: GpuDevice, dtype: DType, nb: number, conjT: boolean, count: number, a: OperandArgs, tau: OperandArgs,
  v: DeviceArray, y: DeviceArray, strideW: number, r: number, ib: number): void {
  // One parameter object per (dtype, kind, nb, conjT) (plannedOnce), so a hot call finds its kernel by identity.
  const params = plannedOnce<ZwyParams>(dev, `zwy-factor/${dtype}/${a.kind}/${nb}/${conjT}`, () => ({ dtype, kind: a.kind, nb, conjT }));
  const k = kernelFor(dev, 'zwy-factor', params, () => zwySource(params));
  k.launch({ grid: [count, 1, 1], block: [ZWY_THREADS, 1, 1] }, [
    ...operandArgs(a), ...operandArgs(tau), arg.ptr(v.ptr), arg.ptr(y.ptr), arg.i64(strideW), arg.i32(count), arg.i32(r), arg.i32(ib),
  ]);
}

/** The rows x cols view `a` of each of `count` matrices := 0 off the diagonal, (diagonal, 0) on it. */
function zlaset(dev: GpuDevice, dtype: DType, count: number, a: OperandArgs, diagonal: number): void {
  if (a.rows === 0 || a.cols === 0 || count === 0) return;
  // cachedKernel finds the kernel by its name: the parameters need no memo.
  const params: ZlasetParams = { dtype, kind: a.kind };
  const k = cachedKernel(dev, zlasetName(params), () => zlasetSource(params));
  k.launch({ grid: [count, 1, 1], block: [ZWY_THREADS, 1, 1] }, [
    ...operandArgs(a), arg.i32(count), arg.i32(a.rows), arg.i32(a.cols), arg.real(dtype, diagonal),
  ]);
}

/** This family's launches, as the drivers of common/householder-launch.ts call them. */
export const ZQR_FAMILY: HouseholderFamily<'C'> = {
  shared: { name: 'zqr', plan: (pr) => planZqr(pr), geqrfSource: zgeqrfSharedSource, orgqrSource: zorgqrSharedSource },
  wy: { parts: 2, adjoint: 'C', factor: zwyFactor, apply: applyZwy, laset: zlaset, transT: zwyConjT },
};
