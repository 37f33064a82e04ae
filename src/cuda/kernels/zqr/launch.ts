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
import { batchCount, batchElementType, shapeAt, uniformShape, type Batch } from '../../../core/batch.js';
import { complexInfo, isComplexDType } from '../../../core/dtype-table.js';
import type { DType } from '../../../core/dtype.js';
import type { ComplexOrmqrRequest, GeqrfRequest, OrgqrRequest } from '../../../core/op-specs.js';
import type { Storage } from '../../../core/storage.js';
import type { DeviceArray, GpuDevice } from '../../runtime/types.js';
import { complexBytes } from '../common/complex.js';
import { runHouseholder, runHouseholderOrmqr, type HouseholderOrmqrKernel } from '../common/householder-launch.js';
import { zeroInfo } from '../common/info-zero.js';
import { plannedOnce } from '../common/kernel-cache.js';
import { deviceDtype, sharedLimit, type LaunchGroup, type OperandArgs } from '../common/operands.js';
import { zforwardOrder, zormqrSource } from './generate-ormqr.js';
import { ZQR_FAMILY } from './launch-blocked.js';
import type { ZormqrForce, ZormqrParams, ZqrDesign, ZqrForce, ZqrShape } from './params.js';
import { planZormqr, planZqrDesign, ZQR_PANEL, zormqrBlocked as takesBlocked, zqrBlockedFits, zqrFits, type ZqrProblem } from './plan.js';
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

/** The shared-kernel groups of a request, then its blocked matrices through the blocked driver (common/householder-launch.ts). */
function run(dev: GpuDevice, r: OrgqrRequest<DeviceArray>, op: ZqrShape['op'], opts: ZqrOptions, info: DeviceArray | null,
  trivial: (g: LaunchGroup, a: OperandArgs) => boolean): void {
  if (batchCount(r.a) === 0) return;
  runHouseholder(dev, ZQR_FAMILY, r, {
    op, design: (shape) => design(dev, shape, opts), info, trivial, budgetBytes: opts.budgetBytes, elementBytes: complexBytes(deviceDtype(r.a)),
  });
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

/** zunm2r's kernel as common/householder-launch.ts launches it. */
const ORMQR_KERNEL: HouseholderOrmqrKernel<'C', ZormqrParams> = { name: 'zormqr', kernelName: 'zormqr', plan: (pr) => planZormqr(pr), source: zormqrSource };

/** zunmqr / cunmqr: C := op(Q) C or C op(Q) in place (A and tau only read). */
export function complexOrmqrCuda(dev: GpuDevice, r: ComplexOrmqrRequest<DeviceArray>, opts: ZormqrOptions = {}): void {
  if (batchCount(r.c) === 0) return;
  const force = opts.force;
  runHouseholderOrmqr(dev, ZQR_FAMILY, r, {
    kernel: force === undefined ? ORMQR_KERNEL : { ...ORMQR_KERNEL, plan: (pr) => planZormqr(pr, force) },
    forced: force !== undefined,
    blocked: (dtype, order, k, nvec, limit) => takesBlocked(dtype, order, k, nvec, limit, force),
    forward: zforwardOrder,
    nb: () => force?.panel ?? ZQR_PANEL,
    nbMax: ZWY_NB_MAX,
    label: 'zunmqr',
    budgetBytes: opts.budgetBytes,
    elementBytes: complexBytes(deviceDtype(r.c)),
  });
}
