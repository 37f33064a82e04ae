/**
 * syev on cusolverDnXsyevBatched (cuSOLVER 11.7, CUDA 12.6 on), which takes densely packed
 * matrices: each group of one order is packed into scratch (the `uplo` triangle mirrored, so the
 * other triangle is never read), solved there, and unpacked to the batch's layout: the
 * eigenvectors over A (jobz 'vectors'; 'values' leaves A as it was), the ascending eigenvalues into
 * w. A matrix holding NaN or Inf in its triangle is solved as zeros and reported as the own routes
 * report it: info n + 2, w (and A with 'vectors') NaN; a matrix the vendor did not converge on:
 * info n + 1.
 */
import { batchCount, type Batch } from '../../core/batch.js';
import { complexOf } from '../../core/dtype-table.js';
import type { Uplo } from '../../core/enums.js';
import type { ComplexRequests, Requests } from '../../core/op-specs.js';
import { Workspace } from '../runtime/workspace.js';
import type { DeviceArray, GpuDevice } from '../runtime/types.js';
import { launchGroups } from './groups.js';
import { launchGetrfScatter, launchSyevPack, launchSyevUnpack, type ScanElement } from './kernels.js';
import { vendorSolver } from './native.js';
import { deviceDtype, fitsInt32, squareOrder, vendorCard, vendorServes } from './rules.js';

type SyevRequest = Requests<DeviceArray, DeviceArray>['syev'];
type HeevRequest = ComplexRequests<DeviceArray, DeviceArray>['heev'];

export function cusolverSyevCovers(r: SyevRequest, dev: GpuDevice): boolean {
  return xsyevCovers(r.a, r.jobz, dev, 'real');
}

/** Complex heev: the card's rules for 'syev' on the complex type. */
export function cusolverHeevCovers(r: HeevRequest, dev: GpuDevice): boolean {
  return xsyevCovers(r.a, r.jobz, dev, 'complex');
}

function xsyevCovers(a: Batch<DeviceArray>, jobz: 'vectors' | 'values', dev: GpuDevice, element: ScanElement): boolean {
  if (!vendorCard(dev)) return false;
  const n = squareOrder(a);
  if (n === undefined || n === 0) return false;
  const dtype = element === 'complex' ? complexOf(deviceDtype(a)) : deviceDtype(a);
  return vendorServes(dev, { op: 'syev', route: 'cusolver', dtype, n, count: batchCount(a), jobz }, 'syevBatched') && fitsInt32(a);
}

export function cusolverSyev(dev: GpuDevice, r: SyevRequest): void {
  xsyev(dev, r, 'real');
}

export function cusolverHeev(dev: GpuDevice, r: HeevRequest): void {
  xsyev(dev, r, 'complex');
}

/** The route's body for real (syev) and complex (heev) requests: pack, solve, unpack per launch group. */
function xsyev(dev: GpuDevice, r: { a: Batch<DeviceArray>; w: Batch<DeviceArray>; info: DeviceArray; jobz: 'vectors' | 'values'; uplo: Uplo }, element: ScanElement): void {
  const count = batchCount(r.a);
  if (count === 0) return;
  const dtype = deviceDtype(r.a);
  const parts = element === 'complex' ? 2 : 1;
  const vectors = r.jobz === 'vectors';
  const solver = vendorSolver(dev);
  const frame = Workspace.of(dev).frame();
  try {
    for (const g of launchGroups(dev, frame, [r.a, r.w], ['a', 'w'])) {
      const n = g.shapes[0]!.rows, size = g.members.length;
      const vendor = frame.take('int32', size, 'syev: the vendor info');
      dev.fill(vendor, 0);
      if (n === 0) {
        // Nothing to solve: info 0 (the scatter of getrf's info, with no pivots).
        launchGetrfScatter(dev, vendor, r.info, g.index, vendor, vendor, size, 0, 0);
        continue;
      }
      const a = frame.take(dtype, parts * size * n * n, 'syev: packed matrices');
      const w = frame.take(dtype, size * n, 'syev: eigenvalues');
      const flags = frame.take('int32', size, 'syev: NaN or Inf per matrix');
      dev.fill(flags, 0);
      launchSyevPack(dev, dtype, r.uplo, g.operands[0]!, n, a, flags, size, element);
      if (solver !== undefined) {
        const complex = element === 'complex';
        const bytes = solver.syevBatchedWorkAt(dtype, vectors, n, a.ptr, w.ptr, size, complex);
        const work = frame.take('float64', Math.max(1, Math.ceil(bytes / 8)), 'syev: the vendor workspace');
        solver.syevBatchedAt(dtype, vectors, n, a.ptr, w.ptr, work.ptr, bytes, vendor.ptr, size, complex);
      }
      launchSyevUnpack(dev, dtype, g.operands[0]!, g.operands[1]!, a, w, flags, vendor, r.info, g.index, n, size, vectors, element);
    }
  } finally {
    frame.end();
  }
}
