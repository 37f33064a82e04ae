/**
 * The vendor crossover tables by card name (vendor-types.ts): `vendorTableFor(info.name)`. A card
 * without a table runs the own routes only. A table is measured data; `scripts/vendor-sweep.ts`
 * measures a card and prints its table in this form.
 */
import { h200VendorTable } from './vendor-h200.js';
import type { VendorTable } from './vendor-types.js';

export { VENDOR_RATIO_MAX, routedOp, vendorRuleFor, type VendorOp, type VendorPoint, type VendorQuery, type VendorRoute, type VendorRule, type VendorTable } from './vendor-types.js';

const TABLES: readonly VendorTable[] = [h200VendorTable];

/** Every table, one per card. */
export function vendorTables(): readonly VendorTable[] {
  return TABLES;
}

/** The table measured on the card named `name` (cuDeviceGetName's spelling), or undefined. */
export function vendorTableFor(name: string): VendorTable | undefined {
  return TABLES.find((t) => t.card === name);
}
