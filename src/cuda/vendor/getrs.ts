/**
 * getrs and gesv on cublas?getrsBatched (arrays of matrix addresses, one call per group of one
 * shape: vendor/groups.ts). cuBLAS reads LAPACK's 1-based pivots, n per matrix packed; a small
 * kernel writes them from the API's 0-based ones (`ipiv[i * pivotStride + j]`) into scratch, so
 * `ipiv` itself is only read. B is solved where it lies; A is only read.
 *
 * - getrs: info 0 for every matrix (LAPACK's getrs has no failure; cuBLAS's one host info only
 *   checks arguments, which are checked before the call).
 * - gesv: getrf through the route the router takes for it (passed in by the router: one route
 *   never chooses another), then getrs with the B of every matrix whose info is not 0 pointed at
 *   scratch, so that B is left as it was there (LAPACK's gesv); info, pivots and A are getrf's.
 *
 * The table's order is n, its right-hand sides B's columns.
 */
import { batchCount, matrixAt } from '../../core/batch.js';
import { MyriadError } from '../../core/errors.js';
import type { Requests } from '../../core/op-specs.js';
import type { VendorQuery } from '../model/tuning/vendor-tables.js';
import { zeroInfo } from '../kernels/common/info-zero.js';
import { Workspace, type WorkspaceFrame } from '../runtime/workspace.js';
import type { DeviceArray, GpuDevice } from '../runtime/types.js';
import { pointerGroups, type LaunchGroup } from './groups.js';
import { launchGetrsPivots, launchSolveMask } from './kernels.js';
import { vendorBlas } from './native.js';
import { deviceDtype, fitsInt32, solveShape, vendorCard, vendorServes } from './rules.js';

type GetrsRequest = Requests<DeviceArray, DeviceArray>['getrs'];
type GesvRequest = Requests<DeviceArray, DeviceArray>['gesv'];
type GetrfRequest = Requests<DeviceArray, DeviceArray>['getrf'];
/** getrf on the route the router takes for it. */
export type RoutedGetrf = (dev: GpuDevice, r: GetrfRequest) => void;

/** What the route asks the card's table about `r`; undefined where it does not take it (mixed shapes, empty). */
export function luSolveQuery(op: 'getrs' | 'gesv', r: GetrsRequest | GesvRequest): VendorQuery | undefined {
  const count = batchCount(r.a);
  const s = solveShape(r.a, r.b);
  if (count === 0 || s === undefined || s.n === 0 || s.nrhs === 0) return undefined;
  return { op, route: 'cublas', dtype: deviceDtype(r.a), n: s.n, nrhs: s.nrhs, count };
}

function covers(op: 'getrs' | 'gesv', r: GetrsRequest | GesvRequest, dev: GpuDevice): boolean {
  if (!vendorCard(dev)) return false;
  const q = luSolveQuery(op, r);
  return q !== undefined && vendorServes(dev, q, 'cublas') && fitsInt32(r.a) && fitsInt32(r.b);
}

export const cublasGetrsCovers = (r: GetrsRequest, dev: GpuDevice): boolean => covers('getrs', r, dev);
export const cublasGesvCovers = (r: GesvRequest, dev: GpuDevice): boolean => covers('gesv', r, dev);

/** Group g's n (checked square, with B's rows) and nrhs. */
function groupShape(g: LaunchGroup): { n: number; nrhs: number } {
  const [sa, sb] = g.shapes;
  if (sa!.rows !== sa!.cols || sb!.rows !== sa!.rows) throw new MyriadError('SHAPE', `A is ${sa!.rows} x ${sa!.cols}, B ${sb!.rows} x ${sb!.cols}`, 'b');
  return { n: sa!.rows, nrhs: sb!.cols };
}

/** Throws unless every matrix's n pivots lie in `ipiv` (int32): checked before anything is written (the kernel reads them all). */
function checkPivots(r: GetrsRequest | GesvRequest): void {
  if (r.ipiv.dtype !== 'int32') throw new MyriadError('DTYPE', `pivots must be int32, got ${r.ipiv.dtype}`, 'ipiv');
  const count = batchCount(r.a);
  for (let i = r.a.kind === 'strided' ? count - 1 : 0; i < count; i++) {
    const n = matrixAt(r.a, i).rows;
    if (n > 0 && i * r.pivotStride + n > r.ipiv.length) throw new MyriadError('BOUNDS', `matrix ${i}'s pivots end at ${i * r.pivotStride + n}, ipiv holds ${r.ipiv.length}`, 'ipiv');
  }
}

/**
 * The getrs calls of every group: pivots packed 1-based, then (with `info`) failed matrices' B
 * pointed at scratch, then cublas?getrsBatched.
 */
function solveGroups(dev: GpuDevice, frame: WorkspaceFrame, r: GetrsRequest | GesvRequest, trans: 'N' | 'T', info: DeviceArray | null): void {
  const blas = vendorBlas(dev);
  const dtype = deviceDtype(r.a);
  for (const g of pointerGroups(dev, frame, [r.a, r.b], ['a', 'b'])) {
    const { n, nrhs } = groupShape(g);
    if (n === 0 || nrhs === 0) continue;
    const size = g.members.length;
    const packed = frame.take('int32', size * n, 'getrs: 1-based pivots');
    launchGetrsPivots(dev, packed, r.ipiv, g.index, size, n, r.pivotStride);
    const [pa, pb] = g.operands;
    const [sa, sb] = g.shapes;
    if (info !== null) {
      // One scratch B for every failed matrix of the group (what the vendor writes there is never read).
      const scratch = frame.take(dtype, sb!.ld * nrhs, 'gesv: B of the failed matrices');
      launchSolveMask(dev, pb!.pointer, info, g.index, scratch, size);
    }
    blas?.getrsPointersAt(dtype, trans, n, nrhs, pa!.pointer, sa!.ld, packed.ptr, pb!.pointer, sb!.ld, size);
  }
}

export function cublasGetrs(dev: GpuDevice, r: GetrsRequest): void {
  const count = batchCount(r.b);
  if (count === 0) return;
  checkPivots(r);
  zeroInfo(dev, r.info, null, count);
  const frame = Workspace.of(dev).frame();
  try {
    solveGroups(dev, frame, r, r.trans === 'N' ? 'N' : 'T', null);
  } finally {
    frame.end();
  }
}

export function cublasGesv(dev: GpuDevice, r: GesvRequest, getrf: RoutedGetrf): void {
  const count = batchCount(r.a);
  if (count === 0) return;
  checkPivots(r);
  getrf(dev, { a: r.a, ipiv: r.ipiv, pivotStride: r.pivotStride, info: r.info });
  const frame = Workspace.of(dev).frame();
  try {
    solveGroups(dev, frame, r, 'N', r.info);
  } finally {
    frame.end();
  }
}
