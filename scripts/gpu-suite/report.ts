/**
 * What one test file's run reported, from the lines the suite's reporter (reporter.ts) writes:
 * each node:test result as one marked JSON line, anything else (the file's own stdout and
 * stderr) as plain text. Pure: the runner and its unit test (test/core/gpu-suite.test.ts) feed it text.
 *
 * Counting, unlike node:test's own summary: a skipped describe() counts as one skip (node runs
 * none of its tests and counts none of them, which turned a suite skipped whole into "0 tests,
 * pass"); a suite counts as a failure only where it failed by itself (a hook, its body throwing),
 * not because a test in it failed (that test already counts).
 */

/** Prefix of the reporter's result lines (ASCII record separator, so no test output matches it by chance). */
export const REPORT_MARK = '\u001eMYRIAD-TEST ';

/** One node:test result as the reporter writes it. */
export interface ResultRecord {
  readonly ok: boolean;
  readonly name: string;
  readonly nesting: number;
  readonly suite: boolean;
  /** The skip reason ('' for a skip without one); absent where the test ran. */
  readonly skip?: string;
  readonly todo?: string;
  /** node:test's failureType: 'testCodeFailure', 'subtestsFailed', 'hookFailed', 'cancelledByParent', 'testTimeoutFailure', ... */
  readonly failureType?: string;
  /** The error message (the cause's, where node wraps it), first lines. */
  readonly message?: string;
  readonly ms?: number;
}

export interface SkipEntry { readonly test: string; readonly reason: string }
export interface FailureEntry { readonly test: string; readonly message: string }

export interface FileReport {
  readonly pass: number;
  readonly fail: number;
  readonly skip: number;
  readonly todo: number;
  readonly skips: readonly SkipEntry[];
  readonly failures: readonly FailureEntry[];
  /** The lines that were not results (the file's output), for the log. */
  readonly output: readonly string[];
}

/** The reporter's line for one result. */
export function formatRecord(r: ResultRecord): string {
  return `${REPORT_MARK}${JSON.stringify(r)}`;
}

function isRecord(x: unknown): x is ResultRecord {
  if (typeof x !== 'object' || x === null) return false;
  const r = x as Record<string, unknown>;
  return typeof r['ok'] === 'boolean' && typeof r['name'] === 'string' && typeof r['nesting'] === 'number' && typeof r['suite'] === 'boolean';
}

/** Splits a run's output into result records and other lines; a marked line that does not parse is kept as output. */
export function splitOutput(text: string): { records: ResultRecord[]; output: string[] } {
  const records: ResultRecord[] = [];
  const output: string[] = [];
  for (const line of text.split('\n')) {
    const at = line.indexOf(REPORT_MARK);
    if (at >= 0) {
      try {
        const parsed: unknown = JSON.parse(line.slice(at + REPORT_MARK.length));
        if (isRecord(parsed)) {
          if (at > 0) output.push(line.slice(0, at));
          records.push(parsed);
          continue;
        }
      } catch {
        // not one of ours after all: output
      }
    }
    output.push(line);
  }
  while (output.length > 0 && output[output.length - 1] === '') output.pop();
  return { records, output };
}

/** Counts the records of one file's run (see the module comment for what counts). */
export function tally(records: readonly ResultRecord[], output: readonly string[] = []): FileReport {
  let pass = 0, fail = 0, skip = 0, todo = 0;
  const skips: SkipEntry[] = [];
  const failures: FailureEntry[] = [];
  for (const r of records) {
    if (r.skip !== undefined) {
      // A skipped suite ran none of its tests: one skip for all of them.
      skip++;
      skips.push({ test: r.name, reason: r.skip });
      continue;
    }
    if (r.todo !== undefined) {
      todo++;
      continue;
    }
    if (r.suite) {
      if (!r.ok && r.failureType !== 'subtestsFailed') {
        fail++;
        failures.push({ test: r.name, message: r.message ?? r.failureType ?? 'failed' });
      }
      continue;
    }
    if (r.ok) pass++;
    else {
      fail++;
      failures.push({ test: r.name, message: r.message ?? r.failureType ?? 'failed' });
    }
  }
  return { pass, fail, skip, todo, skips, failures, output: [...output] };
}

/** splitOutput, then tally. */
export function parseRun(text: string): FileReport {
  const { records, output } = splitOutput(text);
  return tally(records, output);
}
