/**
 * This family's launches for the blocked Householder QR drivers (LAPACK's dgeqrf and dorgqr; Golub &
 * Van Loan 5.2.3, the compact WY form of Schreiber & Van Loan), which common/householder-launch.ts
 * and householder-blocked.ts run: the panels on this family's shared-memory kernel (a view of A:
 * pointer offset and ld), the block reflector I - V T V^T built by common/wy.ts, and applied to the
 * rest of A as two GEMMs through the gemm family's public face (tensor cores in float64). `applyWy`
 * and `QR_FAMILY` serve ormqr's blocked driver too.
 *
 * geqrf, for each panel j = 0, nb, ... below the plan's tail:
 *   the (m - j) x ib panel factored (geqr2 on the view, tau from row j),
 *   V and Y = V T from it, then A(j:m, j+ib:n) -= V (Y^T A(j:m, j+ib:n))   (H^T applied),
 * and the (m - tail) x (n - tail) rest factored by one shared kernel where the plan says so.
 * orgqr (Q over A, m >= n >= k), backwards as dorgqr:
 *   columns tail..n-1: the shared orgqr kernel on A(tail:m, tail:n) with k - tail reflectors (or unit
 *   columns by laset where no tail kernel fits), zeros in A(0:tail, tail:n);
 *   for each panel j from the last below the tail down to 0: V and Y = V T of the panel's
 *   reflectors, A(j:m, j+ib:n) -= Y (V^T A(j:m, j+ib:n))   (H applied), then the panel's own
 *   columns by the shared orgqr kernel on A(j:m, j:j+ib), zeros in A(0:j, j:j+ib).
 * Each matrix's work touches only its own memory and workspace: NaN stays in its matrix.
 */
import type { Side } from '../../../core/enums.js';
import type { Op } from '../../../core/ops.js';
import type { Batch } from '../../../core/batch.js';
import type { DeviceArray, GpuDevice } from '../../runtime/types.js';
import type { HouseholderFamily } from '../common/householder-launch.js';
import { wyFactor, wyLaset } from '../common/wy-launch.js';
import { gemmCuda } from '../gemm/index.js';
import { geqrfSharedSource, orgqrSharedSource } from './generate-shared.js';
import { planQr } from './plan.js';

/** The operands of one block-reflector application (every batch of the chunk's count). */
export interface WyApply {
  readonly side: Side;
  /** Apply H = I - V T V^T ('N') or H^T ('T'). */
  readonly trans: Op;
  /** V (r x ib), explicit. */
  readonly v: Batch<DeviceArray>;
  /** Y = V T, or V T^T where side 'right' and trans 'N' (wyFactor's transT). */
  readonly y: Batch<DeviceArray>;
  /** Workspace W: ib x (C's columns) on the left, (C's rows) x ib on the right. */
  readonly w: Batch<DeviceArray>;
  /** C: r x nc on the left, nc x r on the right. */
  readonly c: Batch<DeviceArray>;
}

/** Whether the Y of an application is V T^T (only C H on the right). */
export const wyTransT = (side: Side, trans: Op): boolean => side === 'right' && trans === 'N';

/**
 * C := H C, H^T C, C H or C H^T by two GEMMs:
 *   left:  W = P^T C, C -= Q W with (P, Q) = (Y, V) for H^T (C - V T^T V^T C) and (V, Y) for H;
 *   right: W = C V,   C -= W Y^T (Y = V T^T for H, V T for H^T).
 */
export function applyWy(dev: GpuDevice, x: WyApply): void {
  if (x.side === 'left') {
    const [p, q] = x.trans === 'T' ? [x.y, x.v] : [x.v, x.y];
    gemmCuda(dev, { transA: 'T', transB: 'N', alpha: 1, a: p, b: x.c, beta: 0, c: x.w });
    gemmCuda(dev, { transA: 'N', transB: 'N', alpha: -1, a: q, b: x.w, beta: 1, c: x.c });
  } else {
    gemmCuda(dev, { transA: 'N', transB: 'N', alpha: 1, a: x.c, b: x.v, beta: 0, c: x.w });
    gemmCuda(dev, { transA: 'N', transB: 'T', alpha: -1, a: x.w, b: x.y, beta: 1, c: x.c });
  }
}

/** This family's launches, as the drivers of common/householder-launch.ts call them (ormqr's blocked driver too). */
export const QR_FAMILY: HouseholderFamily<'T'> = {
  shared: { name: 'qr', plan: (pr) => planQr(pr), geqrfSource: geqrfSharedSource, orgqrSource: orgqrSharedSource },
  wy: { parts: 1, adjoint: 'T', factor: wyFactor, apply: applyWy, laset: wyLaset, transT: wyTransT },
};
