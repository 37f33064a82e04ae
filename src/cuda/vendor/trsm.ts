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
 * The table's order of a trsm is A's (m on the left, n on the right); its right-hand sides are B's
 * other dimension, at most TRSM_RHS_MAX here: cuBLAS's batched trsm spreads them over a grid
 * dimension and fails (CUBLAS_STATUS_EXECUTION_FAILED) beyond 65535 blocks of 8.
 */
import { batchCount, matrixAt, uniformShape } from '../../core/batch.js';
import { MyriadError } from '../../core/errors.js';
import type { ComplexTrsmRequest, Requests } from '../../core/op-specs.js';
import { complexOf } from '../../core/dtype-table.js';
import type { VendorQuery } from '../model/tuning/vendor-tables.js';
import { Workspace } from '../runtime/workspace.js';
import type { DeviceArray, GpuDevice } from '../runtime/types.js';
import { pointerGroups } from './groups.js';
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

/** B := alpha op(A)^-1 B or alpha B op(A)^-1 on cuBLAS, real or complex (the request's alpha says which). */
export function cublasTrsm(dev: GpuDevice, r: AnyTrsm): void {
  const count = batchCount(r.b);
  if (count === 0) return;
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
    for (const g of pointerGroups(dev, frame, [r.a, r.b], ['a', 'b'])) {
      const [sa, sb] = g.shapes;
      const m = sb!.rows, n = sb!.cols;
      if (m === 0 || n === 0) continue;
      const order = r.side === 'left' ? m : n;
      if (sa!.rows !== order || sa!.cols !== order) throw new MyriadError('SHAPE', `A is ${sa!.rows} x ${sa!.cols}, B ${m} x ${n} (side ${r.side})`, 'a');
      const [pa, pb] = g.operands;
      if (isComplex(r)) blas?.complexTrsmPointersAt(dtype, r.side, r.uplo, r.transA, r.diag, m, n, r.alpha, pa!.pointer, sa!.ld, pb!.pointer, sb!.ld, g.members.length);
      else blas?.trsmPointersAt(dtype, r.side, r.uplo, r.transA, r.diag, m, n, r.alpha, pa!.pointer, sa!.ld, pb!.pointer, sb!.ld, g.members.length);
    }
  } finally {
    frame.end();
  }
}
