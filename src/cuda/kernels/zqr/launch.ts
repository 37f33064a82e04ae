/**
 * complexGeqrfCuda, complexOrgqrCuda and complexOrmqrCuda: the batched complex Householder QR
 * (zgeqrf, zungqr, zunmqr and their complex64 forms) of device batches over (re, im) pairs. The
 * device arrays hold the parts' dtype; rows, ld, strides and offsets count pairs.
 *
 * Each group of equally sized matrices gets a design from plan.ts: one shared-memory kernel per
 * matrix (grouped as common/operands.ts groups: strided batches in one launch, list and variable
 * batches by size and leading dimension with pointer arrays), or the blocked compact-WY driver
 * (launch-blocked.ts; chunks and workspace by common/wy-launch.ts). `zqrCovers` and
 * `zormqrCovers` tell the router which requests these kernels take.
 */
import { batchCount, batchElementType, matrixAt, shapeAt, uniformShape, type Batch } from '../../../core/batch.js';
import { complexInfo, isComplexDType } from '../../../core/dtype-table.js';
import type { DType } from '../../../core/dtype.js';
import type { ComplexOrmqrRequest, GeqrfRequest, OrgqrRequest } from '../../../core/op-specs.js';
import type { Storage } from '../../../core/storage.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { complexBytes } from '../common/complex.js';
import { zeroInfo } from '../common/info-zero.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { deviceDtype, groupOperands, operandArgs, release, sharedLimit, type LaunchGroup, type OperandArgs } from '../common/operands.js';
import { eachWyChunk, WY_WORKSPACE_BYTES } from '../common/wy-launch.js';
import { zormqrSource } from './generate-ormqr.js';
import { launchZshared, zgeqrfBlocked, zorgqrBlocked, zormqrBlocked, zormqrWorkParts, zqrWorkParts } from './launch-blocked.js';
import type { ZormqrForce, ZormqrPlan, ZqrDesign, ZqrForce, ZqrShape } from './params.js';
import { planZormqr, planZqrDesign, ZQR_PANEL, zormqrBlockMatrices, zormqrBlocked as takesBlocked, zqrBlockedFits, zqrFits, type ZqrProblem } from './plan.js';
import { ZWY_NB_MAX } from './generate-wy.js';
import { MyriadError } from '../../../core/errors.js';

export interface ZqrOptions {
  readonly force?: ZqrForce;
  /** Bytes one group's blocked workspace may take (tests lower it to see chunks). */
  readonly budgetBytes?: number;
}

export interface ZormqrOptions {
  readonly force?: ZormqrForce;
  readonly budgetBytes?: number;
}

/**
 * Whether the complex QR kernels take every matrix of `a` on `dev` (the m x n tile in shared memory
 * or the blocked driver's narrowest panel; orgqr has k <= n reflectors, so one check serves both).
 * The backend asks before it stages host arrays, so host batches come here too.
 */
export function zqrCovers(a: Batch<Storage>, dev: GpuDevice): boolean {
  const dtype = partsOf(a, 'a');
  const limit = sharedLimit(dev);
  const fits = ({ rows: m, cols: n }: { rows: number; cols: number }): boolean => {
    const pr: ZqrProblem = { op: 'geqrf', dtype, m, n, k: Math.min(m, n), kind: 'strided', sharedLimit: limit };
    return zqrFits(pr) || zqrBlockedFits(pr);
  };
  const uniform = uniformShape(a);
  if (uniform !== undefined) return fits(uniform);
  for (let i = 0; i < batchCount(a); i++) if (!fits(shapeAt(a, i))) return false;
  return true;
}

/** zunmqr takes every size (the shared kernel where its reflectors fit, the blocked driver elsewhere). */
export function zormqrCovers(r: Pick<ComplexOrmqrRequest<Storage>, 'c'>): boolean {
  partsOf(r.c, 'c');
  return true;
}

/** The parts' dtype of a complex batch (float64 for complex128, float32 for complex64); a real batch is a DTYPE error. */
function partsOf(b: Batch<Storage>, argument: string): DType {
  const t = batchElementType(b, argument);
  if (!isComplexDType(t)) throw new MyriadError('DTYPE', `is ${t}, where a complex batch (complex128 or complex64) is expected`, argument);
  return complexInfo(t).real;
}

function design(dev: GpuDevice, shape: ZqrShape, opts: ZqrOptions): ZqrDesign {
  const pr: ZqrProblem = { ...shape, sharedLimit: sharedLimit(dev) };
  const planNow = (): ZqrDesign => planZqrDesign(pr, { force: opts.force });
  return opts.force === undefined
    ? plannedOnce(dev, `zqr-design/${shape.op}/${shape.dtype}/${shape.m}x${shape.n}k${shape.k}/${shape.kind}`, planNow)
    : planNow();
}

function shapeOf(r: OrgqrRequest<DeviceArray>, op: ZqrShape['op'], dtype: DType, i: number): ZqrShape {
  const { rows: m, cols: n } = shapeAt(r.a, i);
  const k = op === 'geqrf' ? Math.min(m, n) : shapeAt(r.tau, i).rows;
  return { op, dtype, m, n, k, kind: r.a.kind === 'strided' && r.tau.kind === 'strided' ? 'strided' : 'pointer' };
}

/** The shared-kernel groups of a request, then its blocked matrices through the blocked driver per chunk. */
function run(dev: GpuDevice, r: OrgqrRequest<DeviceArray>, op: ZqrShape['op'], opts: ZqrOptions, info: DeviceArray | null,
  trivial: (g: LaunchGroup, a: OperandArgs) => boolean): void {
  if (batchCount(r.a) === 0) return;
  const dtype = deviceDtype(r.a);
  const bytes = complexBytes(dtype);
  const designAt = (i: number): ZqrDesign => design(dev, shapeOf(r, op, dtype, i), opts);
  const strided = r.a.kind === 'strided' && r.tau.kind === 'strided';
  const isBlocked = (i: number): boolean => {
    const s = shapeOf(r, op, dtype, i);
    return s.m > 0 && s.n > 0 && (op === 'orgqr' || s.k > 0) && designAt(i).design === 'blocked';
  };
  const allBlocked = strided && isBlocked(0);
  if (!allBlocked) {
    const grouping = groupOperands(dev, [r.a, r.tau], bytes);
    try {
      for (const g of grouping.groups) {
        const [a, tau] = g.operands as [OperandArgs, OperandArgs];
        if (trivial(g, a)) continue;
        const d = design(dev, { op, dtype, m: a.rows, n: a.cols, k: op === 'geqrf' ? Math.min(a.rows, a.cols) : tau.rows, kind: a.kind }, opts);
        if (d.design !== 'shared') continue;
        launchZshared(dev, d, g.count, a, tau, info === null ? null : info.ptr, g.index);
      }
    } finally {
      release(dev, grouping);
    }
  }
  if (strided && !allBlocked) return;
  const perMatrix = (i: number): number => { const d = designAt(i); return d.design === 'blocked' ? zqrWorkParts(d.m, d.n, d.nb) : 0; };
  eachWyChunk(dev, dtype, [r.a, r.tau], perMatrix, (c) => {
    const s = c.operands[0]!;
    const d = design(dev, { op, dtype, m: s.rows, n: s.cols, k: op === 'geqrf' ? Math.min(s.rows, s.cols) : c.operands[1]!.rows, kind: s.kind }, opts);
    if (d.design !== 'blocked') throw new Error('unreachable: a blocked group planned shared');
    if (op === 'geqrf') zgeqrfBlocked(dev, d, c, info!); else zorgqrBlocked(dev, d, c);
  }, isBlocked, opts.budgetBytes ?? WY_WORKSPACE_BYTES, bytes);
}

/** zgeqrf / cgeqrf: A = Q R in place, tau (min(m, n) pairs per matrix), info 0. */
export function complexGeqrfCuda(dev: GpuDevice, r: GeqrfRequest<DeviceArray, DeviceArray>, opts: ZqrOptions = {}): void {
  run(dev, r, 'geqrf', opts, r.info, (g, a) => {
    if (Math.min(a.rows, a.cols) > 0) return false;
    zeroInfo(dev, r.info, g.index, g.count);
    return true;
  });
}

/** zungqr / cungqr: the first n columns of Q over A (m >= n >= k). */
export function complexOrgqrCuda(dev: GpuDevice, r: OrgqrRequest<DeviceArray>, opts: ZqrOptions = {}): void {
  run(dev, r, 'orgqr', opts, null, (_g, a) => a.rows === 0 || a.cols === 0);
}

/** Order of Q and the vectors it acts on (C's rows and columns on the left, columns and rows on the right). */
const orderOf = (side: ComplexOrmqrRequest['side'], rows: number, cols: number): [number, number] => (side === 'left' ? [rows, cols] : [cols, rows]);

/** zunmqr / cunmqr: C := op(Q) C or C op(Q) in place (A and tau only read). */
export function complexOrmqrCuda(dev: GpuDevice, r: ComplexOrmqrRequest<DeviceArray>, opts: ZormqrOptions = {}): void {
  const count = batchCount(r.c);
  if (count === 0) return;
  const dtype = deviceDtype(r.c);
  const bytes = complexBytes(dtype);
  const limit = sharedLimit(dev);
  const blockedAt = (i: number): boolean => {
    const c = matrixAt(r.c, i);
    const k = matrixAt(r.tau, i).rows;
    const [order, nvec] = orderOf(r.side, c.rows, c.cols);
    return k > 0 && nvec > 0 && takesBlocked(dtype, order, k, nvec, limit, opts.force);
  };
  const strided = r.a.kind === 'strided' && r.tau.kind === 'strided' && r.c.kind === 'strided';
  const allBlocked = strided && blockedAt(0);
  if (!allBlocked) sharedOrmqr(dev, r, dtype, opts, limit);
  if (strided && !allBlocked) return;
  const nb = opts.force?.panel ?? ZQR_PANEL;
  if (!Number.isInteger(nb) || nb < 1 || nb > ZWY_NB_MAX) throw new MyriadError('UNSUPPORTED', `zunmqr's block must be 1..${ZWY_NB_MAX} reflectors, got ${nb}`, 'force.panel');
  const perMatrix = (i: number): number => {
    const c = matrixAt(r.c, i);
    const [order, nvec] = orderOf(r.side, c.rows, c.cols);
    return zormqrWorkParts(order, nvec, nb);
  };
  eachWyChunk(dev, dtype, [r.a, r.tau, r.c], perMatrix, (c) => zormqrBlocked(dev, r.side, r.trans, dtype, nb, c), blockedAt,
    opts.budgetBytes ?? WY_WORKSPACE_BYTES, bytes);
}

/** The groups the shared zunm2r kernel serves (the blocked ones skipped). */
function sharedOrmqr(dev: GpuDevice, r: ComplexOrmqrRequest<DeviceArray>, dtype: DType, opts: ZormqrOptions, limit: number): void {
  const grouping = groupOperands(dev, [r.a, r.tau, r.c], complexBytes(dtype));
  try {
    for (const g of grouping.groups) {
      const [a, tau, c] = g.operands as [OperandArgs, OperandArgs, OperandArgs];
      const k = tau.rows;
      const [order, nvec] = orderOf(r.side, c.rows, c.cols);
      if (k === 0 || nvec === 0 || takesBlocked(dtype, order, k, nvec, limit, opts.force)) continue;
      const problem = { dtype, side: r.side, trans: r.trans, kind: a.kind, r: order, k, nvec, sharedLimit: limit };
      const planNow = (): ZormqrPlan => planZormqr(problem, opts.force);
      const plan = opts.force === undefined
        ? plannedOnce(dev, `zormqr/${dtype}/${r.side}/${r.trans}/${a.kind}/${order}/${k}/${nvec}`, planNow)
        : planNow();
      const p = plan.params;
      const kernel = kernelFor(dev, 'zormqr', p, () => zormqrSource(p));
      const matrices = zormqrBlockMatrices(plan.shape, g.count);
      kernel.launch(
        { grid: [Math.ceil(g.count / matrices), 1, 1], block: [plan.shape.threads, matrices, 1], sharedBytes: matrices * plan.shape.bytesPerMatrix },
        [...operandArgs(a), ...operandArgs(tau), ...operandArgs(c), arg.i32(g.count), arg.i32(order), arg.i32(k), arg.i32(nvec), arg.i32(plan.shape.ldt)],
      );
    }
  } finally {
    release(dev, grouping);
  }
}
