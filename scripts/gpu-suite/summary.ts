/**
 * A file's verdict from its report and how its process ended, and the suite's table. Pure.
 *
 * On a machine with a GPU a file passes only where every test it declares ran and passed, or was
 * skipped for a reason plan.ts allows (an opt-in, a second GPU that is not there); a file that
 * reported no test at all, crashed, or ran out of time fails.
 */
import type { FailureEntry, FileReport } from './report.js';

export type FileStatus = 'passed' | 'failed' | 'crashed' | 'timed out' | 'not run';

export interface Ending {
  /** Exit code, or null where a signal ended it. */
  readonly code: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
}

export interface FileResult {
  readonly file: string;
  readonly status: FileStatus;
  readonly pass: number;
  readonly fail: number;
  readonly skip: number;
  readonly todo: number;
  readonly seconds: number;
  readonly device: number | 'all' | null;
  readonly skips: readonly { readonly test: string; readonly reason: string; readonly allowed: boolean }[];
  readonly failures: readonly FailureEntry[];
  /** Where the file's full output was written. */
  readonly log?: string;
  /** The last lines of its output, for a file that did not pass (the JSON travels without the logs). */
  readonly outputTail?: readonly string[];
}

export function judge(
  file: string, report: FileReport, end: Ending, seconds: number, device: number | 'all' | null,
  allowed: (reason: string) => boolean, log?: string, tailLines = 60,
): FileResult {
  const skips = report.skips.map((s) => ({ ...s, allowed: allowed(s.reason) }));
  const failures: FailureEntry[] = [...report.failures];
  for (const s of skips) if (!s.allowed) failures.push({ test: s.test, message: `skipped on a machine with a GPU: ${s.reason || '(no reason given)'}` });
  const ran = report.pass + report.fail + report.skip + report.todo;
  let status: FileStatus;
  if (end.timedOut) {
    status = 'timed out';
    failures.push({ test: '(file)', message: `killed after ${seconds.toFixed(0)} s (its results, if any, were lost)` });
  } else if (failures.length > 0) status = 'failed';
  else if (end.code !== 0) {
    status = 'crashed';
    failures.push({ test: '(file)', message: end.signal ? `ended by ${end.signal}` : `exit code ${end.code}` });
  } else if (ran === 0) {
    status = 'failed';
    failures.push({ test: '(file)', message: 'reported no tests' });
  } else status = 'passed';
  return {
    file, status, pass: report.pass, fail: report.fail, skip: report.skip, todo: report.todo, seconds, device, skips, failures,
    ...(log !== undefined ? { log } : {}),
    ...(status !== 'passed' && report.output.length > 0 ? { outputTail: report.output.slice(-tailLines) } : {}),
  };
}

export function notRun(file: string, why: string): FileResult {
  return { file, status: 'not run', pass: 0, fail: 0, skip: 0, todo: 0, seconds: 0, device: null, skips: [], failures: [{ test: '(file)', message: why }] };
}

export interface Totals { files: number; pass: number; fail: number; skip: number; todo: number; failedFiles: number; seconds: number; ok: boolean }

export function totals(results: readonly FileResult[], seconds: number): Totals {
  const sum = (f: (r: FileResult) => number): number => results.reduce((s, r) => s + f(r), 0);
  const failedFiles = results.filter((r) => r.status !== 'passed').length;
  return { files: results.length, pass: sum((r) => r.pass), fail: sum((r) => r.fail), skip: sum((r) => r.skip), todo: sum((r) => r.todo), failedFiles, seconds, ok: results.length > 0 && failedFiles === 0 };
}

/** The summary table (file, pass, fail, skip, seconds, status) and the total line. */
export function formatTable(results: readonly FileResult[], t: Totals): string {
  const rows = results.map((r) => [r.file, String(r.pass), String(r.fail), String(r.skip), r.seconds.toFixed(1), r.status + (r.device === null ? '' : r.device === 'all' ? ' (all GPUs)' : ` (GPU ${r.device})`)]);
  const head = ['file', 'pass', 'fail', 'skip', 'seconds', 'status'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => (i >= 1 && i <= 4 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  const out = [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
  out.push(`total: ${t.files} files, ${t.pass} passed, ${t.fail} failed, ${t.skip} skipped${t.todo ? `, ${t.todo} todo` : ''}; ${t.failedFiles} file(s) not passed; ${t.seconds.toFixed(1)} s: ${t.ok ? 'PASS' : 'FAIL'}`);
  return out.join('\n');
}

/** The skips and failures under the table, one line each (messages indented). */
export function formatDetails(results: readonly FileResult[]): string {
  const out: string[] = [];
  for (const r of results) {
    for (const s of r.skips) if (s.allowed) out.push(`skip  ${r.file} :: ${s.test}: ${s.reason}`);
    for (const f of r.failures) out.push(`FAIL  ${r.file} :: ${f.test}\n${f.message.split('\n').map((l) => `      ${l}`).join('\n')}${r.log ? `\n      (log: ${r.log})` : ''}`);
  }
  return out.join('\n');
}
