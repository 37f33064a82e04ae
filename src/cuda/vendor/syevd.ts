/**
 * syev beyond the own designs' range on cuSOLVER's dense divide and conquer (cusolverDn?syevd), one
 * matrix per call: a capability route, not a speed rule. The router puts it after the own
 * candidates, so it takes what none of them covers (real syev of order above 512, or a variable
 * batch with such a member) on any card where libcusolver loads; where it does not, the CPU
 * reference stays the fallback. Forced by name ('cusolver-syevd') it runs any order.
 *
 * One matrix per call, not cusolverDnXsyevBatched: above 512 one matrix is O(n^3) work that
 * syevd spreads over the whole GPU (its reduction and back-transformation are GEMM-rich), so the
 * loop's cost per call (tens of microseconds) is small beside it, and the batched routine's gain,
 * many small matrices a launch, is where the card's table (the 'cusolver' candidate) measured it.
 *
 * Each chunk of a launch group is packed into dense scratch by syev's pack kernel (the `uplo`
 * triangle mirrored, so the other triangle is never read, and A is left alone where only values are
 * asked; NaN or Inf written as 0 and the matrix flagged), solved there, and unpacked by syev's
 * unpack kernel: the eigenvectors over A (jobz 'vectors'), the ascending eigenvalues into w, info
 * 0, n + 1 (not converged) or n + 2 (NaN or Inf: w, and A with vectors, NaN), as the own routes.
 */
import { batchCount, matrixAt, type Batch } from '../../core/batch.js';
import { dtypeInfo } from '../../core/dtype-table.js';
import type { Requests } from '../../core/op-specs.js';
import { Workspace } from '../runtime/workspace.js';
import type { DeviceArray, GpuDevice } from '../runtime/types.js';
import { denseChunks, groupChunk, launchGroups } from './groups.js';
import { launchGetrfScatter, launchSyevPack, launchSyevUnpack } from './kernels.js';
import { vendorSolver, vendorUsable } from './native.js';
import { deviceDtype, fitsInt32 } from './rules.js';

type SyevRequest = Requests<DeviceArray, DeviceArray>['syev'];

/** The largest dense scratch matrix (elements) the vendor's int sizes and workspace counts address. */
const INT32_ELEMENTS = 2 ** 31 - 1;

/**
 * Whether the dense route can take `a`'s matrices: a non-empty batch whose every matrix, and its
 * dense copy, count in the vendor's 32-bit integers (pure: the library's presence is the caller's).
 */
export function syevdTakes(a: Batch<DeviceArray>): boolean {
  const count = batchCount(a);
  if (count === 0 || !fitsInt32(a)) return false;
  for (let i = 0; i < count; i++) {
    const n = matrixAt(a, i).rows;
    if (n * n > INT32_ELEMENTS) return false;
    if (a.kind !== 'variable') break;
  }
  return true;
}

/**
 * The route's `covers`: libcusolver loads on this device, `syevdTakes`, and the library sizes the
 * workspace of every order in the batch (its lwork is an int: on CUDA 13.0 syevd refuses from order
 * 23155, a matrix the card holds; such a call stays on the CPU reference rather than fail).
 */
export function cusolverSyevdCovers(r: SyevRequest, dev: GpuDevice): boolean {
  if (!vendorUsable(dev, 'cusolver') || !syevdTakes(r.a)) return false;
  const solver = vendorSolver(dev);
  if (solver === undefined) return true;   // a planning device: nothing runs
  const dtype = deviceDtype(r.a), vectors = r.jobz === 'vectors', count = batchCount(r.a);
  const asked = new Set<number>();
  for (let i = 0; i < count; i++) {
    const n = matrixAt(r.a, i).rows;
    if (n > 0 && !asked.has(n)) {
      asked.add(n);
      if (!solver.syevdWorkFits(dtype, vectors, n)) return false;
    }
    if (r.a.kind !== 'variable') break;
  }
  return true;
}

export function cusolverSyevd(dev: GpuDevice, r: SyevRequest): void {
  const count = batchCount(r.a);
  if (count === 0) return;
  const dtype = deviceDtype(r.a);
  const bytes = dtypeInfo(dtype).bytes;
  const vectors = r.jobz === 'vectors';
  const solver = vendorSolver(dev);
  const frame = Workspace.of(dev).frame();
  try {
    for (const g of launchGroups(dev, frame, [r.a, r.w], ['a', 'w'])) {
      const n = g.shapes[0]!.rows, size = g.members.length;
      if (n === 0) {
        // Nothing to solve: info 0 (the scatter of getrf's info, with no pivots).
        const zero = frame.take('int32', size, 'syevd: info of empty matrices');
        dev.fill(zero, 0);
        launchGetrfScatter(dev, zero, r.info, g.index, zero, zero, size, 0, 0);
        continue;
      }
      const chunks = denseChunks(size, (n * n + n) * bytes);
      const most = chunks[0]![1];
      const a = frame.take(dtype, most * n * n, 'syevd: packed matrices');
      const w = frame.take(dtype, most * n, 'syevd: eigenvalues');
      const flags = frame.take('int32', most, 'syevd: NaN or Inf per matrix');
      const vendor = frame.take('int32', most, 'syevd: the vendor info');
      let work: DeviceArray | undefined, lwork = 0;
      if (solver !== undefined) {
        lwork = solver.syevdWorkAt(dtype, vectors, n, a.ptr, w.ptr);
        work = frame.take(dtype, lwork, 'syevd: the vendor workspace');
      }
      for (const [start, chunk] of chunks) {
        const c = groupChunk(dev, frame, g, start, chunk);
        dev.fill(flags, 0);
        dev.fill(vendor, 0);
        launchSyevPack(dev, dtype, r.uplo, c.operands[0]!, n, a, flags, chunk);
        if (solver !== undefined && work !== undefined) {
          for (let q = 0; q < chunk; q++) {
            solver.syevdAt(dtype, vectors, n, a.ptr + BigInt(q * n * n * bytes), w.ptr + BigInt(q * n * bytes), work.ptr, lwork, vendor.ptr + BigInt(4 * q));
          }
        }
        launchSyevUnpack(dev, dtype, c.operands[0]!, c.operands[1]!, a, w, flags, vendor, r.info, c.index, n, chunk, vectors);
      }
    }
  } finally {
    frame.end();
  }
}
