/**
 * Runs test files in processes of their own under the schedule (schedule.ts): each as
 * `node --test --test-reporter=<reporter.js> <file>`, killed (its whole process group) past its
 * time limit, its output parsed (report.ts) and judged (summary.ts).
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseRun } from './report.js';
import { fitsAlone, nextStarts, type FileNeeds, type Machine, type Running } from './schedule.js';
import { judge, notRun, type FileResult } from './summary.js';

const reporter = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), 'reporter.js')).href;

export interface SuiteOptions {
  readonly files: readonly string[];
  readonly machine: Machine;
  readonly needsOf: (file: string) => FileNeeds;
  readonly timeoutSOf: (file: string) => number;
  readonly skipAllowed: (file: string, reason: string) => boolean;
  readonly logDir: string;
  /** Extra environment for every child (the runner: MYRIAD_REQUIRE_GPU=1). */
  readonly env?: Readonly<Record<string, string>>;
  /** Where a child on device d runs: CUDA_VISIBLE_DEVICES (undefined: leave the variable alone). */
  readonly visibleFor?: (device: number) => string | undefined;
  /** Called as each file finishes, and once before the first starts. */
  readonly onProgress?: (results: ReadonlyMap<string, FileResult>, finished: FileResult | undefined) => void;
}

/** The name files carry in results: relative to the working directory. */
export const displayName = (file: string): string => relative(process.cwd(), file) || file;

function runFile(file: string, device: number | 'all', o: SuiteOptions): Promise<FileResult> {
  return new Promise((done) => {
    const started = Date.now();
    const env: NodeJS.ProcessEnv = { ...process.env, ...o.env };
    // Set where this process itself runs under node --test: the child would then report to it in
    // node's internal format instead of through our reporter.
    delete env['NODE_TEST_CONTEXT'];
    if (device !== 'all') {
      const visible = o.visibleFor?.(device);
      if (visible !== undefined) env['CUDA_VISIBLE_DEVICES'] = visible;
    }
    const child = spawn(process.execPath, ['--test', `--test-reporter=${reporter}`, '--test-reporter-destination=stdout', file], {
      env, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => chunks.push(b));
    child.stderr.on('data', (b: Buffer) => chunks.push(b));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      // The whole process group: node --test runs the file in a child process of its own.
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, o.timeoutSOf(file) * 1000);
    let ended = false;
    const finish = (code: number | null, signal: string | null, spawnError?: Error): void => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      const seconds = (Date.now() - started) / 1000;
      const text = Buffer.concat(chunks).toString('utf8') + (spawnError ? `\nspawn failed: ${spawnError.message}\n` : '');
      const report = parseRun(text);
      const log = join(o.logDir, `${basename(file).replace(/\.js$/, '')}.log`);
      try {
        writeFileSync(log, `${report.output.join('\n')}\n`);
      } catch {
        // the table still says what failed
      }
      done(judge(displayName(file), report, { code: spawnError ? 1 : code, signal, timedOut }, seconds, device, (reason) => o.skipAllowed(file, reason), log));
    };
    child.on('error', (e) => finish(null, null, e));
    child.on('close', (code, signal) => finish(code, signal));
  });
}

/** Runs every file; results in the order of `files`. */
export async function runSuite(o: SuiteOptions): Promise<FileResult[]> {
  const results = new Map<string, FileResult>();
  const queue = o.files.filter((f) => {
    if (fitsAlone(o.needsOf(f), o.machine)) return true;
    const n = o.needsOf(f);
    results.set(f, notRun(displayName(f), `needs ${(n.memory / 2 ** 30).toFixed(1)} GiB${n.allGpus ? ' on every GPU' : ''}, more than a GPU of this machine can give`));
    return false;
  });
  const running: (Running & { readonly promise: Promise<FileResult> })[] = [];
  o.onProgress?.(results, undefined);
  while (queue.length > 0 || running.length > 0) {
    for (const s of nextStarts(queue, o.needsOf, running, o.machine)) {
      queue.splice(queue.indexOf(s.file), 1);
      running.push({ file: s.file, needs: o.needsOf(s.file), device: s.device, promise: runFile(s.file, s.device, o) });
    }
    if (running.length === 0) {
      for (const f of queue.splice(0)) results.set(f, notRun(displayName(f), 'could not be scheduled'));
      break;
    }
    const done = await Promise.race(running.map((r) => r.promise.then((result) => ({ r, result }))));
    running.splice(running.indexOf(done.r), 1);
    results.set(done.r.file, done.result);
    o.onProgress?.(results, done.result);
  }
  return o.files.map((f) => results.get(f)!);
}
