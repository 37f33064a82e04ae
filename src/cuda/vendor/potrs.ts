/**
 * potrs and posv on cusolverDn?potrsBatched (arrays of matrix addresses, one call per group of
 * one shape: vendor/groups.ts), which solves one right-hand side per matrix: these routes take
 * B with one column (more stay with the own routes; forced, they are an error). B is solved where
 * it lies; only A's `uplo` triangle is read.
 *
 * - potrs: info 0 for every matrix (LAPACK's potrs has no failure; cuSOLVER's one info only checks
 *   arguments, which are checked before the call, and lives in scratch).
 * - posv: potrf through the route the router takes for it (passed in by the router), then potrs
 *   with the B of every matrix whose info is not 0 pointed at scratch, so that B is left as it
 *   was there (LAPACK's posv); info and A are potrf's.
 *
 * The table's order is n, its right-hand sides 1.
 */
import { batchCount, matrixAt } from '../../core/batch.js';
import { MyriadError } from '../../core/errors.js';
import type { Requests } from '../../core/op-specs.js';
import type { VendorQuery } from '../model/tuning/vendor-tables.js';
import { zeroInfo } from '../kernels/common/info-zero.js';
import { Workspace, type WorkspaceFrame } from '../runtime/workspace.js';
import type { DeviceArray, GpuDevice } from '../runtime/types.js';
import { pointerGroups } from './groups.js';
import { launchSolveMask } from './kernels.js';
import { vendorSolver } from './native.js';
import { deviceDtype, fitsInt32, solveShape, vendorCard, vendorServes } from './rules.js';

type PotrsRequest = Requests<DeviceArray, DeviceArray>['potrs'];
type PotrfRequest = Requests<DeviceArray, DeviceArray>['potrf'];
/** potrf on the route the router takes for it. */
export type RoutedPotrf = (dev: GpuDevice, r: PotrfRequest) => void;

/** What the route asks the card's table about `r`; undefined where it does not take it (mixed shapes, empty, nrhs != 1). */
export function choleskySolveQuery(op: 'potrs' | 'posv', r: PotrsRequest): VendorQuery | undefined {
  const count = batchCount(r.a);
  const s = solveShape(r.a, r.b);
  if (count === 0 || s === undefined || s.n === 0 || s.nrhs !== 1) return undefined;
  return { op, route: 'cusolver', dtype: deviceDtype(r.a), n: s.n, nrhs: 1, count };
}

function covers(op: 'potrs' | 'posv', r: PotrsRequest, dev: GpuDevice): boolean {
  if (!vendorCard(dev)) return false;
  const q = choleskySolveQuery(op, r);
  return q !== undefined && vendorServes(dev, q, 'cusolver') && fitsInt32(r.a) && fitsInt32(r.b);
}

export const cusolverPotrsCovers = (r: PotrsRequest, dev: GpuDevice): boolean => covers('potrs', r, dev);
export const cusolverPosvCovers = (r: PotrsRequest, dev: GpuDevice): boolean => covers('posv', r, dev);

/** Throws unless every B has at most one column (checked before anything is written). */
function oneColumn(r: PotrsRequest): void {
  const count = batchCount(r.b);
  const wide = r.b.kind === 'strided' ? (r.b.cols > 1 ? 0 : -1) : Array.from({ length: count }, (_, i) => i).find((i) => matrixAt(r.b, i).cols > 1) ?? -1;
  if (wide >= 0) throw new MyriadError('UNSUPPORTED', `the cusolver route solves one right-hand side per matrix (cusolverDn?potrsBatched); matrix ${wide} of B has ${matrixAt(r.b, wide).cols}`, 'force');
}

/** The potrs calls of every group; with `info`, failed matrices' B pointed at scratch first. */
function solveGroups(dev: GpuDevice, frame: WorkspaceFrame, r: PotrsRequest, info: DeviceArray | null): void {
  const solver = vendorSolver(dev);
  const dtype = deviceDtype(r.a);
  const vendorInfo = frame.take('int32', 1, 'potrs: the vendor info');
  for (const g of pointerGroups(dev, frame, [r.a, r.b], ['a', 'b'])) {
    const [sa, sb] = g.shapes;
    if (sa!.rows !== sa!.cols || sb!.rows !== sa!.rows) throw new MyriadError('SHAPE', `A is ${sa!.rows} x ${sa!.cols}, B ${sb!.rows} x ${sb!.cols}`, 'b');
    const n = sa!.rows;
    if (n === 0 || sb!.cols === 0) continue;
    const [pa, pb] = g.operands;
    if (info !== null) {
      // One scratch B for every failed matrix of the group (what the vendor writes there is never read).
      const scratch = frame.take(dtype, sb!.ld, 'posv: B of the failed matrices');
      launchSolveMask(dev, pb!.pointer, info, g.index, scratch, g.members.length);
    }
    solver?.potrsPointersAt(dtype, r.uplo, n, pa!.pointer, sa!.ld, pb!.pointer, sb!.ld, vendorInfo.ptr, g.members.length);
  }
}

export function cusolverPotrs(dev: GpuDevice, r: PotrsRequest): void {
  const count = batchCount(r.b);
  if (count === 0) return;
  oneColumn(r);
  zeroInfo(dev, r.info, null, count);
  const frame = Workspace.of(dev).frame();
  try {
    solveGroups(dev, frame, r, null);
  } finally {
    frame.end();
  }
}

export function cusolverPosv(dev: GpuDevice, r: PotrsRequest, potrf: RoutedPotrf): void {
  const count = batchCount(r.a);
  if (count === 0) return;
  oneColumn(r);
  potrf(dev, { uplo: r.uplo, a: r.a, info: r.info });
  const frame = Workspace.of(dev).frame();
  try {
    solveGroups(dev, frame, r, r.info);
  } finally {
    frame.end();
  }
}
