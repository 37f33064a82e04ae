/**
 * How many matrices one `myriad bench` call takes for an n x n problem (bench/run.ts), here below
 * the layers so that `ctx.warm` (api/warm.ts) plans, by default, the calls the benchmark makes.
 */
import type { ElementType } from './dtype.js';
import { elementInfo } from './dtype-table.js';

/**
 * syev (with and without vectors, and heev), gesvd and the QR ops at the batch counts of the published vendor tables
 * (PyTorch / cuSOLVER), so that the rows compare with them (n = 2, 3: 262,144; 4, 8: 100,000;
 * 16: 20,000; 32: 10,000; 64: 2,000; 128: 500; 256: 100; 512: 20).
 */
const VENDOR_TABLE_COUNTS: Readonly<Record<number, number>> = {
  2: 262144, 3: 262144, 4: 100000, 8: 100000, 16: 20000, 32: 10000, 64: 2000, 128: 500, 256: 100, 512: 20,
};
const TABLE_OPS: ReadonlySet<string> = new Set(['syev', 'syev-values', 'heev', 'gesvd', 'geqrf', 'orgqr', 'qr']);

export function defaultBatch(op: string, dtype: ElementType, n: number, targetBytes: number): number {
  const table = TABLE_OPS.has(op) ? VENDOR_TABLE_COUNTS[n] : undefined;
  if (table !== undefined) return table;
  const perMatrix = Math.max(1, n * n * elementInfo(dtype).bytes * (op === 'gemm' ? 3 : 1));
  return Math.max(1, Math.floor(targetBytes / perMatrix));
}

/** Matrices per call in `myriad bench` on a GPU: defaultBatch for cli.ts's GPU target (its benchTargetBytes: 1 GiB per gemm call, 512 MiB otherwise). */
export function gpuBenchBatch(op: string, dtype: ElementType, n: number): number {
  return defaultBatch(op, dtype, n, op === 'gemm' ? 1 << 30 : 512 << 20);
}

