/**
 * What the vendor candidates' `covers` share: the card's crossover table (model/tuning/vendor-*.ts)
 * and the facts of a request it is asked about. Pure but for the device's name and libraries.
 */
import { batchCount, matrixAt, uniformShape, type Batch } from '../../core/batch.js';
import { vendorRuleFor, vendorTableFor, type VendorQuery } from '../model/tuning/vendor-tables.js';
import type { DeviceArray, GpuDevice } from '../runtime/types.js';
import { vendorUsable, type VendorLibrary } from './native.js';

/** Whether `dev`'s card has a crossover table at all: the first, cheapest question of every vendor `covers` (a card without one asks nothing more). */
export function vendorCard(dev: GpuDevice): boolean {
  return vendorTableFor(dev.info.name) !== undefined;
}

/** Whether the table of `dev`'s card sends `q` to its vendor route, and the library it needs loads here. */
export function vendorServes(dev: GpuDevice, q: VendorQuery, library: VendorLibrary): boolean {
  return vendorRuleFor(vendorTableFor(dev.info.name), q) !== undefined && vendorUsable(dev, library);
}

export { deviceDtype } from '../kernels/common/operands.js';

/** The order of a batch of square matrices of one order, or undefined (empty, mixed or rectangular). */
export function squareOrder(b: Batch<DeviceArray>): number | undefined {
  if (batchCount(b) === 0) return undefined;
  const s = uniformShape(b);
  return s !== undefined && s.rows === s.cols ? s.rows : undefined;
}

/** n and nrhs of a solve whose A and B are each of one shape, A square with B's rows; undefined otherwise. */
export function solveShape(a: Batch<DeviceArray>, b: Batch<DeviceArray>): { n: number; nrhs: number } | undefined {
  if (batchCount(a) === 0) return undefined;
  const sa = uniformShape(a), sb = uniformShape(b);
  if (sa === undefined || sb === undefined || sa.rows !== sa.cols || sb.rows !== sa.rows) return undefined;
  return { n: sa.rows, nrhs: sb.cols };
}

/** Whether every matrix's span (ld x cols) counts in 32-bit integers, as the vendor's int leading dimensions and sizes do. */
export function fitsInt32(b: Batch<DeviceArray>): boolean {
  const count = batchCount(b);
  if (b.kind !== 'variable') return b.ld * Math.max(1, b.cols) < 2 ** 31;
  for (let i = 0; i < count; i++) {
    const m = matrixAt(b, i);
    if (m.ld * Math.max(1, m.cols) >= 2 ** 31) return false;
  }
  return true;
}
