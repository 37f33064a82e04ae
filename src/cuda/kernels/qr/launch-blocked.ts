/**
 * The blocked Householder QR drivers (LAPACK's dgeqrf and dorgqr; Golub & Van Loan 5.2.3, the
 * compact WY form of Schreiber & Van Loan): the panels on the shared-memory kernel of this family
 * (a view of A: pointer offset and ld), the block reflector I - V T V^T built by common/wy.ts, and
 * applied to the rest of A as two GEMMs through the gemm family's public face (tensor cores in
 * float64). `applyWy` is the block-reflector application that ormqr's blocked driver uses too.
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
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { operandArgs, sharedLimit, type OperandArgs } from '../common/operands.js';
import { householderGeqrfBlocked, householderOrgqrBlocked, type HouseholderSteps } from '../common/householder-blocked.js';
import { wyFactor, wyLaset, workBatch, type WyChunk } from '../common/wy-launch.js';
import { gemmCuda } from '../gemm/index.js';
import { geqrfSharedSource, orgqrSharedSource } from './generate-shared.js';
import type { QrBlockedPlan, QrPlan, QrShape } from './params.js';
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

/** The shared-memory kernel's plan for a tile (memoised per device). */
export function sharedPlan(dev: GpuDevice, shape: QrShape): QrPlan {
  const { op, dtype, m, n, k, kind } = shape;
  return plannedOnce(dev, `qr/${op}/${dtype}/${m}x${n}k${k}/${kind}`, () => planQr({ op, dtype, m, n, k, kind, sharedLimit: sharedLimit(dev) }));
}

/** One launch of the shared-memory kernel over `count` matrices (geqrf writes info at `info`, by `index` where given). */
export function launchShared(dev: GpuDevice, p: QrPlan, count: number, a: OperandArgs, tau: OperandArgs, info: bigint | null, index: DeviceArray | null): void {
  const params = p.params;
  const k = params.op === 'geqrf'
    ? kernelFor(dev, 'qr-geqrf', params, () => geqrfSharedSource(params))
    : kernelFor(dev, 'qr-orgqr', params, () => orgqrSharedSource(params));
  k.launch({ grid: [Math.ceil(count / params.perBlock), 1, 1], block: [p.blockThreads, 1, 1], sharedBytes: p.sharedBytes }, [
    ...operandArgs(a), ...operandArgs(tau), ...(info === null ? [] : [arg.ptr(info)]), arg.ptr(index === null ? 0n : index.ptr), arg.i32(count),
  ]);
}

/** Workspace elements per matrix of the blocked drivers: V and Y (m x nb) and W (nb x n). */
export const qrWorkElements = (m: number, n: number, nb: number): number => 2 * m * nb + nb * n;

/** The workspace of a chunk cut into V, Y (one matrix every m nb elements) and W (every nb n). */
function workspaces(dev: GpuDevice, c: WyChunk, m: number, n: number, nb: number): { v: DeviceArray; y: DeviceArray; w: DeviceArray } {
  const vy = c.count * m * nb;
  return { v: dev.view(c.work, 0, vy), y: dev.view(c.work, vy, vy), w: dev.view(c.work, 2 * vy, c.count * nb * n) };
}

/** This family's launches for the shared blocked drivers (common/householder-blocked.ts) on chunk `c` of plan `p`. */
function stepsOf(dev: GpuDevice, p: QrBlockedPlan, c: WyChunk): HouseholderSteps {
  const { dtype, m, n, nb } = p;
  const kind = c.operands[0]!.kind;
  const ws = workspaces(dev, c, m, n, nb);
  return {
    shared: (shape, a, tau, info) => launchShared(dev, sharedPlan(dev, { ...shape, dtype, kind }), c.count, a, tau, info, c.index),
    laset: (a, diagonal) => wyLaset(dev, dtype, c.count, a, diagonal),
    applyLeft: (panel, taus, r, ib, adjoint, target, nc) => {
      wyFactor(dev, dtype, nb, false, c.count, panel, taus, ws.v, ws.y, m * nb, r, ib);
      applyWy(dev, {
        side: 'left', trans: adjoint ? 'T' : 'N',
        v: workBatch(ws.v, r, ib, c.count, m * nb), y: workBatch(ws.y, r, ib, c.count, m * nb),
        w: workBatch(ws.w, ib, nc, c.count, nb * n), c: target,
      });
    },
  };
}

/** The blocked geqrf of one chunk (operands A and tau), by plan `p`. */
export const geqrfBlocked = (dev: GpuDevice, p: QrBlockedPlan, c: WyChunk, info: DeviceArray): void =>
  householderGeqrfBlocked(p, c, info, stepsOf(dev, p, c));

/** The blocked orgqr of one chunk (operands A and tau), by plan `p`. */
export const orgqrBlocked = (dev: GpuDevice, p: QrBlockedPlan, c: WyChunk): void => householderOrgqrBlocked(p, c, stepsOf(dev, p, c));
