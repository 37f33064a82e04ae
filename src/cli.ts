#!/usr/bin/env node
/**
 * The myriad command:
 *   myriad info                     backends found, and why one is unusable
 *   myriad demo [--backend B] [--dtype D]
 *                                   the main job (npm start): batched posv and gesv, with residuals
 *   myriad bench <op> [--backend B] [--dtype D] [--sizes 2,4,8] [--batch N] [--repeats R] [--json FILE]
 *                     [--format text|markdown]
 *                     [--devices all|0,1]   several GPUs: one device, then all listed (src/cuda/multi/bench.ts)
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { probeBackends, type BackendChoice } from './api/backends.js';
import { open } from './api/open.js';
import type { Context } from './api/context.js';
import { parseEnumValue } from './core/enums.js';
import { MyriadError } from './core/errors.js';
import type { DType } from './core/dtype.js';
import { DEMO_COLUMNS, runDemo } from './bench/demo.js';
import { BENCH_COLUMNS, runBench, type BenchRow } from './bench/run.js';
import { formatTable, TABLE_STYLES, type TableStyle } from './bench/table.js';
import { BENCH_OPS, type BenchOp } from './bench/workloads.js';
import { benchExtras } from './bench/extras.js';
import './cuda/bench.js'; // registers the CUDA limits and vendor baselines
import './bench/cpu.js'; // the CPU's roofline and numpy baseline
import { MULTI_COLUMNS, runMultiBench } from './cuda/multi/bench.js';
import { parseDevices } from './cuda/multi/open.js';

const USAGE = `usage:
  myriad info
  myriad demo  [--backend auto|cpu|cuda|reference] [--dtype float64|float32]
  myriad bench <op> [--backend auto|cpu|cuda|reference] [--dtype float64|float32|both] [--sizes 2,4,8]
               [--batch N] [--repeats R] [--json FILE] [--devices all|0,1] [--format text|markdown]
  ops: ${[...BENCH_OPS, ...benchExtras.names].join(', ')}`;

function info(): void {
  const status = probeBackends();
  for (const [name, s] of Object.entries(status)) {
    console.log(`${name.padEnd(5)} ${s.usable ? 'usable' : 'unusable'}: ${s.usable ? s.detail ?? '' : s.reason ?? ''}`);
  }
  const ctx = open({ backend: 'auto' });
  console.log(`auto  -> ${ctx.describe()}`);
}

function parseSizes(text: string | undefined, fallback: number[]): number[] {
  if (text === undefined) return fallback;
  const sizes = text.split(',').map((s) => Number(s.trim()));
  if (sizes.some((n) => !Number.isSafeInteger(n) || n < 0)) throw new MyriadError('INVALID_ARGUMENT', `expected a comma-separated list of sizes, got '${text}'`, '--sizes');
  return sizes;
}

function parsePositive(text: string | undefined, argument: string): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n <= 0) throw new MyriadError('INVALID_ARGUMENT', `expected a positive integer, got '${text}'`, argument);
  return n;
}

function dtypes(text: string | undefined): DType[] {
  const d = parseEnumValue(text ?? 'float64', ['float64', 'float32', 'both'] as const, '--dtype');
  return d === 'both' ? ['float64', 'float32'] : [d];
}

function openFor(backend: string | undefined): Context {
  return open({ backend: parseEnumValue(backend ?? 'auto', ['auto', 'cpu', 'cuda', 'reference'] as const, '--backend') as BackendChoice });
}

async function bench(op: string | undefined, values: { [K in "backend" | "dtype" | "sizes" | "batch" | "repeats" | "json" | "devices" | "format"]?: string }): Promise<void> {
  if (op === undefined) throw new MyriadError('INVALID_ARGUMENT', `which operation? ${USAGE}`, 'op');
  const style = parseEnumValue(values.format ?? 'text', TABLE_STYLES, '--format') as TableStyle;
  if (values.devices !== undefined) return benchDevices(op, values, style);
  const ctx = openFor(values.backend);
  console.error(`backend: ${ctx.describe()}`);
  let rows: BenchRow[] | Record<string, unknown>[];
  if (benchExtras.names.includes(op)) {
    rows = await benchExtras.run(op, ctx, { dtypes: dtypes(values.dtype), sizes: values.sizes, json: values.json, style });
  } else {
    parseEnumValue(op, BENCH_OPS, 'op');
    const sizes = parseSizes(values.sizes, [2, 4, 8, 16, 32]);
    const batch = parsePositive(values.batch, '--batch');
    const repeats = parsePositive(values.repeats, '--repeats');
    const limits = benchExtras.limits(ctx);
    const vendor = benchExtras.vendor(ctx);
    const benchRows: BenchRow[] = [];
    for (const dtype of dtypes(values.dtype)) {
      benchRows.push(...runBench(ctx, {
        op: op as BenchOp, dtype, sizes, ...(batch ? { batch } : {}), ...(repeats ? { repeats } : {}),
        ...(limits ? { limits } : {}), ...(vendor ? { vendor } : {}),
        targetBytes: benchTargetBytes(ctx.backend, op as BenchOp),
      }));
    }
    console.log(formatTable(benchRows, BENCH_COLUMNS, style));
    rows = benchRows;
  }
  if (values.json) {
    writeFileSync(values.json, JSON.stringify(rows, null, 2) + '\n');
    console.error(`wrote ${rows.length} rows to ${values.json}`);
  }
}

/** --devices: resident rows on one device then all listed, plus host-start rows (per-device and total throughput, scaling efficiency). */
function benchDevices(op: string, values: { [K in "dtype" | "sizes" | "batch" | "repeats" | "json" | "devices"]?: string }, style: TableStyle): void {
  const batch = parsePositive(values.batch, '--batch');
  const repeats = parsePositive(values.repeats, '--repeats');
  const rows = runMultiBench(parseDevices(values.devices!), {
    op: parseEnumValue(op, BENCH_OPS, 'op'), dtypes: dtypes(values.dtype), sizes: parseSizes(values.sizes, [8, 16, 32]),
    ...(batch ? { batch } : {}), ...(repeats ? { repeats } : {}),
  });
  console.log(formatTable(rows, MULTI_COLUMNS, style));
  if (values.json) {
    writeFileSync(values.json, JSON.stringify(rows, null, 2) + '\n');
    console.error(`wrote ${rows.length} rows to ${values.json}`);
  }
}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      backend: { type: 'string' }, dtype: { type: 'string' }, sizes: { type: 'string' },
      batch: { type: 'string' }, repeats: { type: 'string' }, json: { type: 'string' }, devices: { type: 'string' }, format: { type: 'string' }, help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || command === undefined || command === 'help') {
    console.log(USAGE);
    return;
  }
  switch (command) {
    case 'info':
      info();
      return;
    case 'demo': {
      const ctx = openFor(values.backend);
      console.error(`backend: ${ctx.describe()}`);
      for (const dtype of dtypes(values.dtype)) console.log(formatTable(runDemo(ctx, dtype), DEMO_COLUMNS));
      return;
    }
    case 'bench':
      await bench(rest[0], values);
      return;
    default:
      throw new MyriadError('INVALID_ARGUMENT', `unknown command '${command}'\n${USAGE}`, 'command');
  }
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e instanceof MyriadError ? `myriad: ${e.message}` : e);
    process.exit(e instanceof MyriadError && e.code !== 'CUDA' && e.code !== 'NVRTC' ? 2 : 1);
  },
);

/**
 * Bytes of matrices per benchmark call: the issues' measuring conditions (about 1 GB per gemm call,
 * 0.5 GB for the factorisations and solves) on a GPU, 16 MiB on the CPU reference.
 */
function benchTargetBytes(backend: string, op: BenchOp): number {
  if (backend === 'cpu') return 16 << 20;
  return op === 'gemm' ? 1 << 30 : 512 << 20;
}
