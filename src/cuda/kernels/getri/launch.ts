/**
 * getriCuda: inv(A) from getrf's factors and pivots on the GPU, in place, as LAPACK's dgetri.
 * P A = L U gives inv(A) = inv(U) inv(L) P, computed in a workspace W beside A:
 *   1. prepare (generate-steps.ts): W := L (unit diagonal, zero upper triangle); info from U's diagonal;
 *   2. W := inv(L): trtri (lower, unit) through the trtri family's public face;
 *   3. W := inv(U) W: trsm (left, upper, 'N', non-unit) with A's upper triangle, the trsm family's face;
 *   4. finish: A := W P where info is 0; a matrix with a zero U(k, k) is never written.
 * 4/3 n^3 flops (trtri n^3 / 3, trsm n^3), as dgetri; A is read by 1 and 3 and written once, by 4.
 * No step waits on the host, so a strided call can be captured in a graph.
 *
 * The batch runs in runs of matrices whose W stays within the plan's workspace bound (plan.ts);
 * within a run, list and variable batches are grouped by size and leading dimension for the two
 * kernels (common/operands.ts; trtri and trsm group them their own way), W packed, strided where
 * every matrix of the run has one order and a variable batch otherwise.
 */
import { batchCount, matrixAt, shapeAt, sliceBatch, uniformShape, type Batch, type MatrixView } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import { MyriadError } from '../../../core/errors.js';
import type { GetriRequest } from '../../../core/ops.js';
import type { Storage } from '../../../core/storage.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { Workspace } from '../../runtime/workspace.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { deviceDtype, groupOperands, indexArgs, operandArgs, release, sharedLimit, type LaunchGroup } from '../common/operands.js';
import { elementBytes } from '../common/precision.js';
import { trsmCuda } from '../trsm/index.js';
import { trtriCuda } from '../trtri/index.js';
import { GETRI_MATRICES_MAX, GETRI_THREADS, getriFinishSharedBytes, getriFinishSource, getriPrepareSource } from './generate-steps.js';
import type { GetriForce, GetriShape, GetriStepParams } from './params.js';
import { getriChunks, getriFits, planGetriShape } from './plan.js';

export interface GetriOptions {
  /** A workspace bound or launch shape instead of the planned ones (tests). */
  readonly force?: GetriForce;
}

/**
 * Whether the GPU takes every matrix of the request (the router's `covers`): the finish kernel's
 * column map fits the shared memory. The backend asks before it stages host arrays, so the batch
 * may hold host arrays.
 */
export function getriCovers(r: Pick<GetriRequest<Storage>, 'a'>, dev: GpuDevice): boolean {
  const limit = sharedLimit(dev);
  const uniform = uniformShape(r.a);
  if (uniform !== undefined) return getriFits(uniform.rows, limit);
  const count = batchCount(r.a);
  for (let i = 0; i < count; i++) if (!getriFits(shapeAt(r.a, i).rows, limit)) return false;
  return true;
}

export function getriCuda(dev: GpuDevice, r: GetriRequest<DeviceArray, DeviceArray>, opts: GetriOptions = {}): void {
  const count = batchCount(r.a);
  if (count === 0) return;
  const forced = opts.force?.shape;
  if (forced !== undefined && !validShape(forced)) {
    throw new MyriadError('INVALID_ARGUMENT', `getri's launch shape must have 32 ... ${GETRI_THREADS} threads (whole warps), 1 ... ${GETRI_MATRICES_MAX} `
      + `matrices and at most ${GETRI_THREADS} threads a block, got ${JSON.stringify(forced)}`, 'shape');
  }
  const dtype = deviceDtype(r.a);
  const uniform = uniformShape(r.a);
  const orderOf = (i: number): number => shapeAt(r.a, i).rows;
  const runs = getriChunks(count, uniform !== undefined ? uniform.rows : orderOf, elementBytes(dtype), opts.force?.workspaceBytes);
  // The largest run's W and matrices (the first run, where every matrix has one order).
  let most = 0;
  let longest = 0;
  for (const [start, end] of uniform !== undefined ? runs.slice(0, 1) : runs) {
    let elements = 0;
    for (let i = start; i < end; i++) elements += orderOf(i) ** 2;
    most = Math.max(most, elements);
    longest = Math.max(longest, end - start);
  }
  // From the device's workspace: every run reuses it in stream order, and so may the next call.
  const frame = Workspace.of(dev).frame();
  try {
    const w = frame.take(dtype, Math.max(1, most), `getri's inverse workspace (${longest} matrices, ${most} elements)`);
    const scratchInfo = frame.take('int32', longest, `getri's info of the unit triangles (${longest} matrices)`);
    for (const [start, end] of runs) runOf(dev, dtype, r, start, end, w, scratchInfo, forced);
  } finally {
    frame.end();
  }
}

/** Matrices start ... end - 1 of the request, with W (packed at the start of `w`). */
function runOf(
  dev: GpuDevice, dtype: DType, r: GetriRequest<DeviceArray, DeviceArray>, start: number, end: number, w: DeviceArray, scratchInfo: DeviceArray,
  forced: GetriShape | undefined,
): void {
  const a = sliceBatch(r.a, start, end);
  const count = end - start;
  const work = packed(a, w, count);
  const info = r.info.ptr + BigInt(start * 4);
  const ipiv = r.ipiv.ptr + BigInt(start * r.pivotStride * 4);
  const grouping = groupOperands(dev, [a, work]);
  try {
    for (const g of grouping.groups) {
      const { p, shape } = planned(dev, dtype, g, forced);
      const k = kernelFor(dev, 'getri-prepare', p, () => getriPrepareSource(p));
      k.launch({ grid: [Math.ceil(g.count / shape.matrices), shape.columnBlocks, 1], block: [shape.threads, shape.matrices, 1] }, [
        ...operandArgs(g.operands[0]!), ...operandArgs(g.operands[1]!), arg.ptr(info), ...indexArgs(g.index, g.count),
        arg.i32(g.operands[0]!.rows), arg.i32(shape.columns)]);
    }
    trtriCuda(dev, { uplo: 'lower', diag: 'unit', a: work, info: scratchInfo });
    trsmCuda(dev, { side: 'left', uplo: 'upper', transA: 'N', diag: 'nonunit', alpha: 1, a, b: work });
    for (const g of grouping.groups) {
      const n = g.operands[0]!.rows;
      if (n === 0) continue;
      const { p, shape } = planned(dev, dtype, g, forced);
      const k = kernelFor(dev, 'getri-finish', p, () => getriFinishSource(p));
      k.launch({
        grid: [Math.ceil(g.count / shape.matrices), shape.columnBlocks, 1], block: [shape.threads, shape.matrices, 1],
        sharedBytes: getriFinishSharedBytes(n, shape.matrices),
      }, [
        ...operandArgs(g.operands[0]!), ...operandArgs(g.operands[1]!), arg.ptr(ipiv), arg.i32(r.pivotStride), arg.ptr(info),
        ...indexArgs(g.index, g.count), arg.i32(n), arg.i32(shape.columns)]);
    }
  } finally {
    release(dev, grouping);
  }
}

/** The kernels' parameters and launch shape of a group (the same objects for a repeated problem). */
function planned(dev: GpuDevice, dtype: DType, g: LaunchGroup, forced: GetriShape | undefined): { p: GetriStepParams; shape: GetriShape } {
  const kind = g.operands[0]!.kind;
  const n = g.operands[0]!.rows;
  const p = plannedOnce<GetriStepParams>(dev, `getri/${dtype}/${kind}`, () => ({ dtype, kind }));
  if (forced !== undefined) return { p, shape: { ...forced, columnBlocks: Math.max(1, Math.ceil(n / forced.columns)) } };
  const shape = plannedOnce(dev, `getri-shape/${n},${g.count}`, () => planGetriShape(n, g.count, dev.info.smCount));
  return { p, shape };
}

/** A launch shape the kernels take: whole warps, at most GETRI_MATRICES_MAX matrices, GETRI_THREADS threads a block. */
function validShape(s: GetriShape): boolean {
  const int = (x: number, lo: number, hi: number): boolean => Number.isInteger(x) && x >= lo && x <= hi;
  return int(s.threads, 32, GETRI_THREADS) && s.threads % 32 === 0 && int(s.matrices, 1, GETRI_MATRICES_MAX)
    && s.threads * s.matrices <= GETRI_THREADS && int(s.columns, 1, Number.MAX_SAFE_INTEGER);
}

/** W for the matrices of `a`: n x n each, packed from the start of `w` (strided where they share one n). */
function packed(a: Batch<DeviceArray>, w: DeviceArray, count: number): Batch<DeviceArray> {
  const uniform = uniformShape(a);
  if (uniform !== undefined) {
    const n = uniform.rows;
    return { kind: 'strided', data: w, rows: n, cols: n, count, ld: Math.max(1, n), stride: n * n, offset: 0, order: 'col' };
  }
  let offset = 0;
  const matrices: MatrixView<DeviceArray>[] = [];
  for (let i = 0; i < count; i++) {
    const n = matrixAt(a, i).rows;
    matrices.push({ data: w, rows: n, cols: n, ld: Math.max(1, n), offset });
    offset += n * n;
  }
  return { kind: 'variable', matrices, order: 'col' };
}
