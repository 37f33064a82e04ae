/**
 * tsqrCuda: Q R of one or a few tall-and-skinny device matrices (m >= n, n <= 32), Q over A,
 * R (n x n, upper triangular, positive diagonal) into r, per-matrix info on the device.
 *
 * The passes (grid-wide kernels, all on the device's stream):
 *   1. Gram of A                  (reads A)  -> reduce -> chol stage 1: R1, route
 *   --- one host sync: the routes (whether any matrix needs stage 3) ---
 *   2. Gram of A R1^{-1}          (reads A)  -> reduce -> chol stage 2: R2 (R = R2 R1)
 *   3. Gram of A R1^{-1} R2^{-1}  (reads A, shifted route only) -> reduce -> chol stage 3: R3 (R = R3 R2 R1)
 *   4. Q = A R1^{-1} R2^{-1} (R3^{-1})  (reads A, writes Q over it)
 * So CholeskyQR2 moves 4 m n elements (3 reads, 1 write) and shifted CholeskyQR3 5 m n
 * (plan.ts `tsqrBytes`), against 6 m n for CholeskyQR2 with Q1 written out. The Gram partials
 * (blocks x n x n per matrix) and the factors live in a workspace allocated per call.
 *
 * Route: CholeskyQR2 unless the first Cholesky breaks down or ||R1||_F ||R1^{-1}||_F passes
 * fallbackRatio / sqrt(u) (the tsqr tuning), then shifted CholeskyQR3 (generate-chol.ts).
 * Numerical failure is data: info[b] = j + 1 where a Cholesky broke at column j on the shifted
 * route (NaN or Inf in A, A = 0, ...), n + 1 where A is numerically rank-deficient (cond(A)
 * beyond about 1 / (u sqrt(11 c n)), c the Gram sums' chain: plan.ts `gramChain`); Q and R of that
 * matrix are NaN, its neighbours untouched.
 * R's diagonal is positive, so R may differ from LAPACK's Householder R in the signs of its rows
 * (Q in the signs of the matching columns); Q R is the same.
 */
import { batchCount, type Batch } from '../../../core/batch.js';
import { isDType } from '../../../core/dtype-table.js';
import { MyriadError } from '../../../core/errors.js';
import { tuningFor } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { Workspace } from '../../runtime/workspace.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { deviceDtype, stridedArgs } from '../common/operands.js';
import { cholSharedBytes, generateChol } from './generate-chol.js';
import { generateReduce, reduceSharedBytes } from './generate-reduce.js';
import { generateRows, rowsSharedBytes } from './generate-rows.js';
import { TSQR_MAX_N, type TsqrForce, type TsqrPlan } from './params.js';
import { planTsqr, shiftScale, unitRoundoff } from './plan.js';

/** A TSQR call on device data: count matrices of m x n (A, overwritten by Q) and n x n (R). */
export interface TsqrRequest {
  readonly a: Batch<DeviceArray>;
  readonly r: Batch<DeviceArray>;
  /** int32, at least count elements: 0, or > 0 for a matrix that failed (see above). */
  readonly info: DeviceArray;
}

export interface TsqrOptions {
  readonly force?: TsqrForce;
  /** Receives the plan that ran. */
  readonly onPlan?: (plan: TsqrPlan) => void;
}

/** What a call reports on the host: the route of each matrix (0 CholeskyQR2, 1 shifted CholeskyQR3). */
export interface TsqrReport {
  readonly routes: Int32Array;
}

const ROUTE_CHOLQR2 = 0;
const ROUTE_SHIFTED = 1;
export { ROUTE_CHOLQR2, ROUTE_SHIFTED };

function validate(r: TsqrRequest): { m: number; n: number; count: number } {
  const bad = (arg: string, what: string): never => { throw new MyriadError('INVALID_ARGUMENT', `tsqr: ${what}`, arg); };
  if (r.a.kind !== 'strided') bad('a', 'takes strided batches');
  if (r.r.kind !== 'strided') bad('r', 'takes strided batches');
  if (r.a.kind !== 'strided' || r.r.kind !== 'strided') throw new Error('unreachable');
  const { rows: m, cols: n } = r.a;
  const count = batchCount(r.a);
  const dtype = r.a.data.dtype;
  if (!isDType(dtype)) bad('a.data', `takes float64 or float32, got ${dtype}`);
  if (r.a.order !== 'col') bad('a.order', 'takes column-major batches');
  if (r.r.order !== 'col') bad('r.order', 'takes column-major batches');
  if (n > TSQR_MAX_N) bad('a.cols', `takes n <= ${TSQR_MAX_N}, got ${n}`);
  if (m < n) bad('a.rows', `takes m >= n, got ${m} x ${n}`);
  if (r.r.rows !== n || r.r.cols !== n) bad('r', `must be ${n} x ${n}, got ${r.r.rows} x ${r.r.cols}`);
  if (batchCount(r.r) !== count) bad('r.count', `must be ${count} (a's count), got ${batchCount(r.r)}`);
  if (r.r.data.dtype !== dtype) bad('r.data', `must be ${dtype} as a`);
  if (count > 65535) bad('a.count', `takes at most 65535 matrices, got ${count}`);
  if (r.info.dtype !== 'int32' || r.info.length < count) bad('info', `must be int32 with at least ${count} elements`);
  return { m, n, count };
}

export function tsqrCuda(dev: GpuDevice, request: TsqrRequest, opts: TsqrOptions = {}): TsqrReport {
  const { m, n, count } = validate(request);
  if (count === 0 || n === 0) return { routes: new Int32Array(count) };
  const a = request.a, r = request.r;
  if (a.kind !== 'strided' || r.kind !== 'strided') throw new Error('unreachable');
  const dtype = deviceDtype(a);
  const tuning = tuningFor(dev.info.arch, 'tsqr');
  const problem = { dtype, m, n, count, smCount: dev.info.smCount } as const;
  const plan = opts.force === undefined
    ? plannedOnce(dev, `tsqr/${dtype}/${m}/${n}/${count}`, () => planTsqr(problem, tuning))
    : planTsqr(problem, tuning, opts.force);
  opts.onPlan?.(plan);

  const gram = kernelFor(dev, 'tsqr-gram', plan.gram, () => generateRows(plan.gram));
  const store = kernelFor(dev, 'tsqr-store', plan.store, () => generateRows(plan.store));
  const chol = kernelFor(dev, 'tsqr-chol', plan.chol, () => generateChol(plan.chol));
  const reduce = kernelFor(dev, 'tsqr-reduce', plan.reduce, () => generateReduce(plan.reduce));
  const u = unitRoundoff(dtype);
  const failLimit = tuning.fallbackRatio / Math.sqrt(u);
  const shift = shiftScale(plan, m);

  const nn = n * n;
  // Scratch from the device workspace (runtime/workspace.ts): no allocation, and no wait to free it.
  const frame = Workspace.of(dev).frame();
  try {
    const partials = frame.take(dtype, count * plan.gramBlocks * nn, `tsqr's Gram partial sums (${count} x ${plan.gramBlocks} blocks)`);
    const sums = frame.take(dtype, count * nn, 'tsqr\'s Gram matrices');
    const factors = frame.take(dtype, count * 3 * nn, 'tsqr\'s triangular factors');
    const route = frame.take('int32', count, 'tsqr\'s routes');
    const aArgs = [...stridedArgs(a), arg.i64(m)];
    const shared = [arg.ptr(factors), arg.ptr(request.info), arg.ptr(route)];
    const stage = (s: number): void => {
      gram.launch({ grid: [plan.gramBlocks, count, 1], block: [plan.gram.threads, 1, 1], sharedBytes: rowsSharedBytes(plan.gram) },
        [...aArgs, ...shared, arg.i32(s), arg.ptr(partials)]);
      reduce.launch({ grid: [Math.ceil(nn / 32), count, 1], block: [32, plan.reduce.slices, 1], sharedBytes: reduceSharedBytes(plan.reduce) },
        [arg.ptr(partials), arg.i32(plan.gramBlocks), arg.i32(nn), arg.ptr(sums)]);
      chol.launch({ grid: [count, 1, 1], block: [32, 1, 1], sharedBytes: cholSharedBytes(plan.chol) },
        [arg.ptr(sums), arg.i32(s), ...shared,
          ...stridedArgs(r),
          arg.real(dtype, plan.conditionLimit), arg.real(dtype, failLimit), arg.real(dtype, shift)]);
    };
    stage(1);
    const routes = dev.download(route) as Int32Array;   // waits: the one host sync of the call
    stage(2);
    if (routes.some((x) => x === ROUTE_SHIFTED)) stage(3);
    store.launch({ grid: [plan.storeBlocks, count, 1], block: [plan.store.threads, 1, 1], sharedBytes: rowsSharedBytes(plan.store) },
      [...aArgs, ...shared]);
    return { routes };
  } finally {
    frame.end();
  }
}
