/**
 * The host side the real and the complex Householder families share (qr/ and ormqr/, zqr/): their
 * kernels differ by element type, their launches only by which kernels and GEMMs they call, so a
 * family hands its own launches in (`HouseholderWy`, `HouseholderSharedKernel`) and this file says
 * in what order they run:
 *
 * - the shared-memory geqrf/orgqr kernel's plan (memoised per device) and launch;
 * - `runHouseholder`: a geqrf or orgqr request, the groups of equal sizes the shared kernel serves
 *   (common/operands.ts grouping), then the matrices the design sends to the blocked driver, chunk by
 *   chunk (wy-launch.ts `eachWyChunk`; one strided batch all on one design takes only its path);
 * - the blocked drivers' steps on a chunk (householder-blocked.ts's drivers over V, Y and W cut from
 *   the chunk's workspace);
 * - `runHouseholderOrmqr`: an ormqr request, the one-reflector-at-a-time kernel's groups first, then
 *   the blocked driver (LAPACK's dormqr/zunmqr: blocks of nb reflectors in dorm2r's order, each
 *   block's V and Y = V op(T) and its application to C(i:m, :) (left) or C(:, i:n) (right) by two
 *   GEMMs); the block width is checked before the first launch.
 *
 * Workspace counts the device array's reals: a complex family's elements are `parts` = 2 of them.
 */
import { batchCount, matrixAt, shapeAt, type Batch } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import type { Side } from '../../../core/enums.js';
import { MyriadError } from '../../../core/errors.js';
import { arg, type DeviceArray, type GpuDevice, type KernelSource } from '../../runtime/types.js';
import { householderGeqrfBlocked, householderOrgqrBlocked, type HouseholderSteps } from './householder-blocked.js';
import {
  householderApplyMatrices, type HouseholderApplyShape, type HouseholderBlockedPlan, type HouseholderDesign, type HouseholderPlan, type HouseholderProblem,
  type HouseholderShape, type HouseholderSharedParams,
} from './householder-plan.js';
import { kernelFor, plannedOnce } from './kernel-cache.js';
import { deviceDtype, groupOperands, operandArgs, release, sharedLimit, type LaunchGroup, type OperandArgs } from './operands.js';
import { eachWyChunk, workBatch, wyView, WY_WORKSPACE_BYTES, type WyChunk } from './wy-launch.js';

/** A family's shared-memory geqrf/orgqr kernel as the launches see it. */
export interface HouseholderSharedKernel {
  /** The family's name in the memo keys: plans under `<name>/...`, kernels `<name>-geqrf` and `<name>-orgqr`. */
  readonly name: string;
  readonly plan: (pr: HouseholderProblem) => HouseholderPlan;
  readonly geqrfSource: (p: HouseholderSharedParams) => KernelSource;
  readonly orgqrSource: (p: HouseholderSharedParams) => KernelSource;
}

/** One block-reflector application, as a family's `apply` takes it (every batch of the chunk's count). */
export interface HouseholderApply<Adjoint extends string> {
  readonly side: Side;
  /** H = I - V T V^* ('N') or its adjoint (the family's 'T' or 'C'). */
  readonly trans: 'N' | Adjoint;
  /** V (r x ib), explicit. */
  readonly v: Batch<DeviceArray>;
  /** Y = V T, or V T^* where `transT` says so (C H on the right). */
  readonly y: Batch<DeviceArray>;
  /** Workspace W: ib x (C's columns) on the left, (C's rows) x ib on the right. */
  readonly w: Batch<DeviceArray>;
  readonly c: Batch<DeviceArray>;
}

/** A family's compact-WY launches: the factor kernel, the application by its GEMMs, laset. */
export interface HouseholderWy<Adjoint extends string> {
  /** Reals per element (1 real, 2 complex). */
  readonly parts: number;
  /** The adjoint's letter: 'T' (real), 'C' (complex). */
  readonly adjoint: Adjoint;
  /** V (explicit) and Y = V T (or V T^* where `transT`) of the r x ib reflectors at `a`, tau at `tau`; a matrix every `strideW` elements of v and y. */
  readonly factor: (dev: GpuDevice, dtype: DType, nb: number, transT: boolean, count: number, a: OperandArgs, tau: OperandArgs,
    v: DeviceArray, y: DeviceArray, strideW: number, r: number, ib: number) => void;
  readonly apply: (dev: GpuDevice, x: HouseholderApply<Adjoint>) => void;
  /** The rows x cols view `a` of each of `count` matrices := 0 off the diagonal, `diagonal` on it. */
  readonly laset: (dev: GpuDevice, dtype: DType, count: number, a: OperandArgs, diagonal: number) => void;
  /** Whether an application's Y is V T^* (`transT` of the factor). */
  readonly transT: (side: Side, trans: 'N' | Adjoint) => boolean;
}

/** A family's launches, as the drivers here call them. */
export interface HouseholderFamily<Adjoint extends string> {
  readonly shared: HouseholderSharedKernel;
  readonly wy: HouseholderWy<Adjoint>;
}

/** The shared-memory kernel's plan for a tile (memoised per device). */
export function householderSharedPlan(dev: GpuDevice, kernel: HouseholderSharedKernel, shape: HouseholderShape): HouseholderPlan {
  const { op, dtype, m, n, k, kind } = shape;
  return plannedOnce(dev, `${kernel.name}/${op}/${dtype}/${m}x${n}k${k}/${kind}`, () => kernel.plan({ op, dtype, m, n, k, kind, sharedLimit: sharedLimit(dev) }));
}

/** One launch of the shared-memory kernel over `count` matrices (geqrf writes info at `info`, by `index` where given). */
export function launchHouseholderShared(dev: GpuDevice, kernel: HouseholderSharedKernel, p: HouseholderPlan, count: number, a: OperandArgs, tau: OperandArgs,
  info: bigint | null, index: DeviceArray | null): void {
  const params = p.params;
  const k = params.op === 'geqrf'
    ? kernelFor(dev, `${kernel.name}-geqrf`, params, () => kernel.geqrfSource(params))
    : kernelFor(dev, `${kernel.name}-orgqr`, params, () => kernel.orgqrSource(params));
  k.launch({ grid: [Math.ceil(count / params.perBlock), 1, 1], block: [p.blockThreads, 1, 1], sharedBytes: p.sharedBytes }, [
    ...operandArgs(a), ...operandArgs(tau), ...(info === null ? [] : [arg.ptr(info)]), arg.ptr(index === null ? 0n : index.ptr), arg.i32(count),
  ]);
}

/** Reals of workspace per matrix of the blocked geqrf and orgqr: V and Y (m x nb) and W (nb x n), `parts` reals an element. */
export const householderWorkParts = (parts: number, m: number, n: number, nb: number): number => parts * (2 * m * nb + nb * n);

interface Spaces { readonly v: DeviceArray; readonly y: DeviceArray; readonly w: DeviceArray }

/** The chunk's workspace cut into V, Y (one matrix every `vy` elements) and W (every `w`). */
function spaces(dev: GpuDevice, parts: number, c: WyChunk, vy: number, w: number): Spaces {
  const vyAll = parts * c.count * vy;
  return { v: dev.view(c.work, 0, vyAll), y: dev.view(c.work, vyAll, vyAll), w: dev.view(c.work, 2 * vyAll, parts * c.count * w) };
}

/** A family's launches for the blocked drivers (householder-blocked.ts) on chunk `c` of plan `p`. */
function blockedSteps<A extends string>(dev: GpuDevice, family: HouseholderFamily<A>, p: HouseholderBlockedPlan, c: WyChunk): HouseholderSteps {
  const { dtype, m, n, nb } = p;
  const { shared, wy } = family;
  const kind = c.operands[0]!.kind;
  const ws = spaces(dev, wy.parts, c, m * nb, nb * n);
  return {
    shared: (shape, a, tau, info) => launchHouseholderShared(dev, shared, householderSharedPlan(dev, shared, { ...shape, dtype, kind }), c.count, a, tau, info, c.index),
    laset: (a, diagonal) => wy.laset(dev, dtype, c.count, a, diagonal),
    applyLeft: (panel, taus, r, ib, adjoint, target, nc) => {
      wy.factor(dev, dtype, nb, false, c.count, panel, taus, ws.v, ws.y, m * nb, r, ib);
      wy.apply(dev, {
        side: 'left', trans: adjoint ? wy.adjoint : 'N',
        v: workBatch(ws.v, r, ib, c.count, m * nb), y: workBatch(ws.y, r, ib, c.count, m * nb),
        w: workBatch(ws.w, ib, nc, c.count, nb * n), c: target,
      });
    },
  };
}

/** A geqrf or orgqr request on the device (the parts' dtype for complex data; tau's rows are orgqr's reflectors). */
export interface HouseholderRequest { readonly a: Batch<DeviceArray>; readonly tau: Batch<DeviceArray> }

/** A design of a family's own beside the shared kernel and the blocked driver (the real QR's per-thread kernel). */
export interface HouseholderOwnDesign { readonly design: string }

/** What `runHouseholder` asks of its caller beyond the family's launches (`O`: the family's own designs, if any). */
export interface HouseholderRun<O extends HouseholderOwnDesign = never> {
  readonly op: HouseholderShape['op'];
  /** The design of a group (the family's planner, memoised as the family chooses). */
  readonly design: (shape: HouseholderShape) => HouseholderDesign | O;
  /** Launches a group whose design is the family's own (neither 'shared' nor 'blocked'). */
  readonly own?: (d: O, g: LaunchGroup, a: OperandArgs, tau: OperandArgs, shape: HouseholderShape) => void;
  /** geqrf's info; null for orgqr. */
  readonly info: DeviceArray | null;
  /** Takes the groups with nothing to compute (true: done). */
  readonly trivial: (g: LaunchGroup, a: OperandArgs) => boolean;
  /** Bytes one group's blocked workspace may take (absent: wy-launch.ts's default). */
  readonly budgetBytes?: number;
  /** Bytes of one element (absent: the batch's dtype's), for the grouping and the chunks' pointer forms. */
  readonly elementBytes?: number;
}

/** The shape of matrix i of a request (tau's rows are its reflectors; geqrf's are min(m, n)). */
function shapeOf(r: HouseholderRequest, op: HouseholderShape['op'], dtype: DType, i: number): HouseholderShape {
  const { rows: m, cols: n } = shapeAt(r.a, i);
  const k = op === 'geqrf' ? Math.min(m, n) : shapeAt(r.tau, i).rows;
  return { op, dtype, m, n, k, kind: r.a.kind === 'strided' && r.tau.kind === 'strided' ? 'strided' : 'pointer' };
}

const isShared = (d: HouseholderOwnDesign): d is HouseholderDesign & { readonly design: 'shared' } => d.design === 'shared';
const isBlocked = (d: HouseholderOwnDesign): d is HouseholderBlockedPlan => d.design === 'blocked';

/**
 * geqrf or orgqr: the groups of the shared kernel (or of the family's own designs) of a request,
 * then its blocked matrices through the blocked driver per chunk.
 */
export function runHouseholder<A extends string, O extends HouseholderOwnDesign = never>(dev: GpuDevice, family: HouseholderFamily<A>, r: HouseholderRequest,
  x: HouseholderRun<O>): void {
  if (batchCount(r.a) === 0) return;
  const { op, info } = x;
  const dtype = deviceDtype(r.a);
  const designAt = (i: number): HouseholderDesign | O => x.design(shapeOf(r, op, dtype, i));
  const strided = r.a.kind === 'strided' && r.tau.kind === 'strided';
  const blockedAt = (i: number): boolean => {
    const s = shapeOf(r, op, dtype, i);
    return s.m > 0 && s.n > 0 && (op === 'orgqr' || s.k > 0) && isBlocked(designAt(i));
  };
  const allBlocked = strided && blockedAt(0);
  if (!allBlocked) {
    const grouping = groupOperands(dev, [r.a, r.tau], x.elementBytes);
    try {
      for (const g of grouping.groups) {
        const [a, tau] = g.operands as [OperandArgs, OperandArgs];
        if (x.trivial(g, a)) continue;
        const shape: HouseholderShape = { op, dtype, m: a.rows, n: a.cols, k: op === 'geqrf' ? Math.min(a.rows, a.cols) : tau.rows, kind: a.kind };
        const d = x.design(shape);
        if (isBlocked(d)) continue;
        if (isShared(d)) launchHouseholderShared(dev, family.shared, d, g.count, a, tau, info === null ? null : info.ptr, g.index);
        else if (x.own !== undefined) x.own(d as O, g, a, tau, shape);
        else throw new Error(`unreachable: design ${d.design} without a launch`);
      }
    } finally {
      release(dev, grouping);
    }
  }
  if (strided && !allBlocked) return;
  const perMatrix = (i: number): number => { const d = designAt(i); return isBlocked(d) ? householderWorkParts(family.wy.parts, d.m, d.n, d.nb) : 0; };
  eachWyChunk(dev, dtype, [r.a, r.tau], perMatrix, (c) => {
    const s = c.operands[0]!;
    const d = x.design({ op, dtype, m: s.rows, n: s.cols, k: op === 'geqrf' ? Math.min(s.rows, s.cols) : c.operands[1]!.rows, kind: s.kind });
    if (!isBlocked(d)) throw new Error('unreachable: a blocked group planned otherwise');
    const steps = blockedSteps(dev, family, d, c);
    if (op === 'geqrf') householderGeqrfBlocked(d, c, info!, steps); else householderOrgqrBlocked(d, c, steps);
  }, blockedAt, x.budgetBytes ?? WY_WORKSPACE_BYTES, x.elementBytes);
}

/** An ormqr request on the device (A and tau only read, C in place). */
export interface HouseholderOrmqrRequest<A extends string> {
  readonly side: Side;
  readonly trans: 'N' | A;
  readonly a: Batch<DeviceArray>;
  readonly tau: Batch<DeviceArray>;
  readonly c: Batch<DeviceArray>;
}

/** An ormqr kernel's problem: one group of equal sizes. */
export interface HouseholderOrmqrProblem<A extends string> {
  readonly dtype: DType;
  readonly side: Side;
  readonly trans: 'N' | A;
  readonly kind: OperandArgs['kind'];
  /** Order of Q (C's rows on the left, its columns on the right). */
  readonly r: number;
  readonly k: number;
  /** Vectors of C Q acts on (C's columns on the left, its rows on the right). */
  readonly nvec: number;
  readonly sharedLimit: number;
}

/** A family's one-reflector-at-a-time ormqr kernel (dorm2r's, zunm2r's) as its launches see it. */
export interface HouseholderOrmqrKernel<A extends string, P extends object> {
  /** The family's name in memo keys: plans under `<name>/...`. */
  readonly name: string;
  /** The kernel's name in the kernel memo. */
  readonly kernelName: string;
  readonly plan: (pr: HouseholderOrmqrProblem<A>) => { readonly params: P; readonly shape: HouseholderApplyShape };
  readonly source: (p: P) => KernelSource;
}

/** What `runHouseholderOrmqr` asks of its caller beyond the family's launches. */
export interface HouseholderOrmqrRun<A extends string, P extends object> {
  readonly kernel: HouseholderOrmqrKernel<A, P>;
  /** Whether the plan is forced (not memoised). */
  readonly forced: boolean;
  /** Whether a group of Q's order `order`, k reflectors and nvec vectors takes the blocked driver. */
  readonly blocked: (dtype: DType, order: number, k: number, nvec: number, limit: number) => boolean;
  /** Whether the blocks run from the first (dorm2r's order: the family's ormqr generator's rule). */
  readonly forward: (p: { readonly side: Side; readonly trans: 'N' | A }) => boolean;
  /** The blocked driver's block width, and the widest the family's WY kernel takes. */
  readonly nb: (dtype: DType) => number;
  readonly nbMax: number;
  /** The operation's name in the error of a bad width ('ormqr', 'zunmqr'). */
  readonly label: string;
  readonly budgetBytes?: number;
  readonly elementBytes?: number;
}

/** Order of Q and the vectors it acts on (C's rows and columns on the left, columns and rows on the right). */
export const householderOrder = (side: Side, rows: number, cols: number): [number, number] => (side === 'left' ? [rows, cols] : [cols, rows]);

/**
 * ormqr: the one-reflector-at-a-time kernel's groups, then the blocked matrices chunk by chunk. A
 * strided request all on one design takes only its path; the block width is checked first, so a bad
 * one launches nothing.
 */
export function runHouseholderOrmqr<A extends string, P extends object>(dev: GpuDevice, family: HouseholderFamily<A>, r: HouseholderOrmqrRequest<A>,
  x: HouseholderOrmqrRun<A, P>): void {
  const count = batchCount(r.c);
  if (count === 0) return;
  const dtype = deviceDtype(r.c);
  const limit = sharedLimit(dev);
  const nb = x.nb(dtype);
  if (!Number.isInteger(nb) || nb < 1 || nb > x.nbMax) throw new MyriadError('UNSUPPORTED', `${x.label}'s block must be 1..${x.nbMax} reflectors, got ${nb}`, 'force.panel');
  const blockedAt = (i: number): boolean => {
    const c = matrixAt(r.c, i);
    const k = matrixAt(r.tau, i).rows;
    const [order, nvec] = householderOrder(r.side, c.rows, c.cols);
    return k > 0 && nvec > 0 && x.blocked(dtype, order, k, nvec, limit);
  };
  const strided = r.a.kind === 'strided' && r.tau.kind === 'strided' && r.c.kind === 'strided';
  const allBlocked = strided && blockedAt(0);
  if (!allBlocked) ormqrShared(dev, r, dtype, limit, x);
  if (strided && !allBlocked) return;
  const perMatrix = (i: number): number => {
    const c = matrixAt(r.c, i);
    const [order, nvec] = householderOrder(r.side, c.rows, c.cols);
    return family.wy.parts * (2 * order * nb + nb * nvec);
  };
  eachWyChunk(dev, dtype, [r.a, r.tau, r.c], perMatrix, (c) => ormqrBlocked(dev, family.wy, x.forward(r), r.side, r.trans, dtype, nb, c), blockedAt,
    x.budgetBytes ?? WY_WORKSPACE_BYTES, x.elementBytes);
}

/** The groups the one-reflector-at-a-time kernel serves (the blocked ones skipped). */
function ormqrShared<A extends string, P extends object>(dev: GpuDevice, r: HouseholderOrmqrRequest<A>, dtype: DType, limit: number, x: HouseholderOrmqrRun<A, P>): void {
  const grouping = groupOperands(dev, [r.a, r.tau, r.c], x.elementBytes);
  try {
    for (const g of grouping.groups) {
      const [a, tau, c] = g.operands as [OperandArgs, OperandArgs, OperandArgs];
      const k = tau.rows;
      const [order, nvec] = householderOrder(r.side, c.rows, c.cols);
      if (k === 0 || nvec === 0 || x.blocked(dtype, order, k, nvec, limit)) continue;
      const problem: HouseholderOrmqrProblem<A> = { dtype, side: r.side, trans: r.trans, kind: a.kind, r: order, k, nvec, sharedLimit: limit };
      const planNow = () => x.kernel.plan(problem);
      const plan = x.forced ? planNow() : plannedOnce(dev, `${x.kernel.name}/${dtype}/${r.side}/${r.trans}/${a.kind}/${order}/${k}/${nvec}`, planNow);
      const p = plan.params;
      const kernel = kernelFor(dev, x.kernel.kernelName, p, () => x.kernel.source(p));
      const matrices = householderApplyMatrices(plan.shape, g.count);
      kernel.launch(
        { grid: [Math.ceil(g.count / matrices), 1, 1], block: [plan.shape.threads, matrices, 1], sharedBytes: matrices * plan.shape.bytesPerMatrix },
        [...operandArgs(a), ...operandArgs(tau), ...operandArgs(c), arg.i32(g.count), arg.i32(order), arg.i32(k), arg.i32(nvec), arg.i32(plan.shape.ldt)],
      );
    }
  } finally {
    release(dev, grouping);
  }
}

/** ormqr on one chunk (operands A, tau, C): blocks of nb reflectors in dorm2r's order, each applied by the family's two GEMMs. */
function ormqrBlocked<A extends string>(dev: GpuDevice, wy: HouseholderWy<A>, forward: boolean, side: Side, trans: 'N' | A, dtype: DType, nb: number, ch: WyChunk): void {
  const [a, tau, c] = ch.operands as [WyChunk['operands'][0], WyChunk['operands'][0], WyChunk['operands'][0]];
  const left = side === 'left';
  const k = tau.rows;
  const [order, nvec] = householderOrder(side, c.rows, c.cols);
  const ws = spaces(dev, wy.parts, ch, order * nb, nb * nvec);
  const starts: number[] = [];
  for (let i = 0; i < k; i += nb) starts.push(i);
  if (!forward) starts.reverse();
  const transT = wy.transT(side, trans);
  for (const i of starts) {
    const ib = Math.min(nb, k - i);
    const rr = order - i;
    wy.factor(dev, dtype, nb, transT, ch.count, wyView(a, i, i, rr, ib).args, wyView(tau, i, 0, ib, 1).args, ws.v, ws.y, order * nb, rr, ib);
    wy.apply(dev, {
      side, trans,
      v: workBatch(ws.v, rr, ib, ch.count, order * nb), y: workBatch(ws.y, rr, ib, ch.count, order * nb),
      w: left ? workBatch(ws.w, ib, nvec, ch.count, nb * nvec) : workBatch(ws.w, nvec, ib, ch.count, nb * nvec),
      c: left ? wyView(c, i, 0, rr, nvec).batch : wyView(c, 0, i, nvec, rr).batch,
    });
  }
}
