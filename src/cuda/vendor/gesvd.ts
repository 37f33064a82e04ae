/**
 * gesvd beyond the own designs' range on cuSOLVER's dense SVD (cusolverDn?gesvd), one matrix per
 * call: a capability route like syev's (vendor/syevd.ts), after the own candidates in the router, so
 * it takes the shapes none of them covers (max(m, n) > 512 outside the bidiagonalization table's
 * range: min(m, n) > 512, or max(m, n) > 4096) on any card where libcusolver loads; the CPU
 * reference where it does not. Forced by name ('cusolver-gesvd') it runs any shape.
 *
 * The vendor's gesvd takes m >= n only and destroys A, which the API only reads: every matrix is
 * packed into dense scratch, as it is (m >= n) or transposed (m < n: G = A^T = V S U^T, so the
 * vendor's U of G gives VT = U_G^T and its VT gives U = VT_G^T), NaN and Inf written as 0 and the
 * matrix flagged; the vendor computes only the factors the job asks for (jobu / jobvt 'S' or 'N'),
 * and the unpack writes s, u and vt at the batch's layout: NaN throughout where A held NaN or Inf,
 * info 0, k + 1 (the vendor's devInfo > 0: not converged) or k + 2, as the own routes.
 */
import { batchCount, matrixAt, type Batch } from '../../core/batch.js';
import { dtypeInfo } from '../../core/dtype-table.js';
import type { Requests } from '../../core/op-specs.js';
import { Workspace } from '../runtime/workspace.js';
import type { DeviceArray, GpuDevice } from '../runtime/types.js';
import { denseChunks, groupChunk, launchGroups } from './groups.js';
import { launchGetrfScatter } from './kernels.js';
import { launchDensePack, launchDenseUnpack, launchGesvdValues } from './kernels-dense.js';
import { vendorSolver, vendorUsable } from './native.js';
import { deviceDtype, fitsInt32 } from './rules.js';

type GesvdRequest = Requests<DeviceArray, DeviceArray>['gesvd'];

/** Where one of the API's factors comes from: the vendor's U of G as it is, or its VT of G transposed (and the reverse). */
export interface FactorSource {
  /** The vendor's output it is read from. */
  readonly from: 'U' | 'VT';
  /** Read transposed (out(i, j) = src(j, i)). */
  readonly transpose: boolean;
  /** The leading dimension of that output in scratch (U: M, VT: k). */
  readonly ld: number;
}

/**
 * The bookkeeping of one m x n problem on the vendor's gesvd (m >= n only): G = A (M x N = m x n)
 * or, where m < n, G = A^T (n x m); k = min(m, n) = N. Which factors the vendor computes (jobu,
 * jobvt 'S' where true), where the API's u and vt come from, and the scratch per matrix in
 * elements. Pure (exported for the tests).
 */
export interface DenseGesvdShape {
  readonly m: number;
  readonly n: number;
  readonly k: number;
  /** m < n: G = A^T. */
  readonly transpose: boolean;
  /** G's rows M = max(m, n); its columns are k. */
  readonly rows: number;
  /** The vendor's jobu and jobvt: 'S' (true) or 'N'. */
  readonly vendorU: boolean;
  readonly vendorVt: boolean;
  /** The API's u (m x k) and vt (k x n), where asked for. */
  readonly u: FactorSource | null;
  readonly vt: FactorSource | null;
  /** Scratch elements per matrix: G (M k), the singular values (k), the vendor's U (M k) and VT (k k) where computed. */
  readonly scratch: { readonly g: number; readonly s: number; readonly u: number; readonly vt: number };
}

export function denseGesvdShape(m: number, n: number, wantU: boolean, wantVt: boolean): DenseGesvdShape {
  const transpose = m < n;
  const rows = Math.max(m, n), k = Math.min(m, n);
  // G = A: A's U is G's U, A's VT is G's VT. G = A^T = U_G S VT_G: A = VT_G^T S U_G^T.
  const vendorU = transpose ? wantVt : wantU;
  const vendorVt = transpose ? wantU : wantVt;
  const fromU: FactorSource = { from: 'U', transpose, ld: rows };
  const fromVt: FactorSource = { from: 'VT', transpose, ld: k };
  return {
    m, n, k, transpose, rows, vendorU, vendorVt,
    u: wantU ? (transpose ? fromVt : fromU) : null,
    vt: wantVt ? (transpose ? fromU : fromVt) : null,
    scratch: { g: rows * k, s: k, u: vendorU ? rows * k : 0, vt: vendorVt ? k * k : 0 },
  };
}

/** The largest dense scratch matrix (elements) the vendor's int sizes and workspace counts address. */
const INT32_ELEMENTS = 2 ** 31 - 1;

/**
 * Whether the dense route can take the request's matrices: a non-empty batch whose every matrix (A,
 * U, VT) and dense copy count in the vendor's 32-bit integers (pure: the library's presence is the
 * caller's).
 */
export function gesvdDenseTakes(r: Pick<GesvdRequest, 'a' | 'u' | 'vt'>): boolean {
  const count = batchCount(r.a);
  if (count === 0 || ![r.a, r.u, r.vt].every((b) => b === undefined || fitsInt32(b))) return false;
  for (let i = 0; i < count; i++) {
    const { rows, cols } = matrixAt(r.a, i);
    if (rows * cols > INT32_ELEMENTS) return false;
    if (r.a.kind !== 'variable') break;
  }
  return true;
}

/**
 * The route's `covers`: libcusolver loads on this device, `gesvdDenseTakes`, and the library sizes
 * the workspace of every shape in the batch (its lwork is an int: on CUDA 13.0 gesvd refuses
 * 100000 x 6633, for one; such a call stays on the CPU reference rather than fail).
 */
export function cusolverGesvdCovers(r: GesvdRequest, dev: GpuDevice): boolean {
  if (!vendorUsable(dev, 'cusolver') || !gesvdDenseTakes(r)) return false;
  const solver = vendorSolver(dev);
  if (solver === undefined) return true;   // a planning device: nothing runs
  const dtype = deviceDtype(r.a), count = batchCount(r.a);
  const asked = new Set<string>();
  for (let i = 0; i < count; i++) {
    const { rows, cols } = matrixAt(r.a, i);
    const big = Math.max(rows, cols), small = Math.min(rows, cols), key = `${big} ${small}`;
    if (small > 0 && !asked.has(key)) {
      asked.add(key);
      if (!solver.gesvdWorkFits(dtype, big, small)) return false;
    }
    if (r.a.kind !== 'variable') break;
  }
  return true;
}

export function cusolverGesvd(dev: GpuDevice, r: GesvdRequest): void {
  const count = batchCount(r.a);
  if (count === 0) return;
  const dtype = deviceDtype(r.a);
  const bytes = dtypeInfo(dtype).bytes;
  const solver = vendorSolver(dev);
  const batches: Batch<DeviceArray>[] = [r.a, r.s], names = ['a', 's'];
  if (r.u !== undefined) { batches.push(r.u); names.push('u'); }
  if (r.vt !== undefined) { batches.push(r.vt); names.push('vt'); }
  const frame = Workspace.of(dev).frame();
  try {
    for (const g of launchGroups(dev, frame, batches, names)) {
      const { rows: m, cols: n } = g.shapes[0]!;
      const size = g.members.length;
      const shape = denseGesvdShape(m, n, r.u !== undefined, r.vt !== undefined);
      const { k, rows: M, scratch } = shape;
      if (k === 0) {
        // Nothing to solve (u and vt have no columns or rows): info 0 (the scatter of getrf's info, with no pivots).
        const zero = frame.take('int32', size, 'gesvd: info of empty matrices');
        dev.fill(zero, 0);
        launchGetrfScatter(dev, zero, r.info, g.index, zero, zero, size, 0, 0);
        continue;
      }
      const each = scratch.g + scratch.s + scratch.u + scratch.vt;
      const chunks = denseChunks(size, each * bytes);
      const most = chunks[0]![1];
      const gs = frame.take(dtype, most * scratch.g, 'gesvd: packed matrices');
      const ss = frame.take(dtype, most * scratch.s, 'gesvd: singular values');
      const us = shape.vendorU ? frame.take(dtype, most * scratch.u, "gesvd: the vendor's U") : undefined;
      const vts = shape.vendorVt ? frame.take(dtype, most * scratch.vt, "gesvd: the vendor's VT") : undefined;
      const flags = frame.take('int32', most, 'gesvd: NaN or Inf per matrix');
      const vendor = frame.take('int32', most, 'gesvd: the vendor info');
      let work: DeviceArray | undefined, rwork: DeviceArray | undefined, lwork = 0;
      if (solver !== undefined) {
        lwork = solver.gesvdWorkAt(dtype, M, k);
        work = frame.take(dtype, lwork, 'gesvd: the vendor workspace');
        rwork = frame.take(dtype, k, "gesvd: the vendor's unconverged superdiagonal");
      }
      const at = (x: DeviceArray | undefined, per: number, q: number): bigint => (x === undefined ? 0n : x.ptr + BigInt(q * per * bytes));
      for (const [start, chunk] of chunks) {
        const c = groupChunk(dev, frame, g, start, chunk);
        dev.fill(flags, 0);
        dev.fill(vendor, 0);
        launchDensePack(dev, dtype, c.operands[0]!, m, n, shape.transpose, gs, flags, chunk);
        if (solver !== undefined && work !== undefined && rwork !== undefined) {
          for (let q = 0; q < chunk; q++) {
            solver.gesvdAt(dtype, M, k, at(gs, scratch.g, q), at(ss, scratch.s, q), shape.vendorU, at(us, scratch.u, q), shape.vendorVt, at(vts, scratch.vt, q),
              work.ptr, lwork, rwork.ptr, vendor.ptr + BigInt(4 * q));
          }
        }
        launchGesvdValues(dev, dtype, c.operands[1]!, ss, flags, vendor, r.info, c.index, k, chunk);
        let next = 2;
        for (const [factor, rowsOut, colsOut] of [[shape.u, m, k], [shape.vt, k, n]] as const) {
          if (factor === null) continue;
          const src = factor.from === 'U' ? us! : vts!;
          launchDenseUnpack(dev, dtype, c.operands[next++]!, rowsOut, colsOut, factor.transpose, src, factor.ld, factor.from === 'U' ? scratch.u : scratch.vt, flags, chunk);
        }
      }
    }
  } finally {
    frame.end();
  }
}
