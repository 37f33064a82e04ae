/**
 * The tuning command: sweeps one kernel family on the GPU and writes the rows it measured and the
 * table entries they imply, to check in under src/cuda/model/tuning/ (measured data).
 *
 *   node dist/src/cuda/tune/main.js potrf|getrf [--dtype f64|f32|both] [--out DIR] [--dry-run]
 *   node dist/src/cuda/tune/main.js tsm2 [--tune] [--out DIR] ...   (see tsm2-main.ts)
 *
 * --dry-run needs no GPU: it plans and generates every kernel of the sweep and prints the grid.
 * (The gemm sweep is test/gpu/gemm.test.ts with MYRIAD_GEMM_SWEEP=1.)
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DType } from '../../core/dtype.js';
import { planGetrf, getrfPanelSource, getrfRegisterSource } from '../kernels/getrf/index.js';
import { planPotrf, potrfPanelSource, potrfRegisterSource } from '../kernels/potrf/index.js';
import { tuningFor } from '../model/tuning/index.js';
import { openDevice } from '../runtime/index.js';
import {
  factorCases, factorGrid, factorTable, getrfForce, potrfForce, timeFactorPoint, type FactorCase, type FactorFamily, type FactorPoint, type FactorRow,
} from './factor-sweep.js';

/** The kernel a sweep point compiles for a case (planned as on a card with 227 KiB of shared memory per block). */
export function sweepKernelName(c: FactorCase, p: FactorPoint): string {
  const problem = { dtype: c.dtype, kind: 'strided' as const, sharedLimit: 232448 - 1024 };
  if (c.family === 'potrf') {
    const plan = planPotrf({ ...problem, uplo: 'lower', n: c.n }, tuningFor('sm_90', 'potrf'), { force: potrfForce(p) });
    return plan.variant === 'register' ? potrfRegisterSource(plan.params).entry : plan.variant === 'panel' ? potrfPanelSource(plan.params).entry : '?';
  }
  const plan = planGetrf({ ...problem, rows: c.n, cols: c.n }, tuningFor('sm_90', 'getrf'), { force: getrfForce(p) });
  return plan.variant === 'register' ? getrfRegisterSource(plan.params).entry : plan.variant === 'blocked' ? getrfPanelSource(plan.params).entry : '?';
}

/** The sweep's plan without a GPU: one line per case with its points and the kernels they compile. */
export function dryRun(family: FactorFamily, dtypes: readonly DType[]): string[] {
  return factorCases(family, dtypes).map((c) => {
    const points = factorGrid(c);
    const kernels = new Set(points.map((p) => sweepKernelName(c, p)));
    return `${family} ${c.dtype} n=${c.n}: ${points.length} points, ${kernels.size} kernels`;
  });
}

/** A table entry as TypeScript source (Infinity is not JSON). */
export function tableSource(name: string, table: object): string {
  const json = JSON.stringify(table, (_k, v: unknown) => (v === Infinity ? '__Infinity__' : v), 2).replace(/"__Infinity__"/g, 'Infinity');
  return `// Written by src/cuda/tune/main.ts: check the rows, then merge into model/tuning/.\nexport const ${name} = ${json};\n`;
}

function option(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(args: readonly string[]): Promise<void> {
  const family = args[0];
  if (family === 'tsm2') {
    await import('./tsm2-main.js');
    return;
  }
  if (family !== 'potrf' && family !== 'getrf') throw new Error(`usage: tune <potrf|getrf|tsm2> [--dtype f64|f32|both] [--out DIR] [--dry-run]`);
  const d = option(args, '--dtype') ?? 'both';
  const dtypes: DType[] = d === 'f64' ? ['float64'] : d === 'f32' ? ['float32'] : ['float64', 'float32'];
  if (args.includes('--dry-run')) {
    for (const line of dryRun(family, dtypes)) console.log(line);
    return;
  }
  const out = option(args, '--out') ?? '.';
  const dev = openDevice(0);
  try {
    const rows: FactorRow[] = [];
    for (const c of factorCases(family, dtypes)) {
      for (const p of factorGrid(c)) {
        let ms = NaN;
        try {
          ms = timeFactorPoint(dev, c, p);
        } catch (e) {
          console.error(`${family} ${c.dtype} n=${c.n} ${p.label}: ${(e as Error).message}`);
        }
        rows.push({ ...c, ...p, ms });
        console.log(`${family} ${c.dtype} n=${c.n} ${p.label}: ${ms.toFixed(4)} ms`);
      }
      writeFileSync(join(out, `${family}-${dev.info.arch}-sweep.json`), JSON.stringify({ device: dev.info.name, rows }, null, 1));
    }
    const file = join(out, `${family}-${dev.info.arch}-table.ts`);
    writeFileSync(file, tableSource(`${dev.info.arch.replace('_', '')}${family === 'potrf' ? 'Potrf' : 'Getrf'}Tuning`, factorTable(family, rows)));
    console.log(`wrote ${file}`);
  } finally {
    dev.dispose();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
