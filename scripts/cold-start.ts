/**
 * Cold start on a GPU: the first call of each shape, each in a fresh process (nothing in memory),
 * and `npm start` (the demo) as a whole process. Plain node, no dev dependencies:
 *
 *   npm run build && node dist/scripts/cold-start.js [--out cold.json] [--shapes getrf:512,syev:32] [--modes cold,disk,warm,seq]
 *
 * Modes, each shape in its own child process:
 * - cold: an empty cache folder (MYRIAD_CACHE_DIR, a new temporary folder): the first call compiles
 *   every kernel it needs (several at once on the compile workers, backend.ts's prefetch);
 * - disk: a second process on the folder the cold run filled: the first call loads from disk;
 * - warm: an empty folder, `ctx.warm` for the shape first (timed), then the first call;
 * - seq: as cold with MYRIAD_COMPILE_THREADS=1 (one kernel after the other: the state before the
 *   compile workers), for comparison.
 * The first call's time is the wall clock around ctx.time (so the GPU work is waited for), the
 * data made and uploaded before it; where the first call ran quick builds (runtime/tiered.ts), the
 * second call waits for what is left of their optimised builds (`secondMs`); `runMs` is the third
 * call's (the kernels' own time), so firstMs - runMs is what the first call spent compiling or loading. `compiled` and `fromDisk` are the
 * module cache's counters over the first call. The demo (`node dist/src/cli.js demo`) is timed
 * as a whole process, with an empty folder and again with the filled one.
 * Targets: `npm start` on a GPU with an empty cache under 3 s; any single new shape under 1 s.
 *
 * NVRTC (CUDA 12.9+) keeps a compile cache of its own, in the driver's compute cache (~/.nv/ComputeCache,
 * or CUDA_CACHE_PATH): a source any process compiled before on the machine compiles again in
 * milliseconds, whatever MYRIAD_CACHE_DIR says. So each child here gets a new, empty CUDA_CACHE_PATH
 * too, and its compiles are real; what only the first process on a fresh machine meets (the
 * libraries and the code read from a cold disk: 0.2-0.4 s on an H200 machine) needs the script run
 * first on a fresh machine. A shape whose kernels the same child compiled for another call (gemm
 * kernels shared by the getrf drivers) shows it in `compiled` but not in time.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { open } from '../src/api/open.js';
import { warmShapes } from '../src/api/warm.js';
import { parseShape as warmCall } from './compile-times.js';
import type { DType } from '../src/core/dtype.js';
import { Random } from '../src/bench/data.js';
import { BENCH_OPS, workloadFor, type BenchOp } from '../src/bench/workloads.js';
import '../src/bench/cuda.js';

/** The measured shapes (op:n[:dtype[:count]]; count default: the bench's) and the demo's two calls. */
export const DEFAULT_SHAPES = [
  'gemm:8', 'gemm:32', 'gemm:128', 'potrf:8', 'potrf:128', 'getrf:128', 'getrf:512', 'getrf:4096', 'getrf:10240:float32',
  'posv:256', 'syev:32', 'posv:8:float64:100000', 'gesv:64:float64:10000',
];

const MODES = ['cold', 'disk', 'warm', 'seq'] as const;
type Mode = (typeof MODES)[number];

interface ChildResult {
  shape: string; mode: Mode; count: number;
  /** Opening the CUDA context (driver, NVRTC on first use is in the first call). */
  openMs: number;
  warmMs?: number; warmCompiled?: number;
  firstMs: number;
  /** The second call: where the first ran quick builds (runtime/tiered.ts), it waits for what is left of the optimised builds. */
  secondMs: number;
  runMs: number; compiled: number; fromDisk: number;
  /** Compile time on the caller's thread (the workers' compiles are not in it). */
  callerCompileMs: number;
  error?: string;
}

const here = dirname(fileURLToPath(import.meta.url));
const self = join(here, 'cold-start.js');
const cli = resolve(here, '..', 'src', 'cli.js');

function parseShape(shape: string): { op: BenchOp; n: number; dtype: DType; count: number } {
  const { op: warmOp, options } = warmCall(shape);
  // The first call is timed on the op's bench workload (getri, which warm plans, has none).
  if (!(BENCH_OPS as readonly string[]).includes(warmOp)) throw new Error(`cold-start times bench workloads; ${warmOp} has none`);
  const { dtype, shapes } = warmShapes(warmOp, options);
  return { op: warmOp as BenchOp, n: options.sizes[0]!, dtype, count: shapes[0]!.count };
}

/** In the child: one shape, one mode; prints one JSON line. */
async function child(shape: string, mode: Mode): Promise<void> {
  const { op, n, dtype, count } = parseShape(shape);
  const t0 = performance.now();
  const ctx = open({ backend: 'cuda' });
  const openMs = performance.now() - t0;
  const result: ChildResult = { shape, mode, count, openMs, firstMs: NaN, secondMs: NaN, runMs: NaN, compiled: 0, fromDisk: 0, callerCompileMs: 0 };
  if (mode === 'warm') {
    const w0 = performance.now();
    const r = await ctx.warm(op as Parameters<typeof ctx.warm>[0], { sizes: [n], dtype, count });
    result.warmMs = performance.now() - w0;
    result.warmCompiled = r.compiled;
  }
  const prepared = workloadFor(op).prepare(ctx, dtype, n, count, new Random(1));
  const stats = () => ctx.deviceBackend?.moduleStats?.();
  const before = stats();
  const f0 = performance.now();
  ctx.time(prepared.run);
  result.firstMs = performance.now() - f0;
  const after = stats();
  if (before && after) {
    result.compiled = after.compiles - before.compiles;
    result.fromDisk = after.diskHits - before.diskHits;
    result.callerCompileMs = after.compileMs - before.compileMs;
  }
  prepared.reset();
  const s0 = performance.now();
  ctx.time(prepared.run);
  result.secondMs = performance.now() - s0;
  prepared.reset();
  result.runMs = ctx.time(prepared.run);
  prepared.dispose();
  console.log(`COLD-START ${JSON.stringify(result)}`);
}

/** A child's environment: our kernel cache `cacheDir`, and NVRTC's (the driver's compute cache) a new empty folder. */
function childEnv(cacheDir: string, nvrtcCacheDir: string, extraEnv: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, MYRIAD_CACHE_DIR: cacheDir, CUDA_CACHE_PATH: nvrtcCacheDir, ...extraEnv };
}

function runChild(shape: string, mode: Mode, cacheDir: string, nvrtcCacheDir: string, extraEnv: Record<string, string> = {}): ChildResult {
  const r = spawnSync(process.execPath, [self, '--child', shape, mode], {
    env: childEnv(cacheDir, nvrtcCacheDir, extraEnv), encoding: 'utf8', timeout: 300_000, maxBuffer: 1 << 24,
  });
  const line = (r.stdout ?? '').split('\n').find((l) => l.startsWith('COLD-START '));
  if (line) return JSON.parse(line.slice('COLD-START '.length)) as ChildResult;
  const error = `${r.error?.message ?? ''} status ${r.status}: ${(r.stderr ?? '').trim().split('\n').slice(-3).join(' | ')}`;
  return { shape, mode, count: 0, openMs: NaN, firstMs: NaN, secondMs: NaN, runMs: NaN, compiled: 0, fromDisk: 0, callerCompileMs: 0, error };
}

/** The demo as a process: its wall time, and when each of its progress lines (stderr) arrived, in ms from the start. */
function timeDemo(cacheDir: string, nvrtcCacheDir: string): Promise<{ ms: number; status: number | null; tail: string; lines: { ms: number; line: string }[] }> {
  return new Promise((done) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [cli, 'demo'], { env: childEnv(cacheDir, nvrtcCacheDir) });
    const lines: { ms: number; line: string }[] = [];
    let out = '', partial = '';
    child.stdout.on('data', (b: Buffer) => { out += b.toString(); });
    child.stderr.on('data', (b: Buffer) => {
      const parts = (partial + b.toString()).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) lines.push({ ms: performance.now() - t0, line });
    });
    const timer = setTimeout(() => child.kill(), 300_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      done({ ms: performance.now() - t0, status, tail: out.trim().split('\n').slice(-4).join('\n'), lines });
    });
  });
}

async function main(argv: readonly string[]): Promise<void> {
  if (argv[0] === '--child') return child(argv[1]!, argv[2] as Mode);
  const flag = (name: string): string | undefined => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
  const shapes = flag('--shapes')?.split(',') ?? DEFAULT_SHAPES;
  const modes = (flag('--modes')?.split(',') ?? ['cold', 'disk', 'warm']) as Mode[];
  for (const m of modes) if (!MODES.includes(m)) throw new Error(`--modes: one of ${MODES.join(', ')}, got ${m}`);
  const out = flag('--out');
  const dirs: string[] = [];
  const fresh = (): string => { const d = mkdtempSync(join(tmpdir(), 'myriad-cold-')); dirs.push(d); return d; };
  const rows: ChildResult[] = [];
  const demo: Record<string, { ms: number; status: number | null; tail: string; lines: { ms: number; line: string }[] }> = {};
  try {
    const demoDir = fresh();
    demo['cold'] = await timeDemo(demoDir, fresh());
    demo['disk'] = await timeDemo(demoDir, fresh());
    for (const [mode, d] of Object.entries(demo)) {
      console.error(`demo (the process npm start runs), ${mode === 'cold' ? 'empty' : 'filled'} cache: ${d.ms.toFixed(0)} ms, status ${d.status}`);
      for (const l of d.lines) console.error(`  ${l.ms.toFixed(0).padStart(6)} ms  ${l.line}`);
    }
    for (const shape of shapes) {
      const dir = fresh();
      for (const mode of modes) {
        const r = runChild(shape, mode, mode === 'disk' ? dir : mode === 'cold' ? dir : fresh(), fresh(), mode === 'seq' ? { MYRIAD_COMPILE_THREADS: '1' } : {});
        rows.push(r);
        console.error(r.error ? `${shape} ${mode}: FAILED ${r.error}`
          : `${shape.padEnd(24)} ${mode.padEnd(4)} first ${r.firstMs.toFixed(0).padStart(6)} ms, second ${r.secondMs.toFixed(0).padStart(5)} ms (run ${r.runMs.toFixed(1)} ms; ${r.compiled} compiled, ${r.fromDisk} from disk${r.warmMs !== undefined ? `; warm ${r.warmMs.toFixed(0)} ms, ${r.warmCompiled} compiled` : ''}; open ${r.openMs.toFixed(0)} ms)`);
      }
    }
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
  const report = { date: new Date().toISOString(), node: process.version, demo, rows };
  if (out) writeFileSync(out, JSON.stringify(report, null, 1) + '\n');
  console.log(JSON.stringify(report));
}

main(process.argv.slice(2)).catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
