/**
 * The tuning command: sweeps one kernel family on the GPU and writes the rows it measured and the
 * table entries they imply, to check in under src/cuda/model/tuning/ (measured data).
 *
 *   node dist/src/cuda/tune/main.js potrf|getrf [--dtype f64|f32|both] [--out DIR] [--dry-run]
 *   node dist/src/cuda/tune/main.js gemm [--dtype ...] [--sizes 32,64,128,256] [--shapes 64,128,256] [--out DIR] [--dry-run]
 *   node dist/src/cuda/tune/main.js tsm2 [--tune] [--out DIR] ...   (see tsm2-main.ts)
 *
 * --dry-run needs no GPU: it plans and generates every kernel of the sweep and prints the grid.
 * gemm writes a markdown table of every point beside cuBLAS (its winners are read into
 * model/tuning/gemm-<arch>.ts by hand: the small kernel's bands need judgement).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DType } from '../../core/dtype.js';
import { gemmSource } from '../kernels/gemm/index.js';
import { planGetrf, getrfPanelSource, getrfRegisterSource } from '../kernels/getrf/index.js';
import { planPotrf, potrfPanelSource, potrfRegisterSource } from '../kernels/potrf/index.js';
import { tuningFor } from '../model/tuning/index.js';
import { openDevice } from '../runtime/index.js';
import type { DeviceInfo } from '../runtime/types.js';
import { gemmCandidates, sweepGemm } from './gemm-sweep.js';
import {
  factorCases, factorData, factorGrid, factorTable, getrfForce, potrfForce, timeFactorPoint, type FactorCase, type FactorFamily, type FactorPoint, type FactorRow,
} from './factor-sweep.js';

/** The card a dry run plans for: an H100's attributes (cuDeviceGetAttribute). */
const NOMINAL_SM90: DeviceInfo = {
  ordinal: 0, name: 'NVIDIA H100 80GB HBM3 (nominal)', arch: 'sm_90', major: 9, minor: 0, smCount: 132, warpSize: 32,
  maxThreadsPerBlock: 1024, maxThreadsPerSM: 2048, maxBlocksPerSM: 32, regsPerBlock: 65536, regsPerSM: 65536,
  sharedPerBlock: 49152, sharedPerBlockOptin: 232448, sharedPerSM: 233472, clockKHz: 1980000,
  memoryClockKHz: 2619000, memoryBusWidthBits: 5120, l2Bytes: 52428800, totalMemoryBytes: 85e9,
};

/** The kernel a sweep point compiles for a case (planned as on the nominal H100). */
export function sweepKernelName(c: FactorCase, p: FactorPoint): string {
  const problem = { dtype: c.dtype, kind: 'strided' as const, sharedLimit: NOMINAL_SM90.sharedPerBlockOptin - 1024 };
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

const sizesOf = (text: string | undefined, fallback: number[]): number[] =>
  text === undefined ? fallback : text.split(',').map(Number).filter((x) => x > 0);

/** The gemm sweep's candidates without a GPU (planned for a nominal H100). */
export function gemmDryRun(dtypes: readonly DType[], sizes: readonly number[]): string[] {
  return dtypes.flatMap((dtype) => sizes.map((n) => {
    const candidates = gemmCandidates(NOMINAL_SM90, dtype, n);
    const kernels = new Set(candidates.map((p) => gemmSource(p).entry));
    return `gemm ${dtype} n=${n}: ${candidates.length} points, ${kernels.size} kernels`;
  }));
}

function runGemm(args: readonly string[], dtypes: readonly DType[]): void {
  const sizes = sizesOf(option(args, '--sizes'), [32, 64, 128, 256]);
  if (args.includes('--dry-run')) {
    for (const line of gemmDryRun(dtypes, sizes)) console.log(line);
    return;
  }
  const out = option(args, '--out') ?? '.';
  const dev = openDevice(0);
  try {
    const file = join(out, `gemm-${dev.info.arch}-sweep.md`);
    const rows = sweepGemm(dev, { dtypes, sizes, shapeSizes: sizesOf(option(args, '--shapes'), [64, 128, 256]), onRows: (r) => writeFileSync(file, `${r.join('\n')}\n`) });
    console.log(rows.join('\n'));
  } finally {
    dev.dispose();
  }
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
  const d = option(args, '--dtype') ?? 'both';
  const dtypes: DType[] = d === 'f64' ? ['float64'] : d === 'f32' ? ['float32'] : ['float64', 'float32'];
  if (family === 'gemm') {
    runGemm(args, dtypes);
    return;
  }
  if (family !== 'potrf' && family !== 'getrf') throw new Error(`usage: tune <potrf|getrf|gemm|tsm2> [--dtype f64|f32|both] [--out DIR] [--dry-run]`);
  if (args.includes('--dry-run')) {
    for (const line of dryRun(family, dtypes)) console.log(line);
    return;
  }
  const out = option(args, '--out') ?? '.';
  const dev = openDevice(0);
  try {
    const rows: FactorRow[] = [];
    for (const c of factorCases(family, dtypes)) {
      const data = factorData(dev, c);
      try {
        for (const p of factorGrid(c)) {
          let ms = NaN;
          try {
            ms = timeFactorPoint(dev, c, p, data);
          } catch (e) {
            console.error(`${family} ${c.dtype} n=${c.n} ${p.label}: ${(e as Error).message}`);
          }
          rows.push({ ...c, ...p, ms });
          console.log(`${family} ${c.dtype} n=${c.n} ${p.label}: ${ms.toFixed(4)} ms`);
        }
      } finally {
        data.dispose();
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
