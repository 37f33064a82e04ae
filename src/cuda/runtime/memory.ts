/**
 * DeviceArray: typed device memory with explicit dispose() and a FinalizationRegistry safety
 * net (in DeviceContext). Every length used by a native copy is checked here first: a wrong
 * length through FFI corrupts memory or kills the process instead of throwing.
 */
import { typedArrayName } from '../../core/dtype.js';
import { storageInfo, storageOfArrayName } from '../../core/dtype-table.js';
import { MyriadError } from '../../core/errors.js';
import type { Allocation, DeviceContext } from './context.js';
import type { DeviceArray, DeviceDType, HostArray } from './types.js';

export const ELEMENT_BYTES: Readonly<Record<DeviceDType, number>> = {
  float64: storageInfo('float64').bytes, float32: storageInfo('float32').bytes, int32: storageInfo('int32').bytes, int64: storageInfo('int64').bytes,
};

export class CudaDeviceArray implements DeviceArray {
  readonly kind = 'device' as const;
  readonly device: number;
  readonly byteLength: number;
  private readonly allocation: Allocation;
  /** Bytes from the allocation's start to element 0 (non-zero for a view). */
  private readonly byteOffset: number;
  /** True for a view: it borrows its parent's memory and its dispose() frees nothing. */
  readonly isView: boolean;

  constructor(
    readonly context: DeviceContext,
    readonly dtype: DeviceDType,
    readonly length: number,
    parent?: { allocation: Allocation; byteOffset: number },
  ) {
    checkLength(length, 'length');
    this.device = context.ordinal;
    this.byteLength = length * ELEMENT_BYTES[dtype];
    this.allocation = parent?.allocation ?? context.allocate(this.byteLength, this);
    this.byteOffset = parent?.byteOffset ?? 0;
    this.isView = parent !== undefined;
  }

  get disposed(): boolean {
    return this.allocation.freed;
  }

  /** The device pointer; throws DISPOSED after dispose() (or after the device's dispose()). */
  get ptr(): bigint {
    if (this.allocation.freed) throw new MyriadError('DISPOSED', `device array (${this.dtype}[${this.length}]) used after dispose()`);
    return this.allocation.ptr + BigInt(this.byteOffset);
  }

  /** Frees the memory now (a view frees nothing). Work already enqueued on the stream that reads it must have finished (the device's synchronize()). */
  dispose(): void {
    if (!this.isView) this.context.free(this.allocation);
  }

  /**
   * Elements [start, start + length) as an array of their own, sharing this memory (valid while
   * this array lives); with `dtype`, `length` elements of that type from element `start` of this one.
   */
  view(start: number, length: number, dtype: DeviceDType = this.dtype): CudaDeviceArray {
    checkLength(start, 'start');
    checkLength(length, 'length');
    const from = start * ELEMENT_BYTES[this.dtype];
    const bytes = length * ELEMENT_BYTES[dtype];
    if (from + bytes > this.byteLength) throw new MyriadError('BOUNDS', `view of ${bytes} bytes from byte ${from} of ${this.byteLength}`, 'length');
    if ((this.byteOffset + from) % ELEMENT_BYTES[dtype] !== 0) throw new MyriadError('LAYOUT', `a ${dtype} view must start at a multiple of ${ELEMENT_BYTES[dtype]} bytes`, 'start');
    return new CudaDeviceArray(this.context, dtype, length, { allocation: this.allocation, byteOffset: this.byteOffset + from });
  }

  /** Byte address of element `index` (bounds are checked by the caller). */
  addressOf(index: number): bigint {
    return this.ptr + BigInt(index * ELEMENT_BYTES[this.dtype]);
  }
}

export function checkLength(n: number, argument: string): void {
  if (!Number.isSafeInteger(n) || n < 0) throw new MyriadError('INVALID_ARGUMENT', `must be a non-negative integer, got ${n}`, argument);
}

/** The device dtype of a host typed array (DTYPE error for anything else). */
export function hostDType(host: HostArray): DeviceDType {
  // By the array's internal type, so arrays from another realm (vm, worker) are recognised.
  const dtype = storageOfArrayName(typedArrayName(host));
  if (dtype !== undefined) return dtype;
  throw new MyriadError('DTYPE', 'expected a Float64Array, Float32Array, Int32Array or BigInt64Array', 'host');
}

/** A new host array of `dtype` and `length`. */
export function allocateHost(dtype: DeviceDType, length: number): HostArray {
  return storageInfo(dtype).create(length);
}

/** Checks that `array` is live memory of `context`'s device (not another device's, not a foreign implementation). */
export function ownArray(context: DeviceContext, array: DeviceArray, argument: string): CudaDeviceArray {
  if (!(array instanceof CudaDeviceArray) || array.context !== context) {
    throw new MyriadError('INVALID_ARGUMENT', `not an array of this device (device ${context.ordinal})`, argument);
  }
  if (array.disposed) throw new MyriadError('DISPOSED', 'device array used after dispose()', argument);
  return array;
}
