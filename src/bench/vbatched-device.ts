/**
 * The device form's column of `myriad bench <op> --vbatched a|b` (bench/vbatched.ts): the same
 * members as the class route's request, described by device arrays (`variableDevice`: int32 rows and
 * leading dimensions, int64 addresses; square members, so no cols), uploaded once here, outside the
 * timing, as the vendor's address arrays are built before its timing. The timed call is the API call
 * of the context over the device (`ctx[op](...)`: validation, the backend's checks, the tables' zeroing
 * in the device workspace, the classification kernel, the class kernels).
 */
import type { Context } from '../api/context.js';
import {
  prepareGemmDeviceVariable, prepareGetrfDeviceVariable, prepareLuSolveDeviceVariable, preparePotrfDeviceVariable, prepareSolveDeviceVariable, prepareSyrkDeviceVariable,
  prepareTrsmDeviceVariable, prepareTrtriDeviceVariable,
} from '../api/prepare-vdevice.js';
import { variableDevice, type DeviceVariableBatch, type DeviceVariableRequest } from '../core/device-batch.js';
import type { DType } from '../core/dtype.js';
import { storageInfo } from '../core/dtype-table.js';
import type { IntStorage } from '../core/storage.js';
import type { DeviceArray, GpuDevice } from '../cuda/runtime/types.js';
import type { VbatchedDeviceOp } from './vbatched.js';

export interface DeviceFormCall {
  /** One API call on the device form. */
  readonly run: () => void;
  /** The validated request the route runs (the API validates the same arguments on every call). */
  readonly request: DeviceVariableRequest;
  /** The device arrays made for it (the caller frees them). */
  readonly arrays: readonly DeviceArray[];
}

/**
 * The device form of `op` over square members of `sizes` packed in `data` (the class route's
 * request's arrays, the same members at the same addresses), info `info`.
 */
export function deviceFormCall(ctx: Context, dev: GpuDevice, op: VbatchedDeviceOp, sizes: readonly number[], data: readonly DeviceArray[], info: DeviceArray, dtype: DType): DeviceFormCall {
  const count = sizes.length;
  const max = sizes.reduce((x, n) => Math.max(x, n), 0);
  const arrays: DeviceArray[] = [];
  const up = <A extends Int32Array | BigInt64Array>(host: A): DeviceArray => { const d = dev.upload(host); arrays.push(d); return d; };
  try {
    const rows = up(Int32Array.from(sizes));
    const ld = up(Int32Array.from(sizes, (n) => Math.max(1, n)));
    const bytes = BigInt(storageInfo(dtype).bytes);
    const batch = (d: DeviceArray): DeviceVariableBatch => {
      const pointers = new BigInt64Array(count);
      let at = 0n;
      sizes.forEach((n, i) => { pointers[i] = d.ptr + at * bytes; at += BigInt(n * n); });
      return variableDevice({ count, rows, ld, pointers: up(pointers), maxRows: max, dtype });
    };
    const ints = (n: number): IntStorage => { const d = dev.alloc('int32', Math.max(1, n)); arrays.push(d); return d; };
    const args: Record<string, unknown> = op === 'gemm' ? { transA: 'N', transB: 'N', alpha: 1, beta: 1, a: batch(data[0]!), b: batch(data[1]!), c: batch(data[2]!), info }
      : op === 'potrf' ? { uplo: 'lower', a: batch(data[0]!), info }
      : op === 'getrf' ? { a: batch(data[0]!), ipiv: ints(count * max), info }
      : op === 'trsm' ? { side: 'left', uplo: 'lower', transA: 'N', diag: 'nonunit', alpha: 1, a: batch(data[0]!), b: batch(data[1]!), info }
      : op === 'gesv' ? { a: batch(data[0]!), b: batch(data[1]!), ipiv: ints(count * max), info }
      : op === 'syrk' ? { uplo: 'lower', trans: 'N', alpha: 1, beta: 1, a: batch(data[0]!), c: batch(data[1]!), info }
      : op === 'trtri' ? { uplo: 'lower', diag: 'nonunit', a: batch(data[0]!), info }
      : { uplo: 'lower', a: batch(data[0]!), b: batch(data[1]!), info };
    // The request the route runs (the API validates the same arguments on every timed call).
    const request: DeviceVariableRequest = op === 'gemm' ? prepareGemmDeviceVariable(args)
      : op === 'potrf' ? preparePotrfDeviceVariable(args, ints)
      : op === 'getrf' ? prepareGetrfDeviceVariable(args, ints)
      : op === 'trsm' ? prepareTrsmDeviceVariable(args)
      : op === 'gesv' ? prepareLuSolveDeviceVariable(args, op, ints)
      : op === 'syrk' ? prepareSyrkDeviceVariable(args)
      : op === 'trtri' ? prepareTrtriDeviceVariable(args, ints)
      : prepareSolveDeviceVariable(args, op, ints);
    const call = ctx[op] as unknown as (a: Record<string, unknown>) => unknown;
    return { run: () => { call.call(ctx, args); }, request, arrays };
  } catch (e) {
    for (const a of arrays) a.dispose();
    throw e;
  }
}
