/**
 * gelsCuda: least squares (m >= n) and minimum norm (m < n) solutions of A X = B on the GPU, as
 * LAPACK's dgels (trans 'N'), composed from the qr, ormqr and trsm families' public faces with two
 * small kernels of its own between them (generate-steps.ts) and the common transpose (wide case).
 *
 * A strided request is one group; list and variable batches are grouped by the shapes and leading
 * dimensions of A and B, each group run as list batches (the borrowed launchers upload their own
 * pointer arrays) with an index map from the group's matrix to its place in info.
 *
 * `gelsCovers` tells the registry which requests the GPU takes: those whose pieces the qr and
 * ormqr families cover (their own `covers`, asked with the derived requests, so that their
 * extension to larger sizes flows through); the rest, and empty systems, run on the CPU reference.
 */
import { batchCount, shapeAt, uniformShape, type Batch, type ListBatch, type StridedBatch } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import type { GelsRequest } from '../../../core/ops.js';
import type { Storage } from '../../../core/storage.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { Workspace, type WorkspaceFrame } from '../../runtime/workspace.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { deviceDtype, groupOperands, indexArgs, operandArgs, release, type OperandArgs } from '../common/operands.js';
import { pairGroups, type PairGroup } from '../common/shape-groups.js';
import { transposeBatch } from '../common/transpose.js';
import { ormqrCovers, ormqrCuda } from '../ormqr/index.js';
import { geqrfCuda, qrCovers } from '../qr/index.js';
import { trsmCuda } from '../trsm/index.js';
import { CHECK_THREADS, FINISH_THREADS, gelsCheckSource, gelsFinishSource } from './generate-steps.js';
import type { GelsCheckParams, GelsFinishParams, GelsPlan } from './params.js';
import { planGels } from './plan.js';

/** Blocks at most of the finish pass (a grid-stride loop covers the rest). */
const FINISH_MAX_BLOCKS = 8192;

/** A column-major strided descriptor (for the derived requests and the workspace's batches). */
function stridedOf<S>(data: S, rows: number, cols: number, count: number, ld: number, stride: number, offset = 0): StridedBatch<S> {
  return { kind: 'strided', data, rows, cols, count, ld, stride, offset, order: 'col' };
}

/** The first storage of a batch (its dtype is the batch's). */
function firstData<S>(b: Batch<S>): S | undefined {
  return b.kind === 'strided' ? b.data : b.matrices[0]?.data;
}

/**
 * Whether the GPU path takes every matrix of the request: the factored matrix (A, or A^T when
 * wide) by qrCovers and B := op(Q) B by ormqrCovers, one count-1 request per distinct shape. The
 * backend asks before it stages host arrays, so the batches may be host arrays.
 */
export function gelsCovers(r: Pick<GelsRequest<Storage>, 'a' | 'b'>, dev: GpuDevice): boolean {
  const count = batchCount(r.a);
  if (count === 0) return true;
  const [a, b] = [firstData(r.a), firstData(r.b)];
  if (a === undefined || b === undefined) return true;
  const seen = new Set<string>();
  const fits = (m: number, n: number, nrhs: number): boolean => {
    const key = `${m}x${n}x${nrhs}`;
    if (seen.has(key)) return true;
    seen.add(key);
    // Empty systems (B := 0, or no right-hand side: A untouched) are the CPU reference's.
    if (m === 0 || n === 0 || nrhs === 0) return false;
    const p = planGels({ m, n, nrhs });
    return qrCovers(stridedOf(a, p.factorRows, p.factorCols, 1, p.factorRows, p.factorRows * p.factorCols), dev)
      && ormqrCovers({ side: 'left', tau: stridedOf(b, p.k, 1, 1, p.k, p.k), c: stridedOf(b, p.rowsB, nrhs, 1, p.rowsB, p.rowsB * nrhs) });
  };
  const [ua, ub] = [uniformShape(r.a), uniformShape(r.b)];
  if (ua !== undefined && ub !== undefined) return fits(ua.rows, ua.cols, ub.cols);
  for (let i = 0; i < count; i++) {
    const [sa, sb] = [shapeAt(r.a, i), shapeAt(r.b, i)];
    if (!fits(sa.rows, sa.cols, sb.cols)) return false;
  }
  return true;
}

type GelsGroup = PairGroup<DeviceArray>;

const groupsOf = (r: GelsRequest<DeviceArray, DeviceArray>): GelsGroup[] => pairGroups(r.a, r.b);

/**
 * The workspace of one group: tau (k per matrix), B's top rows kept aside (tall), A^T (wide), the
 * per-matrix states and, where the group is not the whole batch, a scratch info for geqrf; views of
 * the device workspace (runtime/workspace.ts), valid until `frame` ends.
 */
interface GelsWorkspace {
  readonly tau: StridedBatch<DeviceArray>;
  readonly guard: StridedBatch<DeviceArray>;
  readonly work: StridedBatch<DeviceArray>;
  readonly status: DeviceArray;
  readonly scratchInfo: DeviceArray;
}

function gelsWorkspace(dev: GpuDevice, frame: WorkspaceFrame, dtype: DType, p: GelsPlan, count: number, nrhs: number): GelsWorkspace {
  const [tauN, guardN, workN] = [p.tauElements * count, p.guardElements * count, p.workElements * count];
  const floats = frame.take(dtype, Math.max(1, tauN + guardN + workN), `gels's tau, B aside and A^T (${count} matrices)`);
  const ints = frame.take('int32', 2 * count, `gels's per-matrix states (${count} matrices)`);
  // An unused part (no guard when wide, no A^T when tall) is a one-element view at the start, inside the allocation.
  const at = (start: number, length: number): DeviceArray => (length === 0 ? dev.view(floats, 0, 1) : dev.view(floats, start, length));
  const [n, m] = p.tall ? [p.factorCols, p.factorRows] : [p.factorRows, p.factorCols];
  return {
    tau: stridedOf(at(0, tauN), p.k, 1, count, Math.max(1, p.k), p.k),
    guard: stridedOf(at(tauN, guardN), p.tall ? n : 0, nrhs, count, Math.max(1, p.tall ? n : 0), p.guardElements),
    work: stridedOf(at(tauN + guardN, workN), p.tall ? 0 : n, p.tall ? 0 : m, count, Math.max(1, p.tall ? 0 : n), p.workElements),
    status: dev.view(ints, 0, count),
    scratchInfo: dev.view(ints, count, count),
  };
}

/** The top `rows` rows of every matrix of a batch. */
function top<B extends StridedBatch<DeviceArray> | ListBatch<DeviceArray>>(b: B, rows: number, cols = b.cols): B {
  return { ...b, rows, cols };
}

/** Kernel arguments of a strided workspace batch. */
function workArgs(w: StridedBatch<DeviceArray>): OperandArgs {
  return { kind: 'strided', pointer: w.data.ptr, offset: w.offset, stride: w.stride, ld: w.ld, rows: w.rows, cols: w.cols };
}

export function gelsCuda(dev: GpuDevice, r: GelsRequest<DeviceArray, DeviceArray>): void {
  if (batchCount(r.a) === 0) return;
  const dtype = deviceDtype(r.a);
  for (const g of groupsOf(r)) runGroup(dev, dtype, g, r.info);
}

function runGroup(dev: GpuDevice, dtype: DType, g: GelsGroup, info: DeviceArray): void {
  const { a, b } = g;
  const count = batchCount(a);
  const [m, n, nrhs] = [a.rows, a.cols, b.cols];
  const p = planGels({ m, n, nrhs });
  const frame = Workspace.of(dev).frame();
  const ws = gelsWorkspace(dev, frame, dtype, p, count, nrhs);
  const index = g.members === null ? null : dev.upload(Int32Array.from(g.members));
  // A and B as kernel arguments (one launch group: the matrices share their shapes).
  const grouping = groupOperands(dev, [a, b]);
  try {
    const [ao, bo] = grouping.groups[0]!.operands as [OperandArgs, OperandArgs];
    const geqrfInfo = index === null ? info : ws.scratchInfo;
    const check = (factor: OperandArgs): void => {
      // The same parameter object for a repeated problem, so kernelFor finds the kernel by identity.
      const params = plannedOnce<GelsCheckParams>(dev, `gels-check/${dtype}/${p.tall}/${factor.kind}/${bo.kind}`,
        () => ({ dtype, tall: p.tall, factor: factor.kind, b: bo.kind }));
      const k = kernelFor(dev, 'gels-check', params, () => gelsCheckSource(params));
      k.launch({ grid: [Math.ceil(count / CHECK_THREADS), 1, 1], block: [CHECK_THREADS, 1, 1] }, [
        ...operandArgs(factor), ...operandArgs(workArgs(ws.tau)), ...operandArgs(bo), ...operandArgs(workArgs(ws.guard)),
        arg.ptr(info), ...indexArgs(index, count), arg.ptr(ws.status), arg.i32(p.k), arg.i32(nrhs),
      ]);
    };
    const finish = (): void => {
      const params = plannedOnce<GelsFinishParams>(dev, `gels-finish/${dtype}/${p.tall}/${bo.kind}`, () => ({ dtype, tall: p.tall, b: bo.kind }));
      const k = kernelFor(dev, 'gels-finish', params, () => gelsFinishSource(params));
      const total = count * p.rowsB * nrhs;
      k.launch({ grid: [Math.min(FINISH_MAX_BLOCKS, Math.ceil(total / FINISH_THREADS)), 1, 1], block: [FINISH_THREADS, 1, 1] }, [
        ...operandArgs(bo), ...operandArgs(workArgs(ws.guard)), arg.ptr(ws.status), arg.i32(count), arg.i32(p.rowsB), arg.i32(nrhs), arg.i32(p.k),
      ]);
    };
    if (p.tall) {
      geqrfCuda(dev, { a, tau: ws.tau, info: geqrfInfo });
      check(ao);
      ormqrCuda(dev, { side: 'left', trans: 'T', a, tau: ws.tau, c: b });
      trsmCuda(dev, { side: 'left', uplo: 'upper', transA: 'N', diag: 'nonunit', alpha: 1, a: top(a, n, n), b: top(b, n) });
      finish();
    } else {
      const w = workArgs(ws.work);
      transposeBatch(dev, dtype, ao, w, count);
      geqrfCuda(dev, { a: ws.work, tau: ws.tau, info: geqrfInfo });
      // A receives the factors of A^T transposed back (R^T on and below its diagonal), before the check may overwrite R.
      transposeBatch(dev, dtype, w, ao, count);
      check(w);
      trsmCuda(dev, { side: 'left', uplo: 'upper', transA: 'T', diag: 'nonunit', alpha: 1, a: top(ws.work, m, m), b: top(b, m) });
      finish();
      ormqrCuda(dev, { side: 'left', trans: 'N', a: ws.work, tau: ws.tau, c: b });
    }
  } finally {
    // The workspace's views need no wait (the next call's kernels queue behind these); the index
    // and pointer uploads of a list or variable batch are freed once the launches that read them ran.
    frame.end();
    if (index !== null) {
      dev.synchronize();
      index.dispose();
    }
    release(dev, grouping);
  }
}
