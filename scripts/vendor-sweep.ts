/**
 * Measures the vendor crossovers of the card it runs on and writes its table (src/bench/vendor-sweep.ts):
 *
 *   npm run build && node dist/scripts/vendor-sweep.js [--ops gemm,potrf,getrf,syev,trsm,getrs,gesv] [--dtype float64,float32[,complex128,complex64]]
 *     [--repeats 5] [--out FILE] [--rows FILE] [--dry-run [--sms 132]]
 *
 * --out: the table's TypeScript source (src/cuda/model/tuning/vendor-<card>.ts, registered in
 * vendor-tables.ts), printed to stdout without it; --rows: every measured row as a markdown table;
 * --dry-run: the grid alone, no GPU (--sms: the SMs the solves' large counts are sized for; without
 * it, the base counts only). Progress goes to stderr, one line a case. The table holds the
 * rules of the operations measured in the run: measure them all in one run (the default).
 */
import { writeFileSync } from 'node:fs';
import { Context } from '../src/api/context.js';
import { CudaBackend } from '../src/cuda/backend.js';
import { openDevice } from '../src/cuda/runtime/index.js';
import type { ElementType } from '../src/core/dtype.js';
import { isElementType } from '../src/core/dtype-table.js';
import type { VendorOp } from '../src/cuda/model/tuning/vendor-tables.js';
import { measureCase, rowsMarkdown, rulesFromRows, tableNames, tableSource, vendorGrid, type SweepRow } from '../src/bench/vendor-sweep.js';

const OPS: readonly VendorOp[] = ['gemm', 'potrf', 'getrf', 'syev', 'trsm', 'getrs', 'gesv'];

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const ops = (option('ops') ?? OPS.join(',')).split(',').map((s) => s.trim()) as VendorOp[];
for (const op of ops) if (!OPS.includes(op)) throw new Error(`--ops: unknown operation '${op}' (${OPS.join(', ')})`);
const dtypes = (option('dtype') ?? 'float64,float32').split(',').map((s) => s.trim());
for (const d of dtypes) if (!isElementType(d)) throw new Error(`--dtype: float64, float32, complex128 or complex64, got '${d}'`);
const elementTypes = dtypes as ElementType[];
const repeats = Number(option('repeats') ?? 5);

if (process.argv.includes('--dry-run')) {
  const sms = option('sms');
  for (const c of vendorGrid(ops, elementTypes, sms === undefined ? undefined : Number(sms))) {
    process.stdout.write(`${c.op} ${c.route} ${c.dtype} ${c.series} n=${c.n}${c.nrhs !== undefined ? ` nrhs=${c.nrhs}` : ''}${c.side ? ` ${c.side}` : ''} count=${c.count}${c.level ? ` (${c.level})` : ''}\n`);
  }
  process.exit(0);
}

const dev = openDevice(0);
const grid = vendorGrid(ops, elementTypes, dev.info.smCount);
const backend = new CudaBackend(dev, 'vendor sweep');
const ctx = new Context('cuda', backend, backend);
const rows: SweepRow[] = [];
const t0 = performance.now();
for (const c of grid) {
  // Large single matrices: fewer repeats (each call is tens to hundreds of milliseconds).
  const row = measureCase(ctx, backend, dev, c, c.series === 'single' && c.n >= 8192 ? Math.min(3, repeats) : repeats);
  rows.push(row);
  const ratio = row.error ? `failed: ${row.error}` : row.own === 'cpu' ? 'own is the CPU reference' : row.ratio.toFixed(2);
  process.stderr.write(`${((performance.now() - t0) / 1000).toFixed(0)} s  ${c.op} ${c.route} ${c.dtype} n=${c.n}${c.nrhs !== undefined ? ` nrhs=${c.nrhs}` : ''} x ${c.count}: own ${row.own} ${row.ownMs.toFixed(3)} ms, vendor ${row.vendorMs.toFixed(3)} ms, ${ratio}\n`);
}

const card = dev.info.name;
const date = new Date().toISOString().slice(0, 10);
const provenance = `${card} (${dev.info.arch}, ${dev.info.smCount} SMs), ${date}`;
const command = `node dist/scripts/vendor-sweep.js --ops ${ops.join(',')} --dtype ${dtypes.join(',')} --repeats ${repeats}`;
const source = tableSource(card, provenance, command, rulesFromRows(rows));
const out = option('out');
if (out !== undefined) {
  writeFileSync(out, source);
  process.stderr.write(`wrote ${out}: put it at src/cuda/model/tuning/${tableNames(card).file} (export ${tableNames(card).constant}) and list it in vendor-tables.ts\n`);
} else {
  process.stdout.write(source);
}
const rowsOut = option('rows');
if (rowsOut !== undefined) writeFileSync(rowsOut, `${rowsMarkdown(rows)}\n`);
process.stderr.write(`${rows.length} cases in ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
backend.dispose();
