/**
 * The complex LU launchers (zgetrf, zgetrs, zgesv on complex128 and complex64) on uniform batches
 * (strided and list): one launch per call where the register designs take the order (<= 32),
 * else the blocked LU's steps (launch-blocked.ts). The device arrays hold the parts' dtype; the
 * batches' rows, ld, stride and offset count pairs, as the kernels' `real2` pointers do. A list
 * batch becomes the pointer form (an uploaded table of the matrices' addresses, freed once the
 * launches have run).
 */
import { batchCount, type Batch } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import { MyriadError } from '../../../core/errors.js';
import type { ComplexGetrsRequest, GesvRequest, GetrfRequest } from '../../../core/op-specs.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import type { BlockBatch } from '../common/sub-blocks.js';
import { complexBytes } from '../common/complex.js';
import { zeroInfo } from '../common/info-zero.js';
import { cachedKernel } from '../common/kernel-cache.js';
import { indexArgs } from '../common/operands.js';
import { complexGesvBlocked, complexGetrfBlocked, complexGetrsBlocked } from './launch-blocked.js';
import { operandOf, partsDtype, withUploads, type Operand } from './operand.js';
import { complexGesvLayout, complexGesvSource, complexGetrfLayout, complexGetrfSource } from './generate-factor.js';
import { complexGetrsLayout, complexGetrsSource } from './generate-solve.js';
import { COMPLEX_LU_MAX, complexGetrfCovers, complexSolveCovers, planComplexGesv, planComplexGetrf, planComplexGetrs, type ComplexLuForce } from './plan.js';
import { complexSlotGrid } from './slots.js';

/** A batch the covers accepted, as a uniform one (anything else is the caller's error). */
function uniform(b: Batch<DeviceArray>, name: string, takes: boolean): BlockBatch<DeviceArray> {
  if (!takes || b.kind === 'variable') throw new MyriadError('UNSUPPORTED', 'the complex LU kernels take strided and list batches', name);
  return b;
}

/** Whether the register designs take an order (else the blocked steps). */
const small = (rows: number, cols: number): boolean => rows <= COMPLEX_LU_MAX && cols <= COMPLEX_LU_MAX;

/** Options of the getrf and gesv launchers: a design forced for tests, benchmarks and the probe (orders <= 32). */
export interface ComplexLuOptions {
  readonly force?: ComplexLuForce;
}

function launchGetrf(dev: GpuDevice, dtype: DType, a: Operand, rows: number, cols: number, r: GetrfRequest<DeviceArray, DeviceArray>, count: number, force: ComplexLuForce | undefined): void {
  const p = planComplexGetrf(dtype, rows, cols, a.kind, force);
  const k = cachedKernel(dev, `zgetrf-small/${JSON.stringify(p)}`, () => complexGetrfSource(p));
  k.launch({ grid: [complexSlotGrid(complexGetrfLayout(p), count), 1, 1], block: [p.warps * 32, 1, 1] },
    [...a.args, arg.ptr(r.ipiv), arg.i32(r.pivotStride), arg.ptr(r.info), ...indexArgs(null, count)]);
}

/** zgetrf: P A = L U in place, 0-based pivots, info = k + 1 at the first exactly zero pivot. */
export function complexGetrfCuda(dev: GpuDevice, r: GetrfRequest<DeviceArray, DeviceArray>, options: ComplexLuOptions = {}): void {
  const count = batchCount(r.a);
  if (count === 0) return;
  const a = uniform(r.a, 'a', complexGetrfCovers(r.a));
  const { rows, cols } = a;
  const dtype = partsDtype(r.a, 'a');
  if (rows === 0 || cols === 0) return zeroInfo(dev, r.info, null, count);
  withUploads(dev, (uploads) => {
    if (small(rows, cols)) launchGetrf(dev, dtype, operandOf(dev, a, count, complexBytes(dtype), uploads), rows, cols, r, count, options.force);
    else complexGetrfBlocked(dev, dtype, a, r, count, uploads);
  });
}

/** zgetrs: op(A) X = B ('N', 'T', 'C') with getrf's factors and pivots; info = 0. */
export function complexGetrsCuda(dev: GpuDevice, r: ComplexGetrsRequest<DeviceArray, DeviceArray>): void {
  const count = batchCount(r.a);
  if (count === 0) return;
  const ua = uniform(r.a, 'a', complexSolveCovers(r.a, r.b));
  const ub = uniform(r.b, 'b', true);
  const n = ua.rows, nrhs = ub.cols;
  const dtype = partsDtype(r.a, 'a');
  if (n === 0 || nrhs === 0) return zeroInfo(dev, r.info, null, count);
  if (!small(n, n)) {
    zeroInfo(dev, r.info, null, count);
    return withUploads(dev, (uploads) => complexGetrsBlocked(dev, dtype, r.trans, ua, ub, r, count, uploads));
  }
  withUploads(dev, (uploads) => {
    const bytes = complexBytes(dtype);
    const a = operandOf(dev, r.a, count, bytes, uploads), b = operandOf(dev, r.b, count, bytes, uploads);
    const p = planComplexGetrs(dtype, n, nrhs, r.trans, a.kind, b.kind);
    const k = cachedKernel(dev, `zgetrs-small/${JSON.stringify(p)}`, () => complexGetrsSource(p));
    k.launch({ grid: [complexSlotGrid(complexGetrsLayout(p), count), 1, 1], block: [p.warps * 32, 1, 1] },
      [...a.args, ...b.args, arg.ptr(r.ipiv), arg.i32(r.pivotStride), arg.ptr(r.info), ...indexArgs(null, count), arg.i32(nrhs)]);
  });
}

/** zgesv: getrf and the solve in one kernel (n <= 32; above, getrf's steps and getrs's); a matrix with info > 0 keeps its B (LAPACK's gesv). */
export function complexGesvCuda(dev: GpuDevice, r: GesvRequest<DeviceArray, DeviceArray>, options: ComplexLuOptions = {}): void {
  const count = batchCount(r.a);
  if (count === 0) return;
  const ua = uniform(r.a, 'a', complexSolveCovers(r.a, r.b));
  const ub = uniform(r.b, 'b', true);
  const n = ua.rows, nrhs = ub.cols;
  const dtype = partsDtype(r.a, 'a');
  if (n === 0) return zeroInfo(dev, r.info, null, count);
  if (!small(n, n)) return withUploads(dev, (uploads) => complexGesvBlocked(dev, dtype, ua, ub, r, count, uploads));
  withUploads(dev, (uploads) => {
    const bytes = complexBytes(dtype);
    const a = operandOf(dev, r.a, count, bytes, uploads);
    // No right-hand sides: the factorisation alone (its kernel writes A, ipiv and info as gesv's would).
    if (nrhs === 0) return launchGetrf(dev, dtype, a, n, n, r, count, options.force);
    const b = operandOf(dev, r.b, count, bytes, uploads);
    const p = planComplexGesv(dtype, n, nrhs, a.kind, b.kind, options.force);
    const k = cachedKernel(dev, `zgesv-small/${JSON.stringify(p)}`, () => complexGesvSource(p));
    k.launch({ grid: [complexSlotGrid(complexGesvLayout(p), count), 1, 1], block: [p.warps * 32, 1, 1] },
      [...a.args, ...b.args, arg.ptr(r.ipiv), arg.i32(r.pivotStride), arg.ptr(r.info), ...indexArgs(null, count), arg.i32(nrhs)]);
  });
}
