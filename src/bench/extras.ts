/**
 * What a benchmark needs from the backend beyond the context: the machine's limits (measured copy
 * bandwidth, peak flops) for the roofline column, the vendor baseline, and benchmarks of their own
 * (tsm2). The CPU has none of these; the CUDA backend registers its own in one place
 * (src/bench/cuda.ts) through `registerBenchExtras`.
 */
import type { Context } from '../api/context.js';
import type { DType } from '../core/dtype.js';
import { MyriadError } from '../core/errors.js';
import type { MachineLimits, VendorBaseline } from './run.js';
import type { TableStyle } from './table.js';

export interface ExtraOptions {
  dtypes: DType[]; sizes: string | undefined; json: string | undefined; style: TableStyle;
  /** `--ways` of --vbatched (bench/vbatched-table.ts; absent: all). */
  ways?: string | undefined;
}

export interface BenchExtras {
  limits(ctx: Context): MachineLimits | undefined;
  vendor(ctx: Context): VendorBaseline | undefined;
  /** Names of benchmarks that only this backend runs (e.g. 'tsm2'). */
  names: string[];
  run(name: string, ctx: Context, options: ExtraOptions): Promise<Record<string, unknown>[]>;
  /** `--vbatched <workload>` for `op` (a backend with class kernels registers it). */
  vbatched(op: string, workload: string, ctx: Context, options: ExtraOptions): Promise<Record<string, unknown>[]>;
}

const registered: Partial<BenchExtras>[] = [];

export function registerBenchExtras(extras: Partial<BenchExtras>): void {
  registered.push(extras);
}

export const benchExtras: BenchExtras = {
  limits: (ctx) => registered.map((r) => r.limits?.(ctx)).find((x) => x !== undefined),
  vendor: (ctx) => registered.map((r) => r.vendor?.(ctx)).find((x) => x !== undefined),
  get names() {
    return registered.flatMap((r) => r.names ?? []);
  },
  async run(name, ctx, options) {
    const owner = registered.find((r) => r.names?.includes(name));
    if (!owner?.run) throw new MyriadError('ENUM', `unknown benchmark '${name}'`, 'op');
    return owner.run(name, ctx, options);
  },
  async vbatched(op, workload, ctx, options) {
    const owner = registered.find((r) => r.vbatched !== undefined);
    if (!owner?.vbatched) throw new MyriadError('UNSUPPORTED', `--vbatched needs a CUDA context (backend: ${ctx.backend})`, '--vbatched');
    return owner.vbatched(op, workload, ctx, options);
  },
};
