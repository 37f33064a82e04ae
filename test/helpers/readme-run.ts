/**
 * Runs README examples (dist/test/readme/example-N.js) with their console.log arguments captured
 * in full (console-capture.ts), so the README tests compare values, not the shape of the printout:
 * several examples in one child process (readme-examples.ts), one Node start-up for them all.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CapturedArg } from './console-capture.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const runner = join(root, 'dist', 'test', 'helpers', 'readme-examples.js');

/** What readme-examples.ts writes of one example: its console.log calls, or the error it threw. */
export type ExampleRecord = { readonly calls: CapturedArg[][] } | { readonly error: string };

/** Printed on stdout before each example's own output (a NUL: no example prints one). */
export const exampleMarker = (n: number): string => `\u0000myriad README example ${n}\n`;

export type Logged = number | string | boolean | null | Float64Array | Float32Array | Int32Array | unknown[] | object;

export interface ExampleRun {
  readonly stdout: string;
  /** One entry per console.log call: its arguments (typed arrays whole). */
  readonly calls: readonly (readonly Logged[])[];
}

const TYPED: Record<string, (b: ArrayBuffer) => Float64Array | Float32Array | Int32Array> = {
  Float64Array: (b) => new Float64Array(b), Float32Array: (b) => new Float32Array(b), Int32Array: (b) => new Int32Array(b),
};

/** Example `n` alone in a process of its own (runExamples for several); throws what the example threw. */
export function runExample(n: number, env: Readonly<Record<string, string>> = {}): ExampleRun {
  return ranOrThrow(runExamples([n], env)[0]!);
}

/** The run, or the example's error thrown. */
export function ranOrThrow(outcome: ExampleRun | Error): ExampleRun {
  if (outcome instanceof Error) throw outcome;
  return outcome;
}

/**
 * Examples `ns` one after the other in one child process: each one's stdout and console.log calls,
 * or (an example that threw) an Error naming it, with its stack; the later examples still run.
 */
export function runExamples(ns: readonly number[], env: Readonly<Record<string, string>> = {}): (ExampleRun | Error)[] {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-readme-'));
  try {
    const stdout = execFileSync(process.execPath, [runner, dir, ...ns.map(String)], {
      encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 1 << 26,
    });
    // Each example's stdout: from the end of its marker to the next example's marker.
    const starts: number[] = [];
    ns.forEach((n, i) => {
      const at = stdout.indexOf(exampleMarker(n), i === 0 ? 0 : starts[i - 1]! + 1);
      if (at < 0) throw new Error(`README example ${n}: its marker is missing from the runner's output:\n${stdout}`);
      starts.push(at);
    });
    return ns.map((n, i) => {
      const record = JSON.parse(readFileSync(join(dir, `example-${n}.json`), 'utf8')) as ExampleRecord;
      if ('error' in record) return new Error(`README example ${n} threw:\n${record.error}`);
      const text = stdout.slice(starts[i]! + exampleMarker(n).length, starts[i + 1] ?? stdout.length);
      return { stdout: text, calls: record.calls.map(loggedArgs) };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One captured call's arguments as the example passed them (typed arrays read back whole). */
function loggedArgs(args: readonly CapturedArg[]): Logged[] {
  return args.map((x): Logged => {
    if (x.kind === 'json') return x.value as Logged;
    const make = TYPED[x.type];
    if (!make) throw new Error(`captured ${x.type}: not expected from the README's examples`);
    const bytes = readFileSync(x.file);
    return make(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  });
}

/** Asserts-free comparison: the largest |got - want| / (1 + |want|), or Infinity on a length or NaN mismatch. */
export function maxRelativeDifference(got: ArrayLike<number>, want: ArrayLike<number>): number {
  if (got.length !== want.length) return Infinity;
  let worst = 0;
  for (let i = 0; i < got.length; i++) {
    const g = got[i]!, w = want[i]!;
    if (Number.isNaN(g) !== Number.isNaN(w)) return Infinity;
    if (!Number.isNaN(g)) worst = Math.max(worst, Math.abs(g - w) / (1 + Math.abs(w)));
  }
  return worst;
}
