/**
 * getrf on the vendor's LU with partial pivoting: cusolverDn?getrf one matrix per call (any m x n:
 * the route of one large matrix or a few). Each matrix is factored where it lies. (cuBLAS's
 * getrfBatched is not a route: on an H200 its pivots differ from LAPACK's on every matrix with an
 * exactly zero column, at every order from 7 to 128, and its factors after them; its info differs on
 * matrices singular by rounding far more often than the own route's: scripts/probe/getrf-vendor-check.mjs,
 * BENCHMARKS.md "Batched getrf, n = 40-128".)
 *
 * The vendor's pivots are LAPACK's (1-based) and land in a scratch array; a small kernel writes
 * them 0-based to the API's places (`ipiv[i * pivotStride + j]`, j < min(m, n)) with each matrix's
 * info (LAPACK's: k where U(k, k) is exactly zero, the factorisation completed). A NaN stays in its
 * matrix; after it meets a NaN the vendor's pivot search may choose other rows than the reference's
 * (which never picks a NaN over a number).
 *
 * The vendor multiplies by the reciprocal of every pivot, however small (on an H200, a float32 pivot
 * of 2^-140 gave U = -Inf and NaN after it; LAPACK's getf2 divides where the pivot is below the
 * smallest normal number). So each matrix is kept before the call, and a matrix whose factor holds a
 * nonzero pivot below the smallest normal number is written back as it was and returned to the
 * caller, which factors it on the own route (router.ts). That check reads one flag a matrix back to
 * the host: the route waits for its work.
 */
import { batchCount } from '../../core/batch.js';
import type { Requests } from '../../core/op-specs.js';
import { Workspace } from '../runtime/workspace.js';
import type { DeviceArray, GpuDevice } from '../runtime/types.js';
import { launchGroups, matrixAddress, type LaunchGroup } from './groups.js';
import { launchGetrfKeep, launchGetrfScatter, launchTinyDiagonal } from './kernels.js';
import { vendorSolver } from './native.js';
import { deviceDtype, fitsInt32, squareOrder, vendorCard, vendorServes } from './rules.js';

type GetrfRequest = Requests<DeviceArray, DeviceArray>['getrf'];

export function cusolverGetrfCovers(r: GetrfRequest, dev: GpuDevice): boolean {
  if (!vendorCard(dev)) return false;
  const n = squareOrder(r.a);
  if (n === undefined || n === 0) return false;
  return vendorServes(dev, { op: 'getrf', route: 'cusolver', dtype: deviceDtype(r.a), n, count: batchCount(r.a) }, 'cusolver') && fitsInt32(r.a);
}

/**
 * Scratch per group, in one pass over the groups: the vendor's infos (and the flags of matrices to
 * factor again), its pivots, and the copies of A kept before the call; then the scatter to the API's places.
 */
interface Scratch {
  readonly pivots: DeviceArray;
  readonly vendor: DeviceArray;
  readonly flags: DeviceArray;
  readonly kept: DeviceArray;
  /** Group g's matrices: places [bases[g], bases[g] + members) of `vendor` and `flags`. */
  readonly bases: readonly number[];
  /** Where group g's pivots (k a matrix) and kept matrices (rows x cols each) start. */
  readonly pivotBases: readonly number[];
  readonly keptBases: readonly number[];
}

function scratch(dev: GpuDevice, frame: ReturnType<Workspace['frame']>, dtype: DeviceArray['dtype'], groups: readonly LaunchGroup[], count: number): Scratch {
  const bases: number[] = [], pivotBases: number[] = [], keptBases: number[] = [];
  let base = 0, pivots = 0, kept = 0;
  for (const g of groups) {
    const n = g.members.length, { rows, cols } = g.shapes[0]!;
    bases.push(base);
    pivotBases.push(pivots);
    keptBases.push(kept);
    base += n;
    pivots += n * Math.min(rows, cols);
    kept += n * rows * cols;
  }
  const s = {
    pivots: frame.take('int32', Math.max(1, pivots), 'getrf: the vendor pivots'),
    vendor: frame.take('int32', count, 'getrf: the vendor info'),
    flags: frame.take('int32', count, 'getrf: the matrices with a pivot below the smallest normal number'),
    kept: frame.take(dtype, Math.max(1, kept), 'getrf: A kept for the matrices the vendor cannot factor'),
    bases, pivotBases, keptBases,
  };
  dev.fill(s.vendor, 0);
  dev.fill(s.flags, 0);
  return s;
}

function scatter(dev: GpuDevice, r: GetrfRequest, groups: readonly LaunchGroup[], s: Scratch): void {
  groups.forEach((g, gi) => {
    const n = g.members.length, k = Math.min(g.shapes[0]!.rows, g.shapes[0]!.cols);
    const pivots = k === 0 ? s.pivots : dev.view(s.pivots, s.pivotBases[gi]!, n * k);
    launchGetrfScatter(dev, r.ipiv, r.info, g.index, pivots, dev.view(s.vendor, s.bases[gi]!, n), n, k, r.pivotStride);
  });
}

/**
 * Factors every matrix of `r` on cusolverDn?getrf; returns the batch places (ascending) of the
 * matrices whose factor had a nonzero pivot below the smallest normal number, restored to A as
 * given (their ipiv and info to be written by the caller's own route).
 */
export function cusolverGetrf(dev: GpuDevice, r: GetrfRequest): number[] {
  const count = batchCount(r.a);
  if (count === 0) return [];
  const dtype = deviceDtype(r.a);
  const solver = vendorSolver(dev);
  const frame = Workspace.of(dev).frame();
  try {
    const groups = launchGroups(dev, frame, [r.a], ['a']);
    const s = scratch(dev, frame, dtype, groups, count);
    // Group g's kept matrices and flags, with its shape.
    const each = (run: (g: LaunchGroup, kept: DeviceArray, flags: DeviceArray, rows: number, cols: number, gi: number) => void): void => groups.forEach((g, gi) => {
      const { rows, cols } = g.shapes[0]!, n = g.members.length, size = n * rows * cols;
      // An empty group (0 rows or columns) keeps nothing; its kernels return at once.
      run(g, size > 0 ? dev.view(s.kept, s.keptBases[gi]!, size) : s.kept, dev.view(s.flags, s.bases[gi]!, n), rows, cols, gi);
    });
    each((g, k, f, rows, cols) => launchGetrfKeep(dev, dtype, g.operands[0]!, rows, cols, k, f, g.members.length, false));
    if (solver !== undefined) {
      const calls = groups.flatMap((g, gi) => {
        const k = Math.min(g.shapes[0]!.rows, g.shapes[0]!.cols), at = s.pivotBases[gi]!;
        return g.members.map((i, q) => ({ m: matrixAddress(r.a, i, 'a'), info: s.bases[gi]! + q, pivots: at + q * k }));
      }).filter((c) => c.m.rows > 0 && c.m.cols > 0);
      let lwork = 1;
      for (const { m } of calls) lwork = Math.max(lwork, solver.getrfWorkAt(dtype, m.rows, m.cols, m.address, m.ld));
      const work = frame.take(dtype, lwork, 'getrf: the vendor workspace');
      for (const c of calls) {
        solver.getrfAt(dtype, c.m.rows, c.m.cols, c.m.address, c.m.ld, work.ptr, s.pivots.ptr + BigInt(4 * c.pivots), s.vendor.ptr + BigInt(4 * c.info));
      }
    }
    scatter(dev, r, groups, s);
    each((g, _k, f, rows, cols) => launchTinyDiagonal(dev, dtype, g.operands[0]!, Math.min(rows, cols), f, g.members.length));
    const flagged = dev.download(s.flags) as Int32Array;
    const redo: number[] = [];
    each((g, k, f, rows, cols, gi) => {
      const mine = g.members.filter((_, q) => flagged[s.bases[gi]! + q] !== 0);
      if (mine.length === 0) return;
      launchGetrfKeep(dev, dtype, g.operands[0]!, rows, cols, k, f, g.members.length, true);
      redo.push(...mine);
    });
    return redo.sort((x, y) => x - y);
  } finally {
    frame.end();
  }
}
