/**
 * Stand-alone runner for the GPU machine (no CLI needed):
 *   node dist/src/cuda/tune/tsm2-main.js [--out DIR] [--tune] [--no-bench]   (or: node dist/src/cuda/tune/main.js tsm2 ...)
 * Prints the card, the copy bandwidth and one table row per case; writes tsm2-bench.json and
 * (with --tune) tsm2-sweep.json into DIR as rows arrive. --tune sweeps first and then benchmarks
 * with the sweep's winners (printed as tuning-table entries, to be checked in as sm_90 data).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DType } from '../../core/dtype.js';
import { dtypeInfo } from '../../core/dtype-table.js';
import { openDevice } from '../runtime/index.js';
import { benchTsm2, defaultTsm2Cases, measureCopyBandwidth, type Tsm2BenchRow, type Tsm2Case } from './tsm2-bench.js';
import { sweepTsm2, sweepWinners, type SweepWinner } from './tsm2-sweep.js';
import type { Tsm2Options } from '../kernels/tsm2/launch.js';

const args = process.argv.slice(2);
const outDir = args.includes('--out') ? args[args.indexOf('--out') + 1]! : '.';
/** The short name of a dtype in the rows and in --only (f64, f32). */
const dtypeLabel = (dtype: DType): string => dtypeInfo(dtype).cuda.ptx.type;
const fmt = (x: number | undefined, d = 1): string => (x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(d));

function line(r: Tsm2BenchRow): string {
  return [r.op, dtypeLabel(r.dtype), r.m, r.n, r.k, fmt(r.ms, 4), fmt(r.gflops, 0), fmt(r.gbs, 0), fmt(r.pctCopy),
    fmt(r.vendorMs, 4), fmt(r.vendorGbs, 0), fmt(r.speedup, 2), r.relDiff === undefined ? '-' : r.relDiff.toExponential(1), r.plan ?? '']
    .map(String).join(' | ');
}
const HEADER = 'op | dtype | m | n | k | ms | GFLOP/s | GB/s | %copy | cuBLAS ms | cuBLAS GB/s | speed-up | rel diff | plan';

async function main(): Promise<void> {
  const dev = openDevice(0);
  const copy = measureCopyBandwidth(dev);
  console.log(`# ${dev.info.name} (${dev.info.arch}, ${dev.info.smCount} SMs), copy bandwidth ${(copy / 1e9).toFixed(0)} GB/s (read + write)`);
  let winners = new Map<string, SweepWinner>();
  if (args.includes('--tune')) {
    // --only f64:16,32;f32:32 --m 10240,30720 --seconds 80: a slice of the sweep within a lease.
    const only = args.includes('--only') ? args[args.indexOf('--only') + 1]! : undefined;
    const ms = args.includes('--m') ? args[args.indexOf('--m') + 1]!.split(',').map(Number) : [10240, 20480];
    const seconds = args.includes('--seconds') ? Number(args[args.indexOf('--seconds') + 1]) : Infinity;
    const wanted = (c: Tsm2Case): boolean => {
      if (only === undefined) return true;
      const part = only.split(';').find((q) => q.startsWith(`${dtypeLabel(c.dtype)}:`));
      return part !== undefined && part.slice(4).split(',').map(Number).includes(c.n);
    };
    const cases = defaultTsm2Cases().filter((c) => (c.op === 'tsm2r' ? ms.includes(c.m) && wanted(c) : c.m === 1e6 && !args.includes('--no-l')));
    // Smallest m first, TSM2L last: a sweep cut short by --seconds still covers both precisions.
    cases.sort((x, y) => Number(x.op === 'tsm2l') - Number(y.op === 'tsm2l') || x.m - y.m);
    const rows: Tsm2BenchRow[] = [];
    console.log(`# sweep\n${HEADER}`);
    sweepTsm2(dev, cases, (r) => {
      rows.push(r);
      console.log(line(r));
      writeFileSync(join(outDir, 'tsm2-sweep.json'), JSON.stringify({ device: dev.info.name, rows }, null, 1));
    }, Date.now() + seconds * 1000);
    winners = sweepWinners(rows);
    console.log('# winners (mean GB/s over the swept m)');
    for (const w of winners.values()) console.log(`${w.key} ${w.meanGbs.toFixed(0)} ${JSON.stringify(w.overrides)}`);
  }
  if (!args.includes('--no-bench')) {
    const rows: Tsm2BenchRow[] = [];
    console.log(HEADER);
    await benchTsm2(dev, {
      copyGBs: copy / 1e9,
      overrides: (c): Tsm2Options | undefined => winners.get(`${c.op}:${c.dtype}:${c.n}`)?.overrides,
      onRow: (r) => {
        rows.push(r);
        console.log(line(r));
        writeFileSync(join(outDir, 'tsm2-bench.json'), JSON.stringify({ device: dev.info.name, copyGBs: copy / 1e9, rows }, null, 1));
      },
    });
  }
  dev.dispose();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
