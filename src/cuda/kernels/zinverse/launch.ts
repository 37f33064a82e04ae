/**
 * Launchers of the complex inverses (complexTrtriCuda, complexLauumCuda, complexPotriCuda,
 * complexPotiCuda, complexGetriCuda) on strided and list batches of any order: the steps of
 * plan.ts run in order over the whole batch, the products through the complex trsm, herk, gemm
 * and Cholesky families' public faces, the scan and the moves on this family's kernels. The
 * workspaces (W, V: n x n per matrix; E: 32 x 32) come from the device's workspace in one frame;
 * nothing waits on the host. The device arrays hold the parts' dtype; rows, ld, stride and offsets
 * count pairs.
 */
import { batchCount, strided, type Batch } from '../../../core/batch.js';
import { complexOf } from '../../../core/dtype-table.js';
import type { DType } from '../../../core/dtype.js';
import { MyriadError } from '../../../core/errors.js';
import type { GetriRequest, LauumRequest, PotriRequest, TrtriRequest } from '../../../core/op-specs.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { Workspace, type WorkspaceFrame } from '../../runtime/workspace.js';
import { complexBytes } from '../common/complex.js';
import { zeroInfo } from '../common/info-zero.js';
import { cachedKernel, kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { deviceDtype, groupOperands, indexArgs, operandArgs, release } from '../common/operands.js';
import type { BlockBatch } from '../common/sub-blocks.js';
import { complexGemmCuda } from '../gemm/index.js';
import { complexHerkCuda } from '../zherk/index.js';
import { complexPotrfCuda } from '../zpotrf/index.js';
import { complexTrsmCuda } from '../ztrsm/index.js';
import { MOVE_THREADS, SCAN_THREADS, zinverseColumnsSource, zinverseMoveSource, zinverseScanSource } from './generate-move.js';
import type { ZcolumnsParams, ZmoveOp, ZmoveParams, ZscanParams } from './params.js';
import {
  getriWorkspace, lauumWorkspace, potriWorkspace, trtriWorkspace, zgetriSteps, ZINVERSE_LEAF, zlauumSteps, zpotriSteps, ztrtriSteps,
  type ZinverseStep, type ZinverseWorkspace, type ZpotriFactor,
} from './plan.js';

function blockBatch(a: Batch<DeviceArray>, op: string): BlockBatch<DeviceArray> {
  if (a.kind === 'variable') throw new MyriadError('UNSUPPORTED', `the complex ${op} kernels take strided and list batches (the router groups a variable batch by shape)`, 'a');
  return a;
}

/** The workspaces of a plan as strided complex batches (count matrices each). */
interface Spaces { w?: BlockBatch<DeviceArray>; v?: BlockBatch<DeviceArray>; e?: BlockBatch<DeviceArray> }

function takeSpaces(frame: WorkspaceFrame, dtype: DType, n: number, count: number, need: ZinverseWorkspace, op: string): Spaces {
  const space = (order: number, what: string): BlockBatch<DeviceArray> => {
    const data = frame.take(dtype, 2 * Math.max(1, count * order * order), `${what} of ${count} complex ${op}`);
    return strided(data, { rows: order, cols: order, ld: order, stride: order * order, count, dtype: complexOf(dtype) }, 'workspace');
  };
  return {
    ...(need.w ? { w: space(n, 'the n x n workspace') } : {}),
    ...(need.v ? { v: space(n, 'the second n x n workspace') } : {}),
    ...(need.e ? { e: space(ZINVERSE_LEAF, 'the leaves\' workspace') } : {}),
  };
}

/** Runs `steps` over a batch of `count` matrices whose info is `info`. */
function runSteps(dev: GpuDevice, dtype: DType, steps: readonly ZinverseStep<DeviceArray>[], info: DeviceArray, count: number, ipiv?: Pivots): void {
  for (const s of steps) {
    switch (s.kind) {
      case 'scan': scan(dev, dtype, s.a, info, s.keep); break;
      case 'zero-info': zeroInfo(dev, info, null, count); break;
      case 'move': move(dev, dtype, s.move, s.from, s.to, info); break;
      case 'trsm': complexTrsmCuda(dev, s.request); break;
      case 'herk': complexHerkCuda(dev, s.request); break;
      case 'gemm': complexGemmCuda(dev, s.request); break;
      case 'columns': columns(dev, dtype, s.w, s.a, info, ipiv!); break;
      case 'potrf': complexPotrfCuda(dev, { uplo: s.uplo, a: s.a, info }); break;
    }
  }
}

function scan(dev: GpuDevice, dtype: DType, a: BlockBatch<DeviceArray>, info: DeviceArray, keep: boolean): void {
  const n = a.rows;
  const grouping = groupOperands(dev, [a], complexBytes(dtype));
  try {
    for (const g of grouping.groups) {
      const p: ZscanParams = { dtype, kind: g.operands[0]!.kind, keep };
      const k = cachedKernel(dev, `zinverse-scan/${dtype}/${p.kind}/${keep}`, () => zinverseScanSource(p));
      k.launch({ grid: [Math.ceil(g.count / SCAN_THREADS), 1, 1], block: [SCAN_THREADS, 1, 1] },
        [...operandArgs(g.operands[0]!), ...indexArgs(g.index, g.count), arg.ptr(info), arg.i32(n)]);
    }
  } finally {
    release(dev, grouping);
  }
}

interface Pivots { readonly ipiv: DeviceArray; readonly pivotStride: number }

function columns(dev: GpuDevice, dtype: DType, w: BlockBatch<DeviceArray>, a: BlockBatch<DeviceArray>, info: DeviceArray, p: Pivots): void {
  const n = a.rows;
  const grouping = groupOperands(dev, [w, a], complexBytes(dtype));
  try {
    for (const g of grouping.groups) {
      const [wo, ao] = [g.operands[0]!, g.operands[1]!];
      const params: ZcolumnsParams = { dtype, kindW: wo.kind, kindA: ao.kind };
      const k = cachedKernel(dev, `zinverse-columns/${JSON.stringify(params)}`, () => zinverseColumnsSource(params));
      k.launch({ grid: [g.count, 1, 1], block: [MOVE_THREADS, 1, 1] },
        [...operandArgs(wo), ...operandArgs(ao), arg.ptr(p.ipiv), arg.i32(p.pivotStride), arg.ptr(info), ...indexArgs(g.index, g.count), arg.i32(n)]);
    }
  } finally {
    release(dev, grouping);
  }
}

function move(dev: GpuDevice, dtype: DType, m: ZmoveOp, from: BlockBatch<DeviceArray>, to: BlockBatch<DeviceArray>, info: DeviceArray): void {
  const n = to.rows;
  if (n === 0) return;
  const grouping = groupOperands(dev, [from, to], complexBytes(dtype));
  try {
    for (const g of grouping.groups) {
      const [a, b] = [g.operands[0]!, g.operands[1]!];
      // One parameter object per form (plannedOnce), so the kernel memo finds it by identity.
      const p = plannedOnce<ZmoveParams>(dev, `zinverse-move/${dtype}/${a.kind}/${b.kind}/${JSON.stringify(m)}`, () => ({ dtype, kindA: a.kind, kindB: b.kind, move: m }));
      const k = kernelFor(dev, 'zinverse-move', p, () => zinverseMoveSource(p));
      k.launch({ grid: [g.count, 1, 1], block: [MOVE_THREADS, 1, 1] },
        [...operandArgs(a), ...operandArgs(b), arg.ptr(info), ...indexArgs(g.index, g.count), arg.i32(n)]);
    }
  } finally {
    release(dev, grouping);
  }
}

/** Runs a plan with its workspaces taken for the call. */
function withSpaces(dev: GpuDevice, a: BlockBatch<DeviceArray>, need: ZinverseWorkspace, op: string, body: (dtype: DType, s: Spaces) => void): void {
  const dtype = deviceDtype(a);
  const frame = Workspace.of(dev).frame();
  try {
    const count = batchCount(a);
    const spaces = takeSpaces(frame, dtype, a.rows, count, need, op);
    body(dtype, spaces);
  } finally {
    frame.end();
  }
}

/** ztrtri / ctrtri: inv(T) over A's `uplo` triangle; info = the first exactly zero diagonal (A then unchanged). */
export function complexTrtriCuda(dev: GpuDevice, r: TrtriRequest<DeviceArray, DeviceArray>): void {
  const a = blockBatch(r.a, 'trtri');
  const count = batchCount(a);
  if (count === 0) return;
  withSpaces(dev, a, trtriWorkspace(a.rows), 'trtri', (dtype, s) =>
    runSteps(dev, dtype, ztrtriSteps(r.uplo, r.diag, a, s.w, s.e!), r.info, count));
}

/** zlauum / clauum: U U^H or L^H L over A's `uplo` triangle (a real diagonal); info 0. */
export function complexLauumCuda(dev: GpuDevice, r: LauumRequest<DeviceArray, DeviceArray>): void {
  const a = blockBatch(r.a, 'lauum');
  const count = batchCount(a);
  if (count === 0) return;
  withSpaces(dev, a, lauumWorkspace(a.rows), 'lauum', (dtype, s) => runSteps(dev, dtype, zlauumSteps(r.uplo, a, s.w), r.info, count));
}

/** zpotri / cpotri: inv(A) over the `uplo` triangle from A's Cholesky factor; info as trtri's (A then unchanged). */
export function complexPotriCuda(dev: GpuDevice, r: PotriRequest<DeviceArray, DeviceArray>): void {
  hpdInverse(dev, r, 'given');
}

/** poti: potrf, then potri; info > 0 from potrf, the matrix then left as potrf leaves it. */
export function complexPotiCuda(dev: GpuDevice, r: PotriRequest<DeviceArray, DeviceArray>): void {
  hpdInverse(dev, r, 'here');
}

/**
 * potri after a factorisation that wrote `info` (another route's: the router's composed
 * candidates): the inverse where info is 0, a matrix whose factorisation failed left as it is.
 */
export function complexPotriAfterFactor(dev: GpuDevice, r: PotriRequest<DeviceArray, DeviceArray>): void {
  hpdInverse(dev, r, 'before');
}

function hpdInverse(dev: GpuDevice, r: PotriRequest<DeviceArray, DeviceArray>, factor: ZpotriFactor): void {
  const op = factor === 'given' ? 'potri' : 'poti';
  const a = blockBatch(r.a, op);
  const count = batchCount(a);
  if (count === 0) return;
  withSpaces(dev, a, potriWorkspace(a.rows), op, (dtype, s) =>
    runSteps(dev, dtype, zpotriSteps(r.uplo, a, s.w, s.v, s.e, factor), r.info, count));
}

/** zgetri / cgetri: inv(A) from getrf's factors and 0-based pivots; info = k where U(k, k) is exactly zero (A then unchanged). */
export function complexGetriCuda(dev: GpuDevice, r: GetriRequest<DeviceArray, DeviceArray>): void {
  const a = blockBatch(r.a, 'getri');
  const count = batchCount(a);
  if (count === 0) return;
  withSpaces(dev, a, getriWorkspace(a.rows), 'getri', (dtype, s) =>
    runSteps(dev, dtype, zgetriSteps(a, s.w, s.e), r.info, count, { ipiv: r.ipiv, pivotStride: r.pivotStride }));
}
