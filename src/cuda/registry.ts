/**
 * The one place where GPU kernels register over the CPU reference (BLIS's context-init idea):
 * an operation listed here runs on the GPU; any other runs on the CPU reference with copies.
 * A duplicate registration is an error.
 */
import type { GemmRequest, OpName } from '../core/ops.js';
import { MyriadError } from '../core/errors.js';
import { gemmCuda } from './kernels/gemm/index.js';
import { getrfCuda } from './kernels/getrf/launch.js';
import { potrfCuda } from './kernels/potrf/launch.js';
import { gesvCuda, getrsCuda, posvCuda, potrsCuda } from './kernels/solve/launch.js';
import { tsm2Cuda } from './kernels/tsm2/launch.js';
import type { DeviceArray, GpuDevice } from './runtime/types.js';

/** A launcher: a validated, column-major request whose storages are all device arrays. */
export type GpuOp = (dev: GpuDevice, request: never) => void;

/** The request fields an operation writes (downloaded back into host arrays after the call). */
export const OUTPUTS: Readonly<Record<OpName, readonly string[]>> = {
  gemm: ['c'], trsm: ['b'], trmm: ['b'], syrk: ['c'],
  potrf: ['a', 'info'], potrs: ['b', 'info'], posv: ['a', 'b', 'info'],
  getrf: ['a', 'ipiv', 'info'], getrs: ['b', 'info'], gesv: ['a', 'ipiv', 'b', 'info'],
  trtri: ['a', 'info'], lauum: ['a', 'info'], potri: ['a', 'info'],
};

const registry: Partial<Record<OpName, (dev: GpuDevice, request: Record<string, unknown>) => void>> = {};

export function registerGpuOp(op: OpName, launcher: GpuOp): void {
  if (registry[op]) throw new MyriadError('INVALID_ARGUMENT', `a GPU kernel for ${op} is already registered`, 'op');
  registry[op] = launcher as unknown as (dev: GpuDevice, request: Record<string, unknown>) => void;
}

/** gemm: a batch of one tall-and-skinny product goes to TSM2 (which declines other shapes). */
function gemm(dev: GpuDevice, r: GemmRequest<DeviceArray>): void {
  if (!tsm2Cuda(dev, r)) gemmCuda(dev, r);
}

registerGpuOp('gemm', gemm as GpuOp);
registerGpuOp('potrf', potrfCuda as GpuOp);
registerGpuOp('potrs', potrsCuda as GpuOp);
registerGpuOp('posv', posvCuda as GpuOp);
registerGpuOp('getrf', getrfCuda as GpuOp);
registerGpuOp('getrs', getrsCuda as GpuOp);
registerGpuOp('gesv', gesvCuda as GpuOp);

export const GPU_OPS: Readonly<typeof registry> = registry;
