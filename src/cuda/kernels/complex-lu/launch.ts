/**
 * The complex LU launchers (zgetrf, zgetrs, zgesv on complex128 and complex64): one launch per call
 * on uniform batches with n <= 32. The device arrays hold the parts' dtype; the batches' rows, ld,
 * stride and offset count pairs, as the kernels' `real2` pointers do. A list batch becomes the
 * pointer form (an uploaded table of the matrices' addresses, freed once the launch has run).
 */
import { batchCount, type Batch } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import { isDType } from '../../../core/dtype-table.js';
import { MyriadError } from '../../../core/errors.js';
import type { ComplexGetrsRequest, GesvRequest, GetrfRequest } from '../../../core/op-specs.js';
import { arg, type DeviceArray, type GpuDevice, type KernelArg } from '../../runtime/types.js';
import type { OperandKind } from '../common/batch-pointer.js';
import { complexBytes } from '../common/complex.js';
import { zeroInfo } from '../common/info-zero.js';
import { cachedKernel } from '../common/kernel-cache.js';
import { memberAddresses, memberFields } from '../common/members.js';
import { indexArgs, operandArgs } from '../common/operands.js';
import { complexGesvLayout, complexGesvSource, complexGetrfLayout, complexGetrfSource } from './generate-factor.js';
import { complexGetrsLayout, complexGetrsSource } from './generate-solve.js';
import { complexGetrfCovers, complexSolveCovers, planComplexGesv, planComplexGetrf, planComplexGetrs } from './plan.js';
import { complexSlotGrid } from './slots.js';

/** One operand as the kernels' four arguments, and its form. */
interface Operand { readonly kind: OperandKind; readonly args: KernelArg[] }

/** The parts' dtype of a complex device batch (float64 for complex128, float32 for complex64). */
function partsDtype(b: Batch<DeviceArray>, name: string): DType {
  const data = b.kind === 'strided' ? b.data : b.kind === 'list' ? b.matrices[0]?.data : undefined;
  const dtype = data?.dtype;
  if (dtype === undefined || !isDType(dtype)) throw new MyriadError('DTYPE', `complex LU needs float64 or float32 device memory, got ${String(dtype)}`, `${name}.data`);
  return dtype;
}

/** Strided batches pass through; a list's matrices become a pointer table (kept in `uploads` until the launch has run). */
function operandOf(dev: GpuDevice, b: Batch<DeviceArray>, count: number, bytes: number, uploads: DeviceArray[]): Operand {
  if (b.kind === 'strided') return { kind: 'strided', args: operandArgs({ pointer: b.data.ptr, offset: b.offset, stride: b.stride, ld: b.ld }) };
  const f = memberFields(b);
  const table = dev.upload(memberAddresses(f, Array.from({ length: count }, (_, i) => i), bytes));
  uploads.push(table);
  return { kind: 'pointer', args: operandArgs({ pointer: table.ptr, offset: 0, stride: 0, ld: f.ld[0]! }) };
}

/** Runs `body` with the call's uploads freed after its launches have run. */
function withUploads(dev: GpuDevice, body: (uploads: DeviceArray[]) => void): void {
  const uploads: DeviceArray[] = [];
  try {
    body(uploads);
  } finally {
    if (uploads.length > 0) {
      dev.synchronize();
      for (const u of uploads) u.dispose();
    }
  }
}

/** The uniform shape of a batch the covers accepted (anything else is the caller's error). */
function uniform(b: Batch<DeviceArray>, name: string, takes: boolean): { rows: number; cols: number } {
  if (!takes || b.kind === 'variable') throw new MyriadError('UNSUPPORTED', 'the complex LU kernels take strided and list batches of order at most 32', name);
  return { rows: b.rows, cols: b.cols };
}

function launchGetrf(dev: GpuDevice, dtype: DType, a: Operand, rows: number, cols: number, r: GetrfRequest<DeviceArray, DeviceArray>, count: number): void {
  const p = planComplexGetrf(dtype, rows, cols, a.kind);
  const k = cachedKernel(dev, `zgetrf-small/${JSON.stringify(p)}`, () => complexGetrfSource(p));
  k.launch({ grid: [complexSlotGrid(complexGetrfLayout(p), count), 1, 1], block: [p.warps * 32, 1, 1] },
    [...a.args, arg.ptr(r.ipiv), arg.i32(r.pivotStride), arg.ptr(r.info), ...indexArgs(null, count)]);
}

/** zgetrf: P A = L U in place, 0-based pivots, info = k + 1 at the first exactly zero pivot. */
export function complexGetrfCuda(dev: GpuDevice, r: GetrfRequest<DeviceArray, DeviceArray>): void {
  const count = batchCount(r.a);
  if (count === 0) return;
  const { rows, cols } = uniform(r.a, 'a', complexGetrfCovers(r.a));
  const dtype = partsDtype(r.a, 'a');
  if (rows === 0 || cols === 0) return zeroInfo(dev, r.info, null, count);
  withUploads(dev, (uploads) => launchGetrf(dev, dtype, operandOf(dev, r.a, count, complexBytes(dtype), uploads), rows, cols, r, count));
}

/** zgetrs: op(A) X = B ('N', 'T', 'C') with getrf's factors and pivots; info = 0. */
export function complexGetrsCuda(dev: GpuDevice, r: ComplexGetrsRequest<DeviceArray, DeviceArray>): void {
  const count = batchCount(r.a);
  if (count === 0) return;
  const { rows: n } = uniform(r.a, 'a', complexSolveCovers(r.a, r.b));
  const { cols: nrhs } = uniform(r.b, 'b', true);
  const dtype = partsDtype(r.a, 'a');
  if (n === 0 || nrhs === 0) return zeroInfo(dev, r.info, null, count);
  withUploads(dev, (uploads) => {
    const bytes = complexBytes(dtype);
    const a = operandOf(dev, r.a, count, bytes, uploads), b = operandOf(dev, r.b, count, bytes, uploads);
    const p = planComplexGetrs(dtype, n, nrhs, r.trans, a.kind, b.kind);
    const k = cachedKernel(dev, `zgetrs-small/${JSON.stringify(p)}`, () => complexGetrsSource(p));
    k.launch({ grid: [complexSlotGrid(complexGetrsLayout(p), count), 1, 1], block: [p.warps * 32, 1, 1] },
      [...a.args, ...b.args, arg.ptr(r.ipiv), arg.i32(r.pivotStride), arg.ptr(r.info), ...indexArgs(null, count), arg.i32(nrhs)]);
  });
}

/** zgesv: getrf and the solve in one kernel; a matrix with info > 0 keeps its B (LAPACK's gesv). */
export function complexGesvCuda(dev: GpuDevice, r: GesvRequest<DeviceArray, DeviceArray>): void {
  const count = batchCount(r.a);
  if (count === 0) return;
  const { rows: n } = uniform(r.a, 'a', complexSolveCovers(r.a, r.b));
  const { cols: nrhs } = uniform(r.b, 'b', true);
  const dtype = partsDtype(r.a, 'a');
  if (n === 0) return zeroInfo(dev, r.info, null, count);
  withUploads(dev, (uploads) => {
    const bytes = complexBytes(dtype);
    const a = operandOf(dev, r.a, count, bytes, uploads);
    // No right-hand sides: the factorisation alone (its kernel writes A, ipiv and info as gesv's would).
    if (nrhs === 0) return launchGetrf(dev, dtype, a, n, n, r, count);
    const b = operandOf(dev, r.b, count, bytes, uploads);
    const p = planComplexGesv(dtype, n, nrhs, a.kind, b.kind);
    const k = cachedKernel(dev, `zgesv-small/${JSON.stringify(p)}`, () => complexGesvSource(p));
    k.launch({ grid: [complexSlotGrid(complexGesvLayout(p), count), 1, 1], block: [p.warps * 32, 1, 1] },
      [...a.args, ...b.args, arg.ptr(r.ipiv), arg.i32(r.pivotStride), arg.ptr(r.info), ...indexArgs(null, count), arg.i32(nrhs)]);
  });
}
