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
 */
import { batchCount } from '../../core/batch.js';
import type { Requests } from '../../core/op-specs.js';
import { Workspace } from '../runtime/workspace.js';
import type { DeviceArray, GpuDevice } from '../runtime/types.js';
import { launchGroups, matrixAddress, type LaunchGroup } from './groups.js';
import { launchGetrfScatter } from './kernels.js';
import { vendorSolver } from './native.js';
import { deviceDtype, fitsInt32, squareOrder, vendorCard, vendorServes } from './rules.js';

type GetrfRequest = Requests<DeviceArray, DeviceArray>['getrf'];

export function cusolverGetrfCovers(r: GetrfRequest, dev: GpuDevice): boolean {
  if (!vendorCard(dev)) return false;
  const n = squareOrder(r.a);
  if (n === undefined || n === 0) return false;
  return vendorServes(dev, { op: 'getrf', route: 'cusolver', dtype: deviceDtype(r.a), n, count: batchCount(r.a) }, 'cusolver') && fitsInt32(r.a);
}

/** Scratch for the vendor's pivots and infos, per group; then the scatter to the API's places. */
interface Scratch {
  readonly pivots: DeviceArray;
  readonly vendor: DeviceArray;
  /** Group g's matrices: places [bases[g], bases[g] + members) of `vendor`, pivots from k times that. */
  readonly bases: readonly number[];
}

function scratch(dev: GpuDevice, frame: ReturnType<Workspace['frame']>, groups: readonly LaunchGroup[], count: number): Scratch {
  const bases: number[] = [];
  let base = 0, pivots = 0;
  for (const g of groups) {
    bases.push(base);
    base += g.members.length;
    pivots += g.members.length * Math.min(g.shapes[0]!.rows, g.shapes[0]!.cols);
  }
  const s = { pivots: frame.take('int32', Math.max(1, pivots), 'getrf: the vendor pivots'), vendor: frame.take('int32', count, 'getrf: the vendor info'), bases };
  dev.fill(s.vendor, 0);
  return s;
}

/** Where group g's pivots start in the scratch (in elements). */
function pivotBase(groups: readonly LaunchGroup[], g: number): number {
  let at = 0;
  for (let h = 0; h < g; h++) at += groups[h]!.members.length * Math.min(groups[h]!.shapes[0]!.rows, groups[h]!.shapes[0]!.cols);
  return at;
}

function scatter(dev: GpuDevice, r: GetrfRequest, groups: readonly LaunchGroup[], s: Scratch): void {
  groups.forEach((g, gi) => {
    const n = g.members.length, k = Math.min(g.shapes[0]!.rows, g.shapes[0]!.cols);
    const pivots = k === 0 ? s.pivots : dev.view(s.pivots, pivotBase(groups, gi), n * k);
    launchGetrfScatter(dev, r.ipiv, r.info, g.index, pivots, dev.view(s.vendor, s.bases[gi]!, n), n, k, r.pivotStride);
  });
}

export function cusolverGetrf(dev: GpuDevice, r: GetrfRequest): void {
  const count = batchCount(r.a);
  if (count === 0) return;
  const dtype = deviceDtype(r.a);
  const solver = vendorSolver(dev);
  const frame = Workspace.of(dev).frame();
  try {
    const groups = launchGroups(dev, frame, [r.a], ['a']);
    const s = scratch(dev, frame, groups, count);
    if (solver !== undefined) {
      const calls = groups.flatMap((g, gi) => {
        const k = Math.min(g.shapes[0]!.rows, g.shapes[0]!.cols), at = pivotBase(groups, gi);
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
  } finally {
    frame.end();
  }
}

