/**
 * complexGelsCuda: least squares (m >= n) and minimum norm (m < n) solutions of A X = B on complex
 * data, as the reference's zgels (trans 'N', src/cpu/complex/zgels.ts), composed of this family's
 * zgeqrf and zunmqr and the complex trsm's public face, with the three small kernels of
 * generate-gels.ts between them (the real gels family's design over pairs):
 *
 * - m >= n: A = Q R (in place), check, B := Q^H B, R X = B(0:n) (upper, 'N'), finish.
 * - m < n: A^H (n x m) into a workspace, its Q R there, the factors conjugate-transposed back into
 *   A (R^H on and below the diagonal, the conjugated reflectors to its right: zgelqf's storage),
 *   check, R^H Y = B(0:m) (upper, 'C'), finish (B(m:n) := 0), X = Q [Y; 0] (zunmqr 'N').
 *
 * Strided and list batches (one shape and leading dimension each: the router runs a variable batch
 * by shape groups, kernels/common/shape-groups.ts), info written in place.
 * `zgelsCovers`: the factored matrix by zqrCovers (zunmqr takes every size); empty systems run on
 * the CPU reference.
 */
import { batchCount, shapeAt, uniformShape, type Batch, type ListBatch, type StridedBatch } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import { complexOf } from '../../../core/dtype-table.js';
import { MyriadError } from '../../../core/errors.js';
import type { GelsRequest } from '../../../core/op-specs.js';
import type { Storage } from '../../../core/storage.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { Workspace } from '../../runtime/workspace.js';
import { complexBytes } from '../common/complex.js';
import { cachedKernel, kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { deviceDtype, groupOperands, indexArgs, operandArgs, release, type OperandArgs } from '../common/operands.js';
import { complexTrsmCuda } from '../ztrsm/index.js';
import {
  ZGELS_CHECK_THREADS, ZGELS_FINISH_THREADS, ZGELS_MOVE_THREADS, zconjTransposeSource, zgelsCheckSource, zgelsFinishSource,
  type ZconjTransposeParams, type ZgelsCheckParams, type ZgelsFinishParams,
} from './generate-gels.js';
import { complexGeqrfCuda, complexOrmqrCuda, zqrCovers } from './launch.js';

/** Blocks at most of the finish pass (a grid-stride loop covers the rest). */
const FINISH_MAX_BLOCKS = 8192;
const ONE: readonly [number, number] = [1, 0];

function stridedOf<S>(data: S, rows: number, cols: number, count: number, ld: number, stride: number, dtype?: 'complex128' | 'complex64'): StridedBatch<S> {
  return { kind: 'strided', data, rows, cols, count, ld, stride, offset: 0, order: 'col', ...(dtype === undefined ? {} : { dtype }) };
}

const firstData = <S>(b: Batch<S>): S | undefined => (b.kind === 'strided' ? b.data : b.matrices[0]?.data);

/**
 * Whether the GPU path takes every system: the factored matrix (A, or A^H when wide) by zqrCovers,
 * one count-1 request per distinct shape; empty systems are the CPU reference's. The backend asks
 * before it stages host arrays, so the batches may be host arrays.
 */
export function zgelsCovers(r: Pick<GelsRequest<Storage>, 'a' | 'b'>, dev: GpuDevice): boolean {
  const count = batchCount(r.a);
  if (count === 0) return true;
  const a = firstData(r.a);
  if (a === undefined) return true;
  const dtype = r.a.dtype;
  const seen = new Set<string>();
  const fits = (m: number, n: number, nrhs: number): boolean => {
    const key = `${m}x${n}x${nrhs}`;
    if (seen.has(key)) return true;
    seen.add(key);
    if (m === 0 || n === 0 || nrhs === 0) return false;
    const [rows, cols] = m >= n ? [m, n] : [n, m];
    return zqrCovers({ ...stridedOf(a, rows, cols, 1, rows, rows * cols), ...(dtype === undefined ? {} : { dtype }) }, dev);
  };
  const [ua, ub] = [uniformShape(r.a), uniformShape(r.b)];
  if (ua !== undefined && ub !== undefined) return fits(ua.rows, ua.cols, ub.cols);
  for (let i = 0; i < count; i++) if (!fits(shapeAt(r.a, i).rows, shapeAt(r.a, i).cols, shapeAt(r.b, i).cols)) return false;
  return true;
}

export function complexGelsCuda(dev: GpuDevice, r: GelsRequest<DeviceArray, DeviceArray>): void {
  const { a, b } = r;
  if (a.kind === 'variable') throw new MyriadError('UNSUPPORTED', 'the complex gels kernels take strided and list batches', 'a');
  if (b.kind === 'variable') throw new MyriadError('UNSUPPORTED', 'the complex gels kernels take strided and list batches', 'b');
  if (batchCount(a) === 0) return;
  solve(dev, deviceDtype(a), a, b, r.info);
}

const workArgs = (w: StridedBatch<DeviceArray>): OperandArgs =>
  ({ kind: 'strided', pointer: w.data.ptr, offset: w.offset, stride: w.stride, ld: w.ld, rows: w.rows, cols: w.cols });

function solve(dev: GpuDevice, dtype: DType, a: StridedBatch<DeviceArray> | ListBatch<DeviceArray>, b: StridedBatch<DeviceArray> | ListBatch<DeviceArray>,
  info: DeviceArray): void {
  const count = batchCount(a);
  const [m, n, nrhs] = [a.rows, a.cols, b.cols];
  const tall = m >= n;
  const k = Math.min(m, n);
  const ctype = complexOf(dtype);
  const frame = Workspace.of(dev).frame();
  // Pairs per system: tau (k), B's top rows kept aside (tall: n nrhs), A^H (wide: n m).
  const [tauP, guardP, workP] = [k, tall ? n * nrhs : 0, tall ? 0 : n * m];
  const floats = frame.take(dtype, 2 * Math.max(1, count * (tauP + guardP + workP)), `complex gels's tau, B aside and A^H (${count} systems)`);
  const status = frame.take('int32', count, `complex gels's per-system states (${count} systems)`);
  const at = (start: number, pairs: number): DeviceArray => (pairs === 0 ? dev.view(floats, 0, 2) : dev.view(floats, 2 * start * count, 2 * pairs * count));
  const tau = stridedOf(at(0, tauP), k, 1, count, Math.max(1, k), k, ctype);
  const guard = stridedOf(at(tauP, guardP), tall ? n : 0, nrhs, count, Math.max(1, tall ? n : 0), guardP, ctype);
  const work = stridedOf(at(tauP + guardP, workP), tall ? 0 : n, tall ? 0 : m, count, Math.max(1, tall ? 0 : n), workP, ctype);
  const grouping = groupOperands(dev, [a, b], complexBytes(dtype));
  try {
    const [ao, bo] = grouping.groups[0]!.operands as [OperandArgs, OperandArgs];
    const check = (factor: OperandArgs): void => {
      const params = plannedOnce<ZgelsCheckParams>(dev, `zgels-check/${dtype}/${tall}/${factor.kind}/${bo.kind}`, () => ({ dtype, tall, factor: factor.kind, b: bo.kind }));
      const kernel = kernelFor(dev, 'zgels-check', params, () => zgelsCheckSource(params));
      kernel.launch({ grid: [Math.ceil(count / ZGELS_CHECK_THREADS), 1, 1], block: [ZGELS_CHECK_THREADS, 1, 1] }, [
        ...operandArgs(factor), ...operandArgs(workArgs(tau)), ...operandArgs(bo), ...operandArgs(workArgs(guard)),
        arg.ptr(info), ...indexArgs(null, count), arg.ptr(status), arg.i32(k), arg.i32(nrhs),
      ]);
    };
    const finish = (): void => {
      const params = plannedOnce<ZgelsFinishParams>(dev, `zgels-finish/${dtype}/${tall}/${bo.kind}`, () => ({ dtype, tall, b: bo.kind }));
      const kernel = kernelFor(dev, 'zgels-finish', params, () => zgelsFinishSource(params));
      const rows = Math.max(m, n);
      kernel.launch({ grid: [Math.max(1, Math.min(FINISH_MAX_BLOCKS, Math.ceil((count * rows * nrhs) / ZGELS_FINISH_THREADS))), 1, 1], block: [ZGELS_FINISH_THREADS, 1, 1] }, [
        ...operandArgs(bo), ...operandArgs(workArgs(guard)), arg.ptr(status), arg.i32(count), arg.i32(rows), arg.i32(nrhs), arg.i32(k),
      ]);
    };
    const conjTranspose = (from: OperandArgs, to: OperandArgs, rows: number, cols: number): void => {
      const params: ZconjTransposeParams = { dtype, a: from.kind, b: to.kind };
      const kernel = cachedKernel(dev, `zconj-transpose/${dtype}/${from.kind}/${to.kind}`, () => zconjTransposeSource(params));
      kernel.launch({ grid: [count, 1, 1], block: [ZGELS_MOVE_THREADS, 1, 1] }, [...operandArgs(from), ...operandArgs(to), arg.i32(count), arg.i32(rows), arg.i32(cols)]);
    };
    if (tall) {
      complexGeqrfCuda(dev, { a, tau, info });
      check(ao);
      complexOrmqrCuda(dev, { side: 'left', trans: 'C', a, tau, c: b });
      complexTrsmCuda(dev, { side: 'left', uplo: 'upper', transA: 'N', diag: 'nonunit', alpha: ONE, a: { ...a, rows: n, cols: n }, b: { ...b, rows: n } });
      finish();
    } else {
      const w = workArgs(work);
      conjTranspose(ao, w, m, n);
      complexGeqrfCuda(dev, { a: work, tau, info });
      // A receives the factors of A^H conjugate-transposed back, before the check may overwrite R.
      conjTranspose(w, ao, n, m);
      check(w);
      complexTrsmCuda(dev, { side: 'left', uplo: 'upper', transA: 'C', diag: 'nonunit', alpha: ONE, a: { ...work, rows: m, cols: m }, b: { ...b, rows: m } });
      finish();
      complexOrmqrCuda(dev, { side: 'left', trans: 'N', a: work, tau, c: b });
    }
  } finally {
    frame.end();
    release(dev, grouping);
  }
}
