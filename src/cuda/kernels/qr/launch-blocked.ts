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
import type { DType } from '../../../core/dtype.js';
import type { Side } from '../../../core/enums.js';
import type { Op } from '../../../core/ops.js';
import type { Batch } from '../../../core/batch.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { operandArgs, sharedLimit, type OperandArgs } from '../common/operands.js';
import { wyFactor, wyLaset, wyView, workBatch, type WyChunk } from '../common/wy-launch.js';
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

/** The blocked geqrf of one chunk (operands A and tau), by plan `p`. */
export function geqrfBlocked(dev: GpuDevice, p: QrBlockedPlan, c: WyChunk, info: DeviceArray): void {
  const [a, tau] = c.operands as [WyChunk['operands'][0], WyChunk['operands'][0]];
  const { dtype, m, n, k, nb } = p;
  const ws = workspaces(dev, c, m, n, nb);
  const infoAt = c.infoPointer(info);
  const end = p.tailKernel ? p.tail : k;
  for (let j = 0; j < end; j += nb) {
    const ib = Math.min(nb, k - j);
    const r = m - j;
    const panel = wyView(a, j, j, r, ib);
    const taus = wyView(tau, j, 0, ib, 1);
    launchShared(dev, sharedPlan(dev, { op: 'geqrf', dtype, m: r, n: ib, k: ib, kind: a.kind }), c.count, panel.args, taus.args, infoAt, c.index);
    const nc = n - j - ib;
    if (nc <= 0) continue;
    apply(dev, dtype, nb, c, ws, panel.args, taus.args, r, ib, 'T', wyView(a, j, j + ib, r, nc).batch, m, n);
  }
  if (p.tailKernel) {
    const t = p.tail;
    launchShared(dev, sharedPlan(dev, { op: 'geqrf', dtype, m: m - t, n: n - t, k: k - t, kind: a.kind }), c.count,
      wyView(a, t, t, m - t, n - t).args, wyView(tau, t, 0, k - t, 1).args, infoAt, c.index);
  }
}

/** The blocked orgqr of one chunk (operands A and tau), by plan `p`. */
export function orgqrBlocked(dev: GpuDevice, p: QrBlockedPlan, c: WyChunk): void {
  const [a, tau] = c.operands as [WyChunk['operands'][0], WyChunk['operands'][0]];
  const { dtype, m, n, k, nb } = p;
  const ws = workspaces(dev, c, m, n, nb);
  const t = p.tail;
  if (t < n) {
    wyLaset(dev, dtype, c.count, wyView(a, 0, t, t, n - t).args, 0);
    if (p.tailKernel) {
      launchShared(dev, sharedPlan(dev, { op: 'orgqr', dtype, m: m - t, n: n - t, k: k - t, kind: a.kind }), c.count,
        wyView(a, t, t, m - t, n - t).args, wyView(tau, t, 0, k - t, 1).args, null, c.index);
    } else {
      wyLaset(dev, dtype, c.count, wyView(a, t, t, m - t, n - t).args, 1);
    }
  }
  const last = t === 0 ? -1 : Math.floor((t - 1) / nb) * nb;
  for (let j = last; j >= 0; j -= nb) {
    const ib = Math.min(nb, t - j);
    const r = m - j;
    const panel = wyView(a, j, j, r, ib);
    const taus = wyView(tau, j, 0, ib, 1);
    const nc = n - j - ib;
    if (nc > 0) apply(dev, dtype, nb, c, ws, panel.args, taus.args, r, ib, 'N', wyView(a, j, j + ib, r, nc).batch, m, n);
    launchShared(dev, sharedPlan(dev, { op: 'orgqr', dtype, m: r, n: ib, k: ib, kind: a.kind }), c.count, panel.args, taus.args, null, c.index);
    wyLaset(dev, dtype, c.count, wyView(a, 0, j, j, ib).args, 0);
  }
}

/** V, Y of the r x ib reflectors at `panel`, then H ('N') or H^T ('T') applied from the left to `target` (r x nc). */
function apply(dev: GpuDevice, dtype: DType, nb: number, c: WyChunk, ws: { v: DeviceArray; y: DeviceArray; w: DeviceArray },
  panel: OperandArgs, taus: OperandArgs, r: number, ib: number, trans: Op, target: Batch<DeviceArray>, m: number, n: number): void {
  const nc = target.kind === 'variable' ? 0 : target.cols;
  wyFactor(dev, dtype, nb, false, c.count, panel, taus, ws.v, ws.y, m * nb, r, ib);
  applyWy(dev, {
    side: 'left', trans,
    v: workBatch(ws.v, r, ib, c.count, m * nb), y: workBatch(ws.y, r, ib, c.count, m * nb),
    w: workBatch(ws.w, ib, nc, c.count, nb * n), c: target,
  });
}
