/**
 * potrf on cuSOLVER's single-matrix Cholesky (cusolverDn?potrf), one call per matrix: the route of
 * one large matrix or a few, where the vendor's whole-GPU factorisation wins. Each matrix is
 * factored where it lies (its ld and offset passed through); only its `uplo` triangle is touched.
 *
 * info is the API's (core/info.ts: k, the order of the leading minor that is not positive
 * definite). A scan before the call finds each matrix's first row holding NaN or an infinity at
 * which the CPU reference stops; the info written is the vendor's where it failed before that row,
 * that row's order otherwise, so NaN and Inf come out as on the own routes whatever the vendor's
 * own test does with them. As on the own blocked drivers, a failed matrix's factor is defined on
 * its leading (k - 1) x (k - 1) block.
 *
 * Complex batches (strided and list) take cuSOLVER's batched Cholesky instead,
 * cusolverDn{Z,C}potrfBatched, one call per launch group (vendor/groups.ts `pointerGroups`: arrays
 * of the matrices' addresses, in pairs) inside a rule of the card's table for the complex type. The
 * batched routine factors each matrix alone (a failed matrix spreads nothing to the others) and,
 * as the dense call, writes only its `uplo` triangle (cuSOLVER's documentation; the GPU tests
 * check the opposite triangle stays as it was). The scan is the complex one (kernels.ts,
 * ScanElement 'complex': the reference reads only the real parts of the diagonal, whose imaginary
 * parts the scan sets to zero as the reference writes them), the info rule the same.
 */
import { batchCount } from '../../core/batch.js';
import { complexInfo, complexOf } from '../../core/dtype-table.js';
import { MyriadError } from '../../core/errors.js';
import type { ComplexRequests, Requests } from '../../core/op-specs.js';
import { cusolverHasComplexPotrfBatched } from '../baselines/cusolver.js';
import type { VendorQuery } from '../model/tuning/vendor-tables.js';
import { Workspace } from '../runtime/workspace.js';
import type { DeviceArray, GpuDevice } from '../runtime/types.js';
import { launchGroups, matrixAddress, pointerGroups } from './groups.js';
import { launchPotrfInfo, launchPotrfScan, SCAN_FILL } from './kernels.js';
import { vendorSolver } from './native.js';
import { deviceDtype, fitsInt32, squareOrder, vendorCard, vendorServes } from './rules.js';

type PotrfRequest = Requests<DeviceArray, DeviceArray>['potrf'];

export function cusolverPotrfCovers(r: PotrfRequest, dev: GpuDevice): boolean {
  if (!vendorCard(dev)) return false;
  const n = squareOrder(r.a);
  if (n === undefined || n === 0) return false;
  return vendorServes(dev, { op: 'potrf', route: 'cusolver', dtype: deviceDtype(r.a), n, count: batchCount(r.a) }, 'cusolver') && fitsInt32(r.a);
}

export function cusolverPotrf(dev: GpuDevice, r: PotrfRequest): void {
  const count = batchCount(r.a);
  if (count === 0) return;
  const dtype = deviceDtype(r.a);
  const solver = vendorSolver(dev);
  const frame = Workspace.of(dev).frame();
  try {
    const groups = launchGroups(dev, frame, [r.a], ['a']);
    const first = frame.take('int32', count, 'potrf: first non-finite row per matrix');
    const vendor = frame.take('int32', count, 'potrf: the vendor info');
    dev.fill(first, SCAN_FILL);
    dev.fill(vendor, 0);
    // Group g's matrices have places [base, base + members) in the scratch.
    const bases: number[] = [];
    let base = 0;
    for (const g of groups) {
      bases.push(base);
      launchPotrfScan(dev, dtype, r.uplo, g.operands[0]!, g.shapes[0]!.rows, dev.view(first, base, g.members.length), g.members.length);
      base += g.members.length;
    }
    if (solver !== undefined) {
      const matrices = groups.flatMap((g, gi) => g.members.map((i, q) => ({ place: bases[gi]! + q, m: matrixAddress(r.a, i, 'a') })));
      let lwork = 1;
      for (const { m } of matrices) if (m.rows > 0) lwork = Math.max(lwork, solver.potrfWorkAt(dtype, r.uplo, m.rows, m.address, m.ld));
      // One workspace of the largest size asked, passed whole to every call (lwork may exceed a matrix's need).
      const work = frame.take(dtype, lwork, 'potrf: the vendor workspace');
      for (const { place, m } of matrices) {
        if (m.rows === 0) continue;
        solver.potrfAt(dtype, r.uplo, m.rows, m.address, m.ld, work.ptr, lwork, vendor.ptr + BigInt(4 * place));
      }
    }
    groups.forEach((g, gi) => {
      const n = g.members.length;
      launchPotrfInfo(dev, r.info, g.index, dev.view(vendor, bases[gi]!, n), dev.view(first, bases[gi]!, n), n);
    });
  } finally {
    frame.end();
  }
}

type ComplexPotrf = ComplexRequests<DeviceArray, DeviceArray>['potrf'];

/** What the complex route asks the card's table (its dtype the complex type); undefined where it does not take `r` (variable, mixed shapes, empty, n = 0). */
export function complexPotrfQuery(r: ComplexPotrf): VendorQuery | undefined {
  // 'lower' alone: with 'upper', cusolverDn{Z,C}potrfBatched wrote the lower triangle too (H200, CUDA 13.0).
  if (r.a.kind === 'variable' || r.uplo !== 'lower') return undefined;
  const n = squareOrder(r.a);
  if (n === undefined || n === 0) return undefined;
  return { op: 'potrf', route: 'cusolver', dtype: complexOf(deviceDtype(r.a)), n, count: batchCount(r.a) };
}

/** The complex requests' covers: a rule of the card's table for the complex type, and a cuSOLVER here that has z/cpotrfBatched. */
export function cusolverComplexPotrfCovers(r: ComplexPotrf, dev: GpuDevice): boolean {
  if (!vendorCard(dev)) return false;
  const q = complexPotrfQuery(r);
  return q !== undefined && vendorServes(dev, q, 'cusolver') && cusolverHasComplexPotrfBatched(complexOf(deviceDtype(r.a))) && fitsInt32(r.a);
}

/** Complex potrf on cusolverDn{Z,C}potrfBatched: the scan, one vendor call per group, then info (see the header). */
export function cusolverComplexPotrf(dev: GpuDevice, r: ComplexPotrf): void {
  if (r.a.kind === 'variable') throw new MyriadError('UNSUPPORTED', 'the cusolver route takes strided and list complex batches', 'a');
  if (r.uplo !== 'lower')
    throw new MyriadError('UNSUPPORTED', "the cusolver route takes uplo 'lower': with 'upper' cuSOLVER's batched Cholesky writes the other triangle too (measured on the H200, CUDA 13.0)", 'force');
  const count = batchCount(r.a);
  if (count === 0) return;
  const dtype = deviceDtype(r.a);
  const complex = complexOf(dtype);
  // Undefined on a device that runs nothing (planning: the kernels are planned, no library is called).
  const solver = vendorSolver(dev);
  // Refused before anything runs (the scan writes the diagonal's imaginary parts).
  if (solver !== undefined && !cusolverHasComplexPotrfBatched(complex))
    throw new MyriadError('UNSUPPORTED', `the cusolver route needs cusolverDn${complexInfo(complex).letter.toUpperCase()}potrfBatched, which this cuSOLVER does not have`, 'force');
  const frame = Workspace.of(dev).frame();
  try {
    const groups = pointerGroups(dev, frame, [r.a], ['a']);
    const first = frame.take('int32', count, 'potrf: first non-finite row per matrix');
    const vendor = frame.take('int32', count, 'potrf: the vendor info');
    dev.fill(first, SCAN_FILL);
    dev.fill(vendor, 0);
    // Group g's matrices have places [base, base + members) in the scratch.
    const bases: number[] = [];
    let base = 0;
    for (const g of groups) {
      bases.push(base);
      launchPotrfScan(dev, dtype, r.uplo, g.operands[0]!, g.shapes[0]!.rows, dev.view(first, base, g.members.length), g.members.length, 'complex');
      base += g.members.length;
    }
    groups.forEach((g, gi) => {
      const s = g.shapes[0]!;
      if (s.rows === 0) return;
      solver?.complexPotrfPointersAt(dtype, r.uplo, s.rows, g.operands[0]!.pointer, s.ld, vendor.ptr + BigInt(4 * bases[gi]!), g.members.length);
    });
    groups.forEach((g, gi) => {
      const n = g.members.length;
      launchPotrfInfo(dev, r.info, g.index, dev.view(vendor, bases[gi]!, n), dev.view(first, bases[gi]!, n), n);
    });
  } finally {
    frame.end();
  }
}
