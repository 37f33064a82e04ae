/**
 * The complex LU launchers' operands: the parts' dtype of a device batch, a batch as a kernel's
 * four operand arguments (strided as it is; a list's matrices as one uploaded table of their
 * addresses, the pointer form: the API's list batches share rows, cols and ld), and the call's
 * uploads freed once its launches have run.
 */
import type { Batch } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import { isDType } from '../../../core/dtype-table.js';
import { MyriadError } from '../../../core/errors.js';
import type { DeviceArray, GpuDevice, KernelArg } from '../../runtime/types.js';
import type { OperandKind } from '../common/batch-pointer.js';
import { memberAddresses, memberFields } from '../common/members.js';
import { operandArgs } from '../common/operands.js';

/** One operand as the kernels' four arguments, and its form. */
export interface Operand {
  readonly kind: OperandKind;
  readonly args: KernelArg[];
  /** The same operand with every matrix's block at (r0, c0): the arguments of a kernel that takes a sub-block. */
  readonly at: (r0: number, c0: number) => KernelArg[];
}

/** The parts' dtype of a complex device batch (float64 for complex128, float32 for complex64). */
export function partsDtype(b: Batch<DeviceArray>, name: string): DType {
  const data = b.kind === 'strided' ? b.data : b.kind === 'list' ? b.matrices[0]?.data : undefined;
  const dtype = data?.dtype;
  if (dtype === undefined || !isDType(dtype)) throw new MyriadError('DTYPE', `complex LU needs float64 or float32 device memory, got ${String(dtype)}`, `${name}.data`);
  return dtype;
}

/** Strided batches pass through; a list's matrices become a pointer table (kept in `uploads` until the launches have run). */
export function operandOf(dev: GpuDevice, b: Batch<DeviceArray>, count: number, bytes: number, uploads: DeviceArray[]): Operand {
  if (b.kind === 'strided') {
    const at = (r0: number, c0: number): KernelArg[] => operandArgs({ pointer: b.data.ptr, offset: b.offset + r0 + c0 * b.ld, stride: b.stride, ld: b.ld });
    return { kind: 'strided', args: at(0, 0), at };
  }
  const f = memberFields(b);
  const table = dev.upload(memberAddresses(f, Array.from({ length: count }, (_, i) => i), bytes));
  uploads.push(table);
  const ld = f.ld[0]!;
  // The pointer form's offset is added to every matrix's address: a sub-block is one more offset.
  const at = (r0: number, c0: number): KernelArg[] => operandArgs({ pointer: table.ptr, offset: r0 + c0 * ld, stride: 0, ld });
  return { kind: 'pointer', args: at(0, 0), at };
}

/** Runs `body` with the call's uploads freed after its launches have run. */
export function withUploads(dev: GpuDevice, body: (uploads: DeviceArray[]) => void): void {
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
