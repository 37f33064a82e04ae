/**
 * The command line: info, bench with --json, usage errors, run in child processes as a user would:
 * one in a process of its own, the rest one after the other in one shared process
 * (test/helpers/cli-driver.ts: one Node start-up instead of some 25), whose runs are checked here to
 * be what a process of their own gives.
 */
// run-tests: long (some 30 command runs in child processes, a few seconds of benchmarks)
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { CliCall, CliRun } from '../helpers/cli-driver.js';

const cli = fileURLToPath(new URL('../../src/cli.js', import.meta.url));

const driver = fileURLToPath(new URL('../helpers/cli-driver.js', import.meta.url));

/** The command once per call, all in one child process (cli-driver.ts): one Node start-up for the lot. */
function runInOne(calls: readonly CliCall[]): Promise<CliRun[]> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [driver], { stdio: ['pipe', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.on('close', (status) => {
      if (status !== 0) fail(new Error(`cli-driver exited ${status}: ${stdout}`));
      else done(JSON.parse(stdout) as CliRun[]);
    });
    child.stdin.end(JSON.stringify(calls));
  });
}

/**
 * Argument lists the tests register as they are declared (with environment variables set for those
 * runs alone); run together in one child process when the first of them asks.
 */
const registered: CliCall[] = [];
let batch: Promise<CliRun[]> | undefined;
function batched(argLists: readonly string[][], env?: Readonly<Record<string, string>>): () => Promise<CliRun[]> {
  if (batch) throw new Error('cli.test: commands are registered while the tests are declared, before any runs');
  const first = registered.length;
  registered.push(...argLists.map((args) => ({ args, env })));
  return async () => (await (batch ??= runInOne(registered))).slice(first, first + argLists.length);
}

describe('myriad command', () => {
  const info = batched([['info']]);
  it('info lists the backends, with a reason for an unusable one', async () => {
    const [run] = await info();
    assert.equal(run.status, 0, run.stderr);
    const out = run.stdout;
    assert.match(out, /^cpu\s+usable/m);
    assert.match(out, /^cuda\s+(usable|unusable: .+)/m);
    assert.match(out, /^auto\s+-> /m);
  });
  const jsonFile = join(mkdtempSync(join(tmpdir(), 'myriad-')), 'out.json');
  // numpy's column left out here (a python3 start a size); the table test below keeps it.
  const gemm = batched([['bench', 'gemm', '--backend', 'cpu', '--sizes', '2,8,32', '--batch', '50', '--repeats', '2', '--json', jsonFile]], { MYRIAD_BENCH_NUMPY: '0' });
  it('bench gemm on the CPU prints one row per size and writes the same rows as JSON', async () => {
    const [run] = await gemm();
    assert.equal(run.status, 0, run.stderr);
    const rows = JSON.parse(readFileSync(jsonFile, 'utf8')) as { op: string; n: number; batch: number; ms: number; gflops: number; gbs: number; backend: string }[];
    assert.deepEqual(rows.map((r) => r.n), [2, 8, 32]);
    for (const r of rows) {
      assert.equal(r.op, 'gemm');
      assert.equal(r.backend, 'cpu');
      assert.equal(r.batch, 50);
      assert.ok(r.ms > 0 && r.gflops > 0 && r.gbs > 0);
      assert.match(run.stdout, new RegExp(`gemm\\s+float64\\s+${r.n}\\s+50\\s+cpu`));
    }
  });
  // numpy left out here too: the table test below keeps its column.
  const markdown = batched([['bench', 'potrf', '--backend', 'reference', '--sizes', '4', '--batch', '20', '--repeats', '1', '--format', 'markdown']], { MYRIAD_BENCH_NUMPY: '0' });
  it('bench --format markdown prints a GitHub table with the same columns; the reference backend is named so', async () => {
    const [run] = await markdown();
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.trim().split('\n');
    assert.equal(lines.length, 3);
    assert.match(lines[0]!, /^\| op \| dtype \| n \| batch \|/);
    assert.match(lines[1]!, /^(\| --- )+\|$/);
    assert.match(lines[2]!, /^\| potrf \| float64 \| 4 \| 20 \| reference \|/);
    assert.equal(lines[0]!.split('|').length, lines[2]!.split('|').length);
  });
  const badArguments = batched([
    ['bench', 'gemm', '--backend', 'tpu'], ['bench', 'lu'], ['bench', 'gemm', '--backend', 'cpu', '--sizes', '2,x'], ['bench', 'gemm', '--backend', 'cpu', '--format', 'xml'],
  ]);
  it('bad arguments exit 2 with a message naming the argument', async () => {
    const [bad, op, sizes, format] = await badArguments();
    // A run in the shared process is the one a process of its own gives: status, stdout and stderr.
    const alone = spawnSync(process.execPath, [cli, 'bench', 'gemm', '--backend', 'tpu'], { encoding: 'utf8' });
    assert.deepEqual(bad, { status: alone.status, stdout: alone.stdout, stderr: alone.stderr });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--backend: expected one of 'auto', 'cpu', 'cuda'/);
    assert.equal(op.status, 2);
    assert.match(op.stderr, /op: /);
    assert.equal(sizes.status, 2);
    assert.match(sizes.stderr, /--sizes/);
    assert.equal(format.status, 2);
    assert.match(format.stderr, /--format: expected one of 'text', 'markdown'/);
  });
  const names = batched([['--version'], ['-v'], ['bench', 'eigh'], ['bench', 'tsm'], ['bench'], ['help']]);
  it('--version prints the package version; near-miss and array-level op names get a suggestion; one op list everywhere', async () => {
    const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../../package.json', import.meta.url)), 'utf8')) as { version: string };
    const [version, short, eigh, typo, none, help] = await names();
    assert.equal(version.status, 0, version.stderr);
    assert.equal(version.stdout.trim(), pkg.version);
    assert.equal(short.stdout.trim(), pkg.version);
    assert.equal(eigh.status, 2);
    assert.match(eigh.stderr, /unknown benchmark op 'eigh'; did you mean 'syev'\?/);
    assert.match(typo.stderr, /did you mean 'trsm'\?/);
    // The same list (workloads and extras) in the error, the missing-op message and the usage.
    const list = (text: string): string => /(gemm, potrf[^)\n]*latency)/.exec(text)?.[1] ?? '';
    assert.equal(help.status, 0, help.stderr);
    const usage = help.stdout;
    assert.match(list(eigh.stderr), /tsm2, tsqr, latency$/);
    assert.equal(list(eigh.stderr), list(none.stderr));
    assert.equal(list(eigh.stderr), list(usage));
  });
  const dir = mkdtempSync(join(tmpdir(), 'myriad-'));
  const file = join(dir, 'file.json');
  writeFileSync(file, '[]');
  const cases: [string[], RegExp][] = [
    [['--json', join(dir, 'missing', 'out.json')], /^myriad: --json: .*does not exist$/],
    [['--json', dir], /^myriad: --json: .*is a directory$/],
    [['--json', join(file, 'out.json')], /^myriad: --json: .*is not a directory$/],
    [['--sizes=-3'], /^myriad: --sizes: /],
    [['--sizes', '-3'], /^myriad: --sizes: /],
    [['--sizes', ''], /^myriad: --sizes: .*empty entry/],
    [['--sizes', '2,,4'], /^myriad: --sizes: .*empty entry/],
    [['--sizes', '1e9', '--batch', '1'], /^myriad: --sizes: /],
    [['--sizes', '4096', '--batch', '1000'], /^myriad: --batch: /],
    [['--sizes', '4096', '--batch', '70', '--dtype', 'complex128'], /^myriad: --batch: .*floats \(re, im pairs\)/],
    [['--foo'], /^myriad: --foo: unknown option/],
    [['--Sizes', '2'], /^myriad: --Sizes: unknown option; did you mean --sizes\?/],
    [['--ways', 'vbatched'], /^myriad: --ways: .*give --vbatched/],
    [['--vbatched', 'b', '--ways', 'vbatched,,uniform'], /^myriad: --ways: .*an empty entry/],
    [['--vbatched', 'b', '--ways', 'fast'], /^myriad: --ways: .*'fast'/],
    // Options a command does not take, given twice, extra words.
    [['--vbatched', 'b', '--call-ms', '1'], /^myriad: --call-ms: belongs to a --devices run/],
    [['--batch', '10', '--batch', '20'], /^myriad: --batch: given twice/],
    [['extra'], /^myriad: arguments: unexpected 'extra' after 'myriad bench gemm'/],
  ];
  if (process.getuid?.() !== 0) { // root writes anywhere
    const locked = join(dir, 'locked.json');
    writeFileSync(locked, '[]');
    chmodSync(locked, 0o444);
    cases.push([['--json', locked], /^myriad: --json: .*not writable/]);
  }
  // The base run's --sizes 2 and --batch 10 where a case does not give its own.
  const flagged = (args: readonly string[], flag: string): boolean => args.some((a) => a === flag || a.startsWith(`${flag}=`));
  const benchArgs = (args: readonly string[]): string[] =>
    ['bench', 'gemm', '--backend', 'cpu', ...(flagged(args, '--sizes') ? [] : ['--sizes', '2']), ...(flagged(args, '--batch') ? [] : ['--batch', '10']), ...args];
  const otherCommands: [string[], RegExp][] = [
    [['demo', '--json', file], /^myriad: --json: is not an option of 'myriad demo' \(it takes --backend, --dtype\)$/],
    [['info', 'extra'], /^myriad: arguments: unexpected 'extra' after 'myriad info'/],
    [['frob', '--version'], /^myriad: command: unknown command 'frob'/],
    [['warm', 'gemm', '--sizes', '8', '--format', 'text'], /^myriad: --format: is not an option of 'myriad warm'/],
  ];
  const usageErrors = batched([...cases.map(([args]) => benchArgs(args)), ...otherCommands.map(([args]) => args), ['frob'], ['bench']]);
  it('every usage error is one line on stderr, exit 2, before any benchmark runs', async () => {
    const results = await usageErrors();
    [...cases, ...otherCommands].forEach(([args, pattern], i) => {
      const r = results[i]!;
      const what = args.join(' ');
      assert.equal(r.status, 2, `${what}: ${r.stderr}`);
      assert.equal(r.stdout, '', `${what}: the benchmark ran`);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, `${what}: ${r.stderr}`);
      assert.match(lines[0]!, pattern, what);
    });
    for (const r of results.slice(cases.length + otherCommands.length)) {
      assert.equal(r.status, 2);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
  });
  const complex = batched([
    ['help'],
    ['bench', 'getrs', '--backend', 'cuda', '--dtype', 'complex128'],
    ['bench', 'potrf', '--backend', 'cpu', '--dtype', 'complex32'],
    ['bench', 'potrf', '--backend', 'cuda', '--dtype', 'complex64', '--sizes', '4', '--batch', '10', '--repeats', '1'],
    ['bench', 'heev', '--backend', 'cuda'],
    ['bench', 'heev', '--backend', 'cpu', '--dtype', 'complex128', '--sizes', '4', '--batch', '6', '--repeats', '1'],
    ['bench', 'gesvd', '--backend', 'cpu', '--dtype', 'complex64', '--sizes', '3', '--batch', '6', '--repeats', '1'],
  ]);
  it('bench --dtype complex128|complex64: the ops that take it listed; another op, or no GPU for --backend cuda, one clear line, exit 2', async () => {
    const [help, getrs, badDtype, cuda, realHeev, heev, gesvd] = await complex();
    assert.match(help.stdout, /\(complex128, complex64: gemm, potrf, getrf, posv, gesv, trsm, geqrf, heev, gesvd\)/);
    // Rejected before a backend opens (no 'backend:' line), on any machine.
    assert.equal(getrs.status, 2);
    assert.equal(getrs.stderr.trim(), 'myriad: --dtype: getrs has no complex benchmark (complex: gemm, potrf, getrf, posv, gesv, trsm, geqrf, heev, gesvd)');
    // heev is the complex benchmark: on the default (real) dtype, one line naming the dtypes and syev.
    assert.equal(realHeev.status, 2);
    assert.equal(realHeev.stderr.trim(), 'myriad: --dtype: heev is the complex Hermitian benchmark: --dtype complex128 or complex64 (real symmetric matrices: syev)');
    for (const [r, op, dtype, n] of [[heev, 'heev', 'complex128', 4], [gesvd, 'gesvd', 'complex64', 3]] as const) {
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`^\\s*${op}\\s+${dtype}\\s+${n}\\s+6\\s+cpu\\b`, 'm'));
    }
    assert.equal(badDtype.status, 2);
    assert.match(badDtype.stderr, /^myriad: --dtype: .*complex128.*complex64/m);
    if (cuda.status === 0) {
      // A GPU here: the row, the vendor's column beside it.
      assert.match(cuda.stdout, /^\s*potrf\s+complex64\s+4\s+10\s+cuda\b/m);
      assert.match(cuda.stdout.split('\n')[0]!, /vendor/);
    } else {
      assert.equal(cuda.status, 2, cuda.stderr);
      assert.equal(cuda.stdout, '');
      assert.match(cuda.stderr.trim(), /^myriad: backend: the CUDA backend is not usable: .+$/);
    }
  });
  const table = batched([['bench', 'potrf', '--backend', 'cpu', '--sizes', '2', '--batch', '3', '--repeats', '1']]);
  it('a CPU bench table has no all-empty vendor columns and no small value printed as 0.0', async () => {
    const [run] = await table();
    assert.equal(run.status, 0, run.stderr);
    const [header, , row] = run.stdout.trim().split('\n');
    // The vendor columns (numpy, where python3 has it) are there only with a figure in them; %roof
    // (of the measured copy bandwidth) is the CPU's own and always filled (the no-'-' check below).
    if (/numpy/.test(row!)) assert.match(header!, /vendor/);
    else assert.doesNotMatch(header!, /vendor|speed-up/);
    assert.doesNotMatch(row!, /\s-(\s|$)/);
    assert.doesNotMatch(row!, /\s0\.0+(\s|$)/);
  });
});
