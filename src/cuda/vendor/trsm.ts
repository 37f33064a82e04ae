/**
 * trsm on cublas?trsmBatched, which takes arrays of matrix addresses: a strided batch's are
 * computed on the host (vendor/groups.ts), list and variable batches are grouped by shape, one call
 * per group. B is solved where it lies (ld and offset passed through); A is only read, its `uplo`
 * triangle alone (and not its diagonal where diag is 'unit'), as BLAS reads it. alpha = 0 stays
 * with the own routes (BLAS then sets B to zero without reading A; cuBLAS does not promise that).
 *
 * Complex batches (cublas{Z,C}trsmBatched, op 'N', 'T' or 'C', complex alpha) take the same path
 * with their own rules (the table's dtype complex128 / complex64).
 *
 * The complex routines multiply by the reciprocal of each diagonal entry, which overflows where the
 * entry's modulus is below the smallest normal number (on an H200, scripts/probe/trsm-vendor-diagonal.mjs:
 * complex64 entries of modulus 2^-128 and below, complex128 2^-1024 and below, and (2^1023, 2^1023), gave
 * X NaN or wrong where the reference's is finite; the real routines matched the reference at every
 * exponent, both sides). So for complex data with a non-unit diagonal each triangle's diagonal is
 * scanned first (kernels.ts tiny_diagonal: the entries where the own solves divide too,
 * kernels/common/diagonal-scale.ts, and those whose |re| + |im| overflows), the flags read back (the
 * route waits for the scan), and a flagged matrix's B pointer is pointed at scratch for the vendor's
 * call (kernels.ts solve_mask); the route returns those matrices for the caller to solve on the own
 * route (router.ts).
 */
import { batchCount, matrixAt, uniformShape } from '../../core/batch.js';
import type { DType } from '../../core/dtype.js';
import { MyriadError } from '../../core/errors.js';
import type { ComplexTrsmRequest, Requests } from '../../core/op-specs.js';
import { complexOf } from '../../core/dtype-table.js';
import type { VendorQuery } from '../model/tuning/vendor-tables.js';
import { Workspace, type WorkspaceFrame } from '../runtime/workspace.js';
import type { DeviceArray, GpuDevice } from '../runtime/types.js';
import { pointerGroups, type LaunchGroup } from './groups.js';
import { launchSolveMask, launchTinyDiagonal } from './kernels.js';
import { vendorBlas } from './native.js';
import { deviceDtype, fitsInt32, vendorCard, vendorServes } from './rules.js';

type TrsmRequest = Requests<DeviceArray, DeviceArray>['trsm'];

/** The most right-hand sides (B's dimension that is not A's order) the route takes. */
export const TRSM_RHS_MAX = 65536;

/** A's order and B's other dimension, of a batch of one shape; undefined otherwise. */
export function trsmShape(r: Pick<TrsmRequest, 'b' | 'side'>): { n: number; nrhs: number } | undefined {
  const b = uniformShape(r.b);
  if (b === undefined) return undefined;
  return r.side === 'left' ? { n: b.rows, nrhs: b.cols } : { n: b.cols, nrhs: b.rows };
}

type ComplexTrsm = ComplexTrsmRequest<DeviceArray>;
/** What the real and the complex routes share of a request. */
type AnyTrsm = TrsmRequest | ComplexTrsm;

const isComplex = (r: AnyTrsm): r is ComplexTrsm => typeof r.alpha !== 'number';
const alphaZero = (r: AnyTrsm): boolean => (isComplex(r) ? r.alpha[0] === 0 && r.alpha[1] === 0 : r.alpha === 0);

/** What the route asks the card's table about `r`; undefined where it does not take it (mixed shapes, empty, alpha = 0). */
export function trsmQuery(r: AnyTrsm): VendorQuery | undefined {
  const count = batchCount(r.b);
  const s = trsmShape(r);
  if (count === 0 || s === undefined || s.n === 0 || s.nrhs === 0 || s.nrhs > TRSM_RHS_MAX || alphaZero(r)) return undefined;
  const dtype = isComplex(r) ? complexOf(deviceDtype(r.b)) : deviceDtype(r.b);
  return { op: 'trsm', route: 'cublas', dtype, side: r.side, n: s.n, nrhs: s.nrhs, count };
}

export function cublasTrsmCovers(r: AnyTrsm, dev: GpuDevice): boolean {
  if (!vendorCard(dev)) return false;
  const q = trsmQuery(r);
  return q !== undefined && vendorServes(dev, q, 'cublas') && fitsInt32(r.a) && fitsInt32(r.b);
}

/** The complex requests' covers: the same rules, asked with the complex type. */
export const cublasComplexTrsmCovers: (r: ComplexTrsm, dev: GpuDevice) => boolean = cublasTrsmCovers;

/**
 * B := alpha op(A)^-1 B or alpha B op(A)^-1 on cuBLAS, real or complex (the request's alpha says
 * which); returns the batch places (ascending) of the complex matrices it left as they were, whose
 * diagonal holds an entry the vendor cannot take (the caller solves them on the own route).
 */
export function cublasTrsm(dev: GpuDevice, r: AnyTrsm): number[] {
  const count = batchCount(r.b);
  if (count === 0) return [];
  if (alphaZero(r)) throw new MyriadError('UNSUPPORTED', 'the cublas route takes alpha != 0 (with alpha = 0 BLAS sets B to zero without reading A; the own routes keep that)', 'force');
  const blas = vendorBlas(dev);
  const dtype = deviceDtype(r.b);
  // Every matrix checked before anything runs (a refusal leaves B as it was).
  for (let i = r.b.kind === 'strided' ? count - 1 : 0; i < count; i++) {
    const b = matrixAt(r.b, i), rhs = r.side === 'left' ? b.cols : b.rows;
    if (rhs > TRSM_RHS_MAX) throw new MyriadError('UNSUPPORTED', `the cublas route takes at most ${TRSM_RHS_MAX} right-hand sides, matrix ${i} of B has ${rhs}`, 'force');
  }
  const frame = Workspace.of(dev).frame();
  try {
    const groups = pointerGroups(dev, frame, [r.a, r.b], ['a', 'b']).filter((g) => g.shapes[1]!.rows > 0 && g.shapes[1]!.cols > 0);
    for (const g of groups) {
      const [sa, sb] = g.shapes;
      const order = r.side === 'left' ? sb!.rows : sb!.cols;
      if (sa!.rows !== order || sa!.cols !== order) throw new MyriadError('SHAPE', `A is ${sa!.rows} x ${sa!.cols}, B ${sb!.rows} x ${sb!.cols} (side ${r.side})`, 'a');
    }
    const redo = isComplex(r) && r.diag === 'nonunit' ? setAside(dev, frame, dtype, groups) : [];
    for (const g of groups) {
      const [sa, sb] = g.shapes;
      const m = sb!.rows, n = sb!.cols;
      const [pa, pb] = g.operands;
      if (isComplex(r)) blas?.complexTrsmPointersAt(dtype, r.side, r.uplo, r.transA, r.diag, m, n, r.alpha, pa!.pointer, sa!.ld, pb!.pointer, sb!.ld, g.members.length);
      else blas?.trsmPointersAt(dtype, r.side, r.uplo, r.transA, r.diag, m, n, r.alpha, pa!.pointer, sa!.ld, pb!.pointer, sb!.ld, g.members.length);
    }
    return redo;
  } finally {
    frame.end();
  }
}

/**
 * The complex diagonals' scan (one flag a matrix, read back); each flagged matrix's B pointer pointed
 * at a scratch matrix of its group's shape, so the vendor's call leaves B alone there. Returns the
 * flagged matrices' batch places, ascending.
 */
function setAside(dev: GpuDevice, frame: WorkspaceFrame, dtype: DType, groups: readonly LaunchGroup[]): number[] {
  const total = groups.reduce((n, g) => n + g.members.length, 0);
  if (total === 0) return [];
  const flags = frame.take('int32', total, 'trsm: the matrices with a diagonal entry below the smallest normal number');
  dev.fill(flags, 0);
  const bases: number[] = [];
  let base = 0;
  for (const g of groups) {
    bases.push(base);
    launchTinyDiagonal(dev, dtype, g.operands[0]!, g.shapes[0]!.rows, dev.view(flags, base, g.members.length), g.members.length, 'complex');
    base += g.members.length;
  }
  const flagged = dev.download(flags) as Int32Array;
  const redo: number[] = [];
  groups.forEach((g, gi) => {
    const mine = g.members.filter((_, q) => flagged[bases[gi]! + q] !== 0);
    if (mine.length === 0) return;
    const sb = g.shapes[1]!;
    const scratch = frame.take(dtype, 2 * sb.ld * sb.cols, 'trsm: where the vendor writes the set-aside matrices (pairs)');
    launchSolveMask(dev, g.operands[1]!.pointer, dev.view(flags, bases[gi]!, g.members.length), null, scratch, g.members.length);
    redo.push(...mine);
  });
  return redo.sort((x, y) => x - y);
}
