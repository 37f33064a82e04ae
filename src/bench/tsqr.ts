/**
 * `myriad bench tsqr --backend cuda [--dtype D] [--sizes n1,n2]`: TSQR of one m x n matrix,
 * m = 1e6 and 1e7, n = 4, 8, 16, 32 (--sizes picks n), on device data filled on the device.
 * GB/s counts the bytes the algorithm must move (A read three times, Q written once: 4 m n
 * elements; 5 m n where the shifted route ran: tsqr/plan.ts `tsqrBytes`), %copy against the
 * measured device-to-device copy bandwidth (the bandwidth bound), and the vendor in the same
 * process on the same data: cuSOLVER's single-matrix geqrf + orgqr (reduced Q over A; R in
 * between). Both are timed with CUDA events, A reset from a pristine copy outside the timed
 * region, after a warm-up, median of repeats. TSQR's time includes its one host sync (the
 * routes) and its workspace allocation.
 */
import type { DType } from '../core/dtype.js';
import { strided } from '../core/batch.js';
import { Cusolver } from '../cuda/baselines/index.js';
import { tsqrBytes, tsqrCuda, ROUTE_SHIFTED, type TsqrPlan } from '../cuda/kernels/tsqr/index.js';
import type { GpuDevice } from '../cuda/runtime/types.js';
import { fillUniform, measureCopyBandwidth, timeMs } from '../cuda/tune/tsm2-bench.js';
import { progress, progressDone } from './progress.js';
import type { Column } from './table.js';

export interface TsqrBenchRow {
  dtype: DType; m: number; n: number; route: string; ms: number; gbs: number; pctCopy: number;
  vendorMs?: number; vendorGbs?: number; speedup?: number; vendor?: string; plan: string;
}

export const TSQR_ROWS = [1e6, 1e7] as const;
export const TSQR_COLS = [4, 8, 16, 32] as const;
const REPEATS = 5;

function describePlan(p: TsqrPlan): string {
  return `gram ${p.gram.threads}t b${p.gram.tile} x${p.gramBlocks}, store x${p.storeBlocks}`;
}

export function benchTsqr(dev: GpuDevice, dtypes: readonly DType[], cols: readonly number[], vendor: boolean): TsqrBenchRow[] {
  const copy = measureCopyBandwidth(dev);
  console.error(`copy bandwidth ${(copy / 1e9).toFixed(0)} GB/s (1 GiB device-to-device, read + write)`);
  const rows: TsqrBenchRow[] = [];
  const solver = vendor ? new Cusolver(dev) : undefined;
  try {
    for (const dtype of dtypes) for (const m of TSQR_ROWS) for (const n of cols) {
      progress(`tsqr ${dtype} m=${m} n=${n} ...`);
      const pristine = dev.alloc(dtype, m * n);
      const work = dev.alloc(dtype, m * n);
      const r = dev.alloc(dtype, n * n);
      const info = dev.alloc('int32', 1);
      try {
        fillUniform(dev, pristine, 17 + n);
        const reset = (): void => dev.copy(pristine, 0, work, 0, m * n);
        let plan: TsqrPlan | undefined;
        let shifted = false;
        const request = { a: strided(work, { rows: m, cols: n }, 'a'), r: strided(r, { rows: n, cols: n }, 'r'), info };
        const ms = timeMs(dev, () => {
          const report = tsqrCuda(dev, request, { onPlan: (p) => { plan = p; } });
          shifted = report.routes[0] === ROUTE_SHIFTED;
        }, REPEATS, reset);
        const bytes = tsqrBytes(dtype, m, n, shifted);
        const row: TsqrBenchRow = {
          dtype, m, n, route: shifted ? 'shifted CholeskyQR3' : 'CholeskyQR2', ms, gbs: bytes / (ms * 1e6), pctCopy: (100 * bytes) / (ms * 1e-3) / copy,
          plan: plan ? describePlan(plan) : '',
        };
        if (solver) {
          try {
            const call = solver.geqrfOrgqr(dtype, m, n, work, m);
            try {
              row.vendorMs = timeMs(dev, call.run, REPEATS, reset);
              row.vendorGbs = bytes / (row.vendorMs * 1e6);
              row.speedup = row.vendorMs / ms;
              row.vendor = 'cusolverDn geqrf + orgqr';
            } finally {
              call.dispose();
            }
          } catch (e) {
            row.vendor = `cuSOLVER: ${(e as Error).message.replace(/\s+/g, ' ')}`;
          }
        }
        rows.push(row);
      } finally {
        pristine.dispose();
        work.dispose();
        r.dispose();
        info.dispose();
      }
    }
  } finally {
    solver?.dispose();
    progressDone();
  }
  return rows;
}

export const TSQR_COLUMNS: readonly Column<TsqrBenchRow>[] = [
  { header: 'dtype', value: (r) => r.dtype },
  { header: 'm', value: (r) => r.m },
  { header: 'n', value: (r) => r.n },
  { header: 'route', value: (r) => r.route },
  { header: 'ms', value: (r) => r.ms, digits: 3 },
  { header: 'GB/s', value: (r) => r.gbs, digits: 0 },
  { header: '%copy', value: (r) => r.pctCopy, digits: 1 },
  { header: 'cuSOLVER ms', value: (r) => r.vendorMs, digits: 3, optional: true },
  { header: 'speed-up', value: (r) => r.speedup, digits: 2, optional: true },
  { header: 'vendor', value: (r) => r.vendor, optional: true },
  { header: 'plan', value: (r) => r.plan },
];
