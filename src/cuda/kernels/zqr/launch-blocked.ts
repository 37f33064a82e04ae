/**
 * The blocked complex Householder drivers (LAPACK's zgeqrf, zungqr and zunmqr; the compact WY form
 * of generate-wy.ts), the real qr family's launch-blocked.ts over (re, im) pairs: panels on this
 * family's shared kernel over a view of A, the block reflector I - V T V^H applied to the rest as
 * two complex GEMMs through the gemm family's public face (`complexGemmCuda`).
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
 * (right) by `applyZwy`.
 * Each matrix's work touches only its own memory and workspace: NaN stays in its matrix.
 */
import type { DType } from '../../../core/dtype.js';
import type { Side } from '../../../core/enums.js';
import type { Batch } from '../../../core/batch.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { cachedKernel, kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { operandArgs, sharedLimit, type OperandArgs } from '../common/operands.js';
import { householderGeqrfBlocked, householderOrgqrBlocked, type HouseholderSteps } from '../common/householder-blocked.js';
import { wyView, workBatch, type WyChunk } from '../common/wy-launch.js';
import { complexGemmCuda } from '../gemm/index.js';
import { zgeqrfSharedSource, zorgqrSharedSource } from './generate-shared.js';
import { zforwardOrder } from './generate-ormqr.js';
import { ZWY_THREADS, zlasetName, zlasetSource, zwySource } from './generate-wy.js';
import type { ZlasetParams, ZqrBlockedPlan, ZqrPlan, ZqrShape, ZwyParams } from './params.js';
import { planZqr } from './plan.js';

const ONE: readonly [number, number] = [1, 0];
const ZERO: readonly [number, number] = [0, 0];
const MINUS_ONE: readonly [number, number] = [-1, 0];

/** The operands of one block-reflector application (every batch of the chunk's count). */
export interface ZwyApply {
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
export const zwyConjT = (side: Side, trans: 'N' | 'C'): boolean => side === 'right' && trans === 'N';

/**
 * C := H C, H^H C, C H or C H^H by two complex GEMMs:
 *   left:  W = P^H C, C -= Q W with (P, Q) = (Y, V) for H^H (C - V T^H V^H C) and (V, Y) for H;
 *   right: W = C V,   C -= W Y^H (Y = V T^H for H, V T for H^H).
 */
export function applyZwy(dev: GpuDevice, x: ZwyApply): void {
  if (x.side === 'left') {
    const [p, q] = x.trans === 'C' ? [x.y, x.v] : [x.v, x.y];
    complexGemmCuda(dev, { transA: 'C', transB: 'N', alpha: ONE, a: p, b: x.c, beta: ZERO, c: x.w });
    complexGemmCuda(dev, { transA: 'N', transB: 'N', alpha: MINUS_ONE, a: q, b: x.w, beta: ONE, c: x.c });
  } else {
    complexGemmCuda(dev, { transA: 'N', transB: 'N', alpha: ONE, a: x.c, b: x.v, beta: ZERO, c: x.w });
    complexGemmCuda(dev, { transA: 'N', transB: 'C', alpha: MINUS_ONE, a: x.w, b: x.y, beta: ONE, c: x.c });
  }
}

/** The shared kernel's plan for a tile (memoised per device). */
export function zsharedPlan(dev: GpuDevice, shape: ZqrShape): ZqrPlan {
  const { op, dtype, m, n, k, kind } = shape;
  return plannedOnce(dev, `zqr/${op}/${dtype}/${m}x${n}k${k}/${kind}`, () => planZqr({ op, dtype, m, n, k, kind, sharedLimit: sharedLimit(dev) }));
}

/** One launch of the shared kernel over `count` matrices (geqrf writes info at `info`, by `index` where given). */
export function launchZshared(dev: GpuDevice, p: ZqrPlan, count: number, a: OperandArgs, tau: OperandArgs, info: bigint | null, index: DeviceArray | null): void {
  const params = p.params;
  const k = params.op === 'geqrf'
    ? kernelFor(dev, 'zqr-geqrf', params, () => zgeqrfSharedSource(params))
    : kernelFor(dev, 'zqr-orgqr', params, () => zorgqrSharedSource(params));
  k.launch({ grid: [Math.ceil(count / params.perBlock), 1, 1], block: [p.blockThreads, 1, 1], sharedBytes: p.sharedBytes }, [
    ...operandArgs(a), ...operandArgs(tau), ...(info === null ? [] : [arg.ptr(info)]), arg.ptr(index === null ? 0n : index.ptr), arg.i32(count),
  ]);
}

/** V (explicit) and Y = V T (or V T^H) of the r x ib reflectors at `a` (a view), tau at `tau`; one matrix every `strideW` pairs of v and y. */
export function zwyFactor(dev: GpuDevice, dtype: DType, nb: number, conjT: boolean, count: number, a: OperandArgs, tau: OperandArgs,
  v: DeviceArray, y: DeviceArray, strideW: number, r: number, ib: number): void {
  // One parameter object per (dtype, kind, nb, conjT) (plannedOnce), so a hot call finds its kernel by identity.
  const params = plannedOnce<ZwyParams>(dev, `zwy-factor/${dtype}/${a.kind}/${nb}/${conjT}`, () => ({ dtype, kind: a.kind, nb, conjT }));
  const k = kernelFor(dev, 'zwy-factor', params, () => zwySource(params));
  k.launch({ grid: [count, 1, 1], block: [ZWY_THREADS, 1, 1] }, [
    ...operandArgs(a), ...operandArgs(tau), arg.ptr(v.ptr), arg.ptr(y.ptr), arg.i64(strideW), arg.i32(count), arg.i32(r), arg.i32(ib),
  ]);
}

/** The rows x cols view `a` of each of `count` matrices := 0 off the diagonal, (diagonal, 0) on it. */
export function zlaset(dev: GpuDevice, dtype: DType, count: number, a: OperandArgs, diagonal: number): void {
  if (a.rows === 0 || a.cols === 0 || count === 0) return;
  // cachedKernel finds the kernel by its name: the parameters need no memo.
  const params: ZlasetParams = { dtype, kind: a.kind };
  const k = cachedKernel(dev, zlasetName(params), () => zlasetSource(params));
  k.launch({ grid: [count, 1, 1], block: [ZWY_THREADS, 1, 1] }, [
    ...operandArgs(a), arg.i32(count), arg.i32(a.rows), arg.i32(a.cols), arg.real(dtype, diagonal),
  ]);
}

/** Parts (reals) of workspace per matrix of the QR drivers: V and Y (m x nb pairs) and W (nb x n pairs). */
export const zqrWorkParts = (m: number, n: number, nb: number): number => 2 * (2 * m * nb + nb * n);

interface Spaces { readonly v: DeviceArray; readonly y: DeviceArray; readonly w: DeviceArray }

/** The chunk's workspace (parts) cut into V, Y (one matrix every vyPairs pairs) and W (every wPairs). */
function spaces(dev: GpuDevice, c: WyChunk, vyPairs: number, wPairs: number): Spaces {
  const vy = 2 * c.count * vyPairs;
  return { v: dev.view(c.work, 0, vy), y: dev.view(c.work, vy, vy), w: dev.view(c.work, 2 * vy, 2 * c.count * wPairs) };
}

/** This family's launches for the shared blocked drivers (common/householder-blocked.ts) on chunk `c` of plan `p`. */
function stepsOf(dev: GpuDevice, p: ZqrBlockedPlan, c: WyChunk): HouseholderSteps {
  const { dtype, m, n, nb } = p;
  const kind = c.operands[0]!.kind;
  const ws = spaces(dev, c, m * nb, nb * n);
  return {
    shared: (shape, a, tau, info) => launchZshared(dev, zsharedPlan(dev, { ...shape, dtype, kind }), c.count, a, tau, info, c.index),
    laset: (a, diagonal) => zlaset(dev, dtype, c.count, a, diagonal),
    applyLeft: (panel, taus, r, ib, adjoint, target, nc) => {
      zwyFactor(dev, dtype, nb, false, c.count, panel, taus, ws.v, ws.y, m * nb, r, ib);
      applyZwy(dev, {
        side: 'left', trans: adjoint ? 'C' : 'N',
        v: workBatch(ws.v, r, ib, c.count, m * nb), y: workBatch(ws.y, r, ib, c.count, m * nb),
        w: workBatch(ws.w, ib, nc, c.count, nb * n), c: target,
      });
    },
  };
}

/** The blocked zgeqrf of one chunk (operands A and tau), by plan `p`. */
export const zgeqrfBlocked = (dev: GpuDevice, p: ZqrBlockedPlan, c: WyChunk, info: DeviceArray): void =>
  householderGeqrfBlocked(p, c, info, stepsOf(dev, p, c));

/** The blocked zungqr of one chunk (operands A and tau), by plan `p`. */
export const zorgqrBlocked = (dev: GpuDevice, p: ZqrBlockedPlan, c: WyChunk): void => householderOrgqrBlocked(p, c, stepsOf(dev, p, c));

/** Parts of workspace per matrix of the blocked zunmqr: V and Y (order x nb pairs) and W (nb x nvec pairs). */
export const zormqrWorkParts = (order: number, nvec: number, nb: number): number => 2 * (2 * order * nb + nb * nvec);

/** zunmqr on one chunk (operands A, tau, C): blocks of nb reflectors in zunm2r's order, each applied by two complex GEMMs. */
export function zormqrBlocked(dev: GpuDevice, side: Side, trans: 'N' | 'C', dtype: DType, nb: number, ch: WyChunk): void {
  const [a, tau, c] = ch.operands as [WyChunk['operands'][0], WyChunk['operands'][0], WyChunk['operands'][0]];
  const left = side === 'left';
  const k = tau.rows;
  const [order, nvec] = left ? [c.rows, c.cols] : [c.cols, c.rows];
  const ws = spaces(dev, ch, order * nb, nb * nvec);
  const starts: number[] = [];
  for (let i = 0; i < k; i += nb) starts.push(i);
  if (!zforwardOrder({ side, trans })) starts.reverse();
  const conjT = zwyConjT(side, trans);
  for (const i of starts) {
    const ib = Math.min(nb, k - i);
    const rr = order - i;
    zwyFactor(dev, dtype, nb, conjT, ch.count, wyView(a, i, i, rr, ib).args, wyView(tau, i, 0, ib, 1).args, ws.v, ws.y, order * nb, rr, ib);
    applyZwy(dev, {
      side, trans,
      v: workBatch(ws.v, rr, ib, ch.count, order * nb), y: workBatch(ws.y, rr, ib, ch.count, order * nb),
      w: left ? workBatch(ws.w, ib, nvec, ch.count, nb * nvec) : workBatch(ws.w, nvec, ib, ch.count, nb * nvec),
      c: left ? wyView(c, i, 0, rr, nvec).batch : wyView(c, 0, i, nvec, rr).batch,
    });
  }
}
