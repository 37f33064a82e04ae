/**
 * The one place where GPU kernels register over the CPU reference (BLIS's context-init idea):
 * an operation listed here runs on the GPU; any other runs on the CPU reference with copies.
 * A duplicate registration is an error. A new family adds one line at the bottom.
 */
import type { Backend, OpName } from '../core/ops.js';
import { MyriadError } from '../core/errors.js';
import { gelsCovers, gelsCuda } from './kernels/gels/index.js';
import { gemmRouted } from './kernels/gemm/index.js';
import { getrfCuda } from './kernels/getrf/index.js';
import { gesvdCuda, jacobiCovers, syevCuda } from './kernels/jacobi/index.js';
import { ormqrCovers, ormqrCuda } from './kernels/ormqr/index.js';
import { potiCuda, potriCuda } from './kernels/poti/index.js';
import { geqrfCuda, orgqrCuda, qrCovers } from './kernels/qr/index.js';
import { potrfCuda } from './kernels/potrf/index.js';
import { gesvCuda, getrsCuda, posvCuda, potrsCuda } from './kernels/solve/index.js';
import { lauumCuda } from './kernels/lauum/index.js';
import { syrkCuda } from './kernels/syrk/index.js';
import { trmmCuda, trsmCuda } from './kernels/trsm/index.js';
import { trtriCuda } from './kernels/trtri/index.js';
import type { DeviceArray, GpuDevice } from './runtime/types.js';

/** The validated, column-major request of operation K whose storages are all device arrays. */
export type DeviceRequest<K extends OpName> = Parameters<Backend<DeviceArray, DeviceArray>[K]>[0];

/** A launcher of operation K. */
export type GpuOp<K extends OpName> = (dev: GpuDevice, request: DeviceRequest<K>) => void;

/** The request fields an operation writes (downloaded back into host arrays after the call): from the op specs. */
export { OUTPUTS } from '../core/op-specs.js';

const registry: { [K in OpName]?: GpuOp<K> } = {};
/** Requests a launcher takes, where it does not take every size (the rest run on the CPU reference). */
const coverage: { [K in OpName]?: (request: DeviceRequest<K>, dev: GpuDevice) => boolean } = {};

export function registerGpuOp<K extends OpName>(op: K, launcher: GpuOp<K>, covers?: (request: DeviceRequest<K>, dev: GpuDevice) => boolean): void {
  if (registry[op]) throw new MyriadError('INVALID_ARGUMENT', `a GPU kernel for ${op} is already registered`, 'op');
  registry[op] = launcher as (typeof registry)[K];
  if (covers) coverage[op] = covers as (typeof coverage)[K];
}

/** Whether `op`'s GPU kernel takes this request on `dev` (sizes it serves): false where it has none. */
export function gpuCovers(op: OpName, request: Record<string, unknown>, dev: GpuDevice): boolean {
  if (registry[op] === undefined) return false;
  const covers = coverage[op] as ((r: DeviceRequest<typeof op>, d: GpuDevice) => boolean) | undefined;
  return covers === undefined || covers(request as unknown as DeviceRequest<typeof op>, dev);
}

/** Whether operation `op` has a GPU kernel. */
export function hasGpuOp(op: OpName): boolean {
  return registry[op] !== undefined;
}

/**
 * Runs `op`'s launcher on a request the backends assembled by field name (they stage every
 * operation the same way, so they hold it as a record); false where `op` has no GPU kernel.
 * The request came through the public API's validation for `op`, which is what makes it a
 * DeviceRequest<op>: the one place that trusts it.
 */
export function runGpuOp(op: OpName, dev: GpuDevice, request: Record<string, unknown>): boolean {
  const launcher = registry[op] as GpuOp<typeof op> | undefined;
  if (launcher === undefined) return false;
  launcher(dev, request as unknown as DeviceRequest<typeof op>);
  return true;
}

registerGpuOp('gemm', gemmRouted);
registerGpuOp('potrf', potrfCuda);
registerGpuOp('potrs', potrsCuda);
registerGpuOp('posv', posvCuda);
registerGpuOp('getrf', getrfCuda);
registerGpuOp('getrs', getrsCuda);
registerGpuOp('gesv', gesvCuda);
registerGpuOp('trsm', trsmCuda);
registerGpuOp('trmm', trmmCuda);
registerGpuOp('syrk', syrkCuda);
registerGpuOp('lauum', lauumCuda);
registerGpuOp('syev', syevCuda, (r) => jacobiCovers(r.a));
registerGpuOp('gesvd', gesvdCuda, (r) => jacobiCovers(r.a));
registerGpuOp('trtri', trtriCuda);
registerGpuOp('potri', potriCuda);
registerGpuOp('poti', potiCuda);
registerGpuOp('geqrf', geqrfCuda, (r, dev) => qrCovers(r.a, dev));
registerGpuOp('orgqr', orgqrCuda, (r, dev) => qrCovers(r.a, dev));
registerGpuOp('ormqr', ormqrCuda, ormqrCovers);
registerGpuOp('gels', gelsCuda, gelsCovers);
