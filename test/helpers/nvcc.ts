/**
 * Compile checks of generated kernels without a GPU: nvcc -arch=sm_90 -cubin -Xptxas -v (as the
 * runtime compiles with NVRTC: C++17, no fast math), two at a time, with ptxas's resource report.
 * Where nvcc is not on PATH the tests skip with one line (`NVCC_SKIP`).
 *
 * Each check compiles a representative few kernels by default (one or two per design, so the
 * suite stays under a minute and a half on a two-core machine); MYRIAD_FULL_COMPILE=1 compiles
 * every kernel each check lists (several minutes).
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { KernelSource } from '../../src/cuda/runtime/types.js';

const run = promisify(execFile);

/** Undefined where nvcc runs, else the one-line reason to skip. */
export const NVCC_SKIP: string | undefined =
  spawnSync('nvcc', ['--version'], { encoding: 'utf8' }).status === 0 ? undefined : 'nvcc not on PATH: compile check skipped';

/** MYRIAD_FULL_COMPILE=1: the exhaustive compile sweep. */
export const FULL_COMPILE = process.env['MYRIAD_FULL_COMPILE'] === '1';

/** All of `sources` under MYRIAD_FULL_COMPILE=1, else those whose entry `representative` accepts. */
export function compileSet(sources: readonly KernelSource[], representative: (entry: string) => boolean): KernelSource[] {
  if (FULL_COMPILE) return [...sources];
  const picked = sources.filter((s) => representative(s.entry));
  // A renamed kernel must not quietly empty the default check.
  if (picked.length === 0) throw new Error('the representative compile set is empty: update its entry pattern');
  if (process.env['DEBUG_COMPILE_SET']) console.error(picked.map((s) => s.entry).join('\n'));
  return picked;
}

export interface PtxasReport {
  /** NaN where ptxas printed no such line. */
  registers: number;
  stackFrame: number;
  spillStores: number;
  log: string;
}

/** One kernel's outcome: its report, or the compiler's error output. */
export type CompileResult = { src: KernelSource; report: PtxasReport } | { src: KernelSource; error: string };

/** Compiles every source (distinct by entry) for sm_90; `workers` nvcc processes at a time. */
export async function compileForSm90(sources: readonly KernelSource[], workers = 2): Promise<CompileResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-nvcc-'));
  const queue = [...new Map(sources.map((s) => [s.entry, s])).values()];
  const results: CompileResult[] = [];
  const worker = async (): Promise<void> => {
    for (let src = queue.shift(); src !== undefined; src = queue.shift()) {
      const file = join(dir, src.name);
      writeFileSync(file, src.source);
      try {
        const { stdout, stderr } = await run('nvcc', ['-arch=sm_90', '-std=c++17', '-cubin', '-Xptxas', '-v', '-o', `${file}.cubin`, file]);
        const log = stdout + stderr;
        const num = (re: RegExp): number => Number(re.exec(log)?.[1] ?? NaN);
        results.push({ src, report: { registers: num(/Used (\d+) registers/), stackFrame: num(/(\d+) bytes stack frame/), spillStores: num(/(\d+) bytes spill stores/), log } });
      } catch (e) {
        results.push({ src, error: (e as { stderr?: string }).stderr ?? String(e) });
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: workers }, worker));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

/** Failure lines: compile errors, plus whatever `check` says about a report (undefined: fine). */
export function compileFailures(results: readonly CompileResult[], check: (r: PtxasReport) => string | undefined): string[] {
  return results.flatMap((r) => {
    if ('error' in r) return [`${r.src.entry}: nvcc failed\n${r.error}`];
    const problem = check(r.report);
    return problem === undefined ? [] : [`${r.src.entry}: ${problem}\n${r.report.log}`];
  });
}
