/**
 * Runs a README example (dist/test/readme/example-N.js) with its console.log arguments captured
 * in full (console-capture.ts), and the CPU backend's answers to the same computations, so the
 * README tests compare values, not the shape of the printout.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CapturedArg } from './console-capture.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const capture = pathToFileURL(join(root, 'dist', 'test', 'helpers', 'console-capture.js')).href;

export type Logged = number | string | boolean | null | Float64Array | Float32Array | Int32Array | unknown[] | object;

export interface ExampleRun {
  readonly stdout: string;
  /** One entry per console.log call: its arguments (typed arrays whole). */
  readonly calls: readonly (readonly Logged[])[];
}

const TYPED: Record<string, (b: ArrayBuffer) => Float64Array | Float32Array | Int32Array> = {
  Float64Array: (b) => new Float64Array(b), Float32Array: (b) => new Float32Array(b), Int32Array: (b) => new Int32Array(b),
};

export function runExample(n: number, env: Readonly<Record<string, string>> = {}): ExampleRun {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-readme-'));
  try {
    const stdout = execFileSync(process.execPath, ['--import', capture, join(root, 'dist', 'test', 'readme', `example-${n}.js`)], {
      encoding: 'utf8', env: { ...process.env, ...env, MYRIAD_CAPTURE_DIR: dir }, maxBuffer: 1 << 26,
    });
    const raw = JSON.parse(readFileSync(join(dir, 'calls.json'), 'utf8')) as CapturedArg[][];
    const calls = raw.map((args) => args.map((x): Logged => {
      if (x.kind === 'json') return x.value as Logged;
      const make = TYPED[x.type];
      if (!make) throw new Error(`captured ${x.type}: not expected from the README's examples`);
      const bytes = readFileSync(x.file);
      const copy = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
      return make(copy);
    }));
    return { stdout, calls };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
