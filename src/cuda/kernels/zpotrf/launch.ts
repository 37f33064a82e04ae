/**
 * Launchers of the complex Cholesky (complexPotrfCuda, complexPotrsCuda, complexPosvCuda). The
 * device arrays hold the parts' dtype; the batches' rows, ld, stride and offset count pairs, as the
 * kernels' `real2` pointers do, and a list batch's pointer array is built with a pair's bytes.
 * n <= ZCHOLESKY_MAX_N: one launch per strided or list batch (generate-small.ts). Above: the
 * recursion's steps (plan.ts zpotrfSteps) over the whole batch, on sub-blocks of every matrix:
 * leaves on the small potrf kernel (their info into a scratch array, combined into `info` by each
 * matrix's first failure, common/info-combine.ts), the panels and updates by the complex trsm and
 * herk families' faces; potrs as their two trsm (zpotrsSteps); posv as potrf, then the solves on
 * B with B kept aside and copied back where info > 0 (LAPACK's posv leaves a failed matrix's B).
 */
import { batchCount, type Batch } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import { MyriadError } from '../../../core/errors.js';
import type { PosvRequest, PotrfRequest, PotrsRequest } from '../../../core/op-specs.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { Workspace } from '../../runtime/workspace.js';
import { complexBytes } from '../common/complex.js';
import { combineInfo } from '../common/info-combine.js';
import { zeroInfo } from '../common/info-zero.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { keepingFailedPairs } from '../common/matrix-copy.js';
import { deviceDtype, groupOperands, indexArgs, operandArgs, release, type LaunchGroup } from '../common/operands.js';
import type { BlockBatch } from '../common/sub-blocks.js';
import { smallGrid } from '../common/warp-slots.js';
import { complexHerkCuda } from '../zherk/index.js';
import { complexTrsmCuda } from '../ztrsm/index.js';
import { zposvSmallSource, zpotrfSmallSource, zpotrsSmallSource, zsmallLayout } from './generate-small.js';
import { planZpotrf, planZsolve, zcholeskyServes, zpotrfSteps, zpotrsSteps } from './plan.js';

/** The batches as strided or list batches (variable ones are refused: the router runs them by shape groups). */
function blockBatches(op: string, batches: readonly Batch<DeviceArray>[], names: readonly string[]): BlockBatch<DeviceArray>[] {
  return batches.map((b, i) => {
    if (b.kind === 'variable') throw new MyriadError('UNSUPPORTED', `the complex ${op} kernels take strided and list batches`, names[i]!);
    return b;
  });
}

/** Runs `body` on each launch group of the small kernels (n <= ZCHOLESKY_MAX_N). */
function eachGroup(dev: GpuDevice, batches: readonly BlockBatch<DeviceArray>[], body: (g: LaunchGroup, dtype: DType) => void): void {
  const dtype = deviceDtype(batches[0]!);
  const grouping = groupOperands(dev, batches, complexBytes(dtype));
  try {
    for (const g of grouping.groups) body(g, dtype);
  } finally {
    release(dev, grouping);
  }
}

/** zpotrf / cpotrf: A = L L^H or U^H U in place, info per matrix; any order. */
export function complexPotrfCuda(dev: GpuDevice, r: PotrfRequest<DeviceArray, DeviceArray>): void {
  const [a] = blockBatches('potrf', [r.a], ['a']);
  const count = batchCount(a!);
  if (count === 0) return;
  if (zcholeskyServes(a!.rows)) smallPotrf(dev, r.uplo, a!, r.info);
  else recursivePotrf(dev, r.uplo, a!, r.info, count);
}

/** The small kernel (n <= ZCHOLESKY_MAX_N): info[i] for matrix i of the batch, relative to it. */
function smallPotrf(dev: GpuDevice, uplo: Uplo, batch: BlockBatch<DeviceArray>, info: DeviceArray): void {
  eachGroup(dev, [batch], (g, dtype) => {
    const a = g.operands[0]!;
    if (a.rows === 0) { zeroInfo(dev, info, g.index, g.count); return; }
    const p = plannedOnce(dev, `zpotrf/${dtype}/${a.rows}/${uplo}/${a.kind}`, () => planZpotrf({ dtype, n: a.rows, uplo, kind: a.kind }));
    const k = kernelFor(dev, 'zpotrf-small', p, () => zpotrfSmallSource(p));
    k.launch({ grid: [smallGrid(zsmallLayout(p), g.count), 1, 1], block: [p.warps * 32, 1, 1] },
      [...operandArgs(a), arg.ptr(info), ...indexArgs(g.index, g.count)]);
  });
}

/**
 * The recursion over the whole batch (plan.ts zpotrfSteps). info is zeroed first; each leaf writes
 * its info into the scratch array (every matrix's entry, 0 where the leaf succeeded), and the
 * combine keeps a matrix's first failure, offset by the leaf's first column. Nothing waits: the
 * scratch is reused in stream order.
 */
function recursivePotrf(dev: GpuDevice, uplo: Uplo, a: BlockBatch<DeviceArray>, info: DeviceArray, count: number): void {
  zeroInfo(dev, info, null, count);
  const frame = Workspace.of(dev).frame();
  try {
    const scratch = frame.take('int32', count, "the complex Cholesky's scratch info");
    for (const step of zpotrfSteps(uplo, a)) {
      if (step.kind === 'leaf') {
        smallPotrf(dev, uplo, step.a, scratch);
        combineInfo(dev, info, scratch, count, step.off);
      } else if (step.kind === 'trsm') {
        complexTrsmCuda(dev, step.request);
      } else {
        complexHerkCuda(dev, step.request);
      }
    }
  } finally {
    frame.end();
  }
}

/** The potrs and posv launch of one group of the small kernels (both take the same arguments). */
function solveGroup(dev: GpuDevice, design: 'zpotrs' | 'zposv', r: PotrsRequest<DeviceArray, DeviceArray>, g: LaunchGroup, dtype: DType): void {
  const [a, b] = [g.operands[0]!, g.operands[1]!];
  if (a.rows === 0) { zeroInfo(dev, r.info, g.index, g.count); return; }
  const p = plannedOnce(dev, `zsolve/${dtype}/${a.rows},${b.cols}/${r.uplo}/${a.kind},${b.kind}`, () => planZsolve({ dtype, n: a.rows, nrhs: b.cols, uplo: r.uplo, kindA: a.kind, kindB: b.kind }));
  const k = design === 'zposv'
    ? kernelFor(dev, 'zposv-small', p, () => zposvSmallSource(p))
    : kernelFor(dev, 'zpotrs-small', p, () => zpotrsSmallSource(p));
  k.launch({ grid: [smallGrid(zsmallLayout(p), g.count), 1, 1], block: [p.warps * 32, 1, 1] },
    [...operandArgs(a), ...operandArgs(b), arg.ptr(r.info), ...indexArgs(g.index, g.count), arg.i32(b.cols)]);
}

/** A and B of a solve as the families' batches (strided or list), and the count. */
function solveOperands(op: 'potrs' | 'posv', r: PotrsRequest<DeviceArray, DeviceArray>): { a: BlockBatch<DeviceArray>; b: BlockBatch<DeviceArray>; count: number } {
  const [a, b] = blockBatches(op, [r.a, r.b], ['a', 'b']) as [BlockBatch<DeviceArray>, BlockBatch<DeviceArray>];
  return { a, b, count: batchCount(a) };
}

/** zpotrs / cpotrs: A X = B with A's Cholesky factor; info 0; any order. */
export function complexPotrsCuda(dev: GpuDevice, r: PotrsRequest<DeviceArray, DeviceArray>): void {
  const { a, b, count } = solveOperands('potrs', r);
  if (count === 0) return;
  if (zcholeskyServes(a.rows)) {
    eachGroup(dev, [a, b], (g, dtype) => solveGroup(dev, 'zpotrs', r, g, dtype));
    return;
  }
  zeroInfo(dev, r.info, null, count);
  for (const solve of zpotrsSteps(r.uplo, a, b)) complexTrsmCuda(dev, solve);
}

/**
 * zposv / cposv: n <= ZCHOLESKY_MAX_N factored and solved in one kernel; above, potrf's recursion
 * and then potrs's two trsm. Either way a matrix whose factorisation fails (info > 0) keeps its B.
 */
export function complexPosvCuda(dev: GpuDevice, r: PosvRequest<DeviceArray, DeviceArray>): void {
  const { a, b, count } = solveOperands('posv', r);
  if (count === 0) return;
  if (zcholeskyServes(a.rows)) {
    eachGroup(dev, [a, b], (g, dtype) => solveGroup(dev, 'zposv', r, g, dtype));
    return;
  }
  recursivePotrf(dev, r.uplo, a, r.info, count);
  solveKeepingFailed(dev, r.uplo, a, b, r.info, count);
}

/**
 * posv's solve after a factorisation that wrote `info` (its own, or another route's: the router's
 * composed candidates): potrs's two trsm on every matrix, B kept where info > 0.
 */
export function complexPosvSolve(dev: GpuDevice, r: PosvRequest<DeviceArray, DeviceArray>): void {
  const { a, b, count } = solveOperands('posv', r);
  if (count === 0) return;
  solveKeepingFailed(dev, r.uplo, a, b, r.info, count);
}

function solveKeepingFailed(dev: GpuDevice, uplo: Uplo, a: BlockBatch<DeviceArray>, b: BlockBatch<DeviceArray>, info: DeviceArray, count: number): void {
  if (b.cols === 0 || a.rows === 0) return;
  keepingFailedPairs(dev, b, info, count, () => {
    for (const solve of zpotrsSteps(uplo, a, b)) complexTrsmCuda(dev, solve);
  });
}

