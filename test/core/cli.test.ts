/** The command line: info, bench with --json, usage errors (run as a child process, as a user would). */
// run-tests: long (some 30 command runs, each a Node process)
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../../src/cli.js', import.meta.url));

/** Runs node with `args`; resolves with the exit status and both outputs. */
function run(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, args);
    let stdout = '', stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

/** `run`, once per argument list in this file: the tests that read the same command's output share one process. */
const runs = new Map<string, ReturnType<typeof run>>();
function runOnce(args: string[]): ReturnType<typeof run> {
  const key = JSON.stringify(args);
  if (!runs.has(key)) runs.set(key, run(args));
  return runs.get(key)!;
}

describe('myriad command', () => {
  it('info lists the backends, with a reason for an unusable one', () => {
    const out = execFileSync(process.execPath, [cli, 'info'], { encoding: 'utf8' });
    assert.match(out, /^cpu\s+usable/m);
    assert.match(out, /^cuda\s+(usable|unusable: .+)/m);
    assert.match(out, /^auto\s+-> /m);
  });
  it('bench gemm on the CPU prints one row per size and writes the same rows as JSON', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'myriad-')), 'out.json');
    const out = execFileSync(process.execPath, [cli, 'bench', 'gemm', '--backend', 'cpu', '--sizes', '2,8,32', '--batch', '50', '--repeats', '2', '--json', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const rows = JSON.parse(readFileSync(file, 'utf8')) as { op: string; n: number; batch: number; ms: number; gflops: number; gbs: number; backend: string }[];
    assert.deepEqual(rows.map((r) => r.n), [2, 8, 32]);
    for (const r of rows) {
      assert.equal(r.op, 'gemm');
      assert.equal(r.backend, 'cpu');
      assert.equal(r.batch, 50);
      assert.ok(r.ms > 0 && r.gflops > 0 && r.gbs > 0);
      assert.match(out, new RegExp(`gemm\\s+float64\\s+${r.n}\\s+50\\s+cpu`));
    }
  });
  it('bench --format markdown prints a GitHub table with the same columns', () => {
    const out = execFileSync(process.execPath, [cli, 'bench', 'potrf', '--backend', 'cpu', '--sizes', '4', '--batch', '20', '--repeats', '1', '--format', 'markdown'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const lines = out.trim().split('\n');
    assert.equal(lines.length, 3);
    assert.match(lines[0]!, /^\| op \| dtype \| n \| batch \|/);
    assert.match(lines[1]!, /^(\| --- )+\|$/);
    assert.match(lines[2]!, /^\| potrf \| float64 \| 4 \| 20 \| cpu \|/);
    assert.equal(lines[0]!.split('|').length, lines[2]!.split('|').length);
  });
  it('bad arguments exit 2 with a message naming the argument', () => {
    const bad = spawnSync(process.execPath, [cli, 'bench', 'gemm', '--backend', 'tpu'], { encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--backend: expected one of 'auto', 'cpu', 'cuda'/);
    const op = spawnSync(process.execPath, [cli, 'bench', 'lu'], { encoding: 'utf8' });
    assert.equal(op.status, 2);
    assert.match(op.stderr, /op: /);
    const sizes = spawnSync(process.execPath, [cli, 'bench', 'gemm', '--backend', 'cpu', '--sizes', '2,x'], { encoding: 'utf8' });
    assert.equal(sizes.status, 2);
    assert.match(sizes.stderr, /--sizes/);
    const format = spawnSync(process.execPath, [cli, 'bench', 'gemm', '--backend', 'cpu', '--format', 'xml'], { encoding: 'utf8' });
    assert.equal(format.status, 2);
    assert.match(format.stderr, /--format: expected one of 'text', 'markdown'/);
  });
  it('--version prints the package version; near-miss and array-level op names get a suggestion; one op list everywhere', async () => {
    const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../../package.json', import.meta.url)), 'utf8')) as { version: string };
    const [version, short, eigh, typo, none] = await Promise.all([
      run([cli, '--version']), run([cli, '-v']), run([cli, 'bench', 'eigh']), run([cli, 'bench', 'tsm']), runOnce([cli, 'bench']),
    ]);
    assert.equal(version.status, 0, version.stderr);
    assert.equal(version.stdout.trim(), pkg.version);
    assert.equal(short.stdout.trim(), pkg.version);
    assert.equal(eigh.status, 2);
    assert.match(eigh.stderr, /unknown benchmark op 'eigh'; did you mean 'syev'\?/);
    assert.match(typo.stderr, /did you mean 'trsm'\?/);
    // The same list (workloads and extras) in the error, the missing-op message and the usage.
    const list = (text: string): string => /(gemm, potrf[^)\n]*latency)/.exec(text)?.[1] ?? '';
    const help = await runOnce([cli, 'help']);
    assert.equal(help.status, 0, help.stderr);
    const usage = help.stdout;
    assert.match(list(eigh.stderr), /tsm2, tsqr, latency$/);
    assert.equal(list(eigh.stderr), list(none.stderr));
    assert.equal(list(eigh.stderr), list(usage));
  });
  it('every usage error is one line on stderr, exit 2, before any benchmark runs', async () => {
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
    ];
    if (process.getuid?.() !== 0) { // root writes anywhere
      const locked = join(dir, 'locked.json');
      writeFileSync(locked, '[]');
      chmodSync(locked, 0o444);
      cases.push([['--json', locked], /^myriad: --json: .*not writable/]);
    }
    // In parallel: one Node start-up each.
    const results = await Promise.all(cases.map(([args]) => run([cli, 'bench', 'gemm', '--backend', 'cpu', '--sizes', '2', '--batch', '10', ...args])));
    cases.forEach(([args, pattern], i) => {
      const r = results[i]!;
      const what = args.join(' ');
      assert.equal(r.status, 2, `${what}: ${r.stderr}`);
      assert.equal(r.stdout, '', `${what}: the benchmark ran`);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, `${what}: ${r.stderr}`);
      assert.match(lines[0]!, pattern, what);
    });
    for (const r of await Promise.all([run([cli, 'frob']), runOnce([cli, 'bench'])])) {
      assert.equal(r.status, 2);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
  });
  it('bench --dtype complex128|complex64: the ops that take it listed; another op, or no GPU for --backend cuda, one clear line, exit 2', async () => {
    const [help, getrs, badDtype, cuda, realHeev, heev, gesvd] = await Promise.all([
      runOnce([cli, 'help']),
      run([cli, 'bench', 'getrs', '--backend', 'cuda', '--dtype', 'complex128']),
      run([cli, 'bench', 'potrf', '--backend', 'cpu', '--dtype', 'complex32']),
      run([cli, 'bench', 'potrf', '--backend', 'cuda', '--dtype', 'complex64', '--sizes', '4', '--batch', '10', '--repeats', '1']),
      run([cli, 'bench', 'heev', '--backend', 'cuda']),
      run([cli, 'bench', 'heev', '--backend', 'cpu', '--dtype', 'complex128', '--sizes', '4', '--batch', '6', '--repeats', '1']),
      run([cli, 'bench', 'gesvd', '--backend', 'cpu', '--dtype', 'complex64', '--sizes', '3', '--batch', '6', '--repeats', '1']),
    ]);
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
  it('a CPU bench table has no all-empty vendor columns and no small value printed as 0.0', () => {
    const out = execFileSync(process.execPath, [cli, 'bench', 'potrf', '--backend', 'cpu', '--sizes', '2', '--batch', '3', '--repeats', '1'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const [header, , row] = out.trim().split('\n');
    // The vendor columns (numpy, where python3 has it) are there only with a figure in them; %roof
    // (of the measured copy bandwidth) is the CPU's own and always filled (the no-'-' check below).
    if (/numpy/.test(row!)) assert.match(header!, /vendor/);
    else assert.doesNotMatch(header!, /vendor|speed-up/);
    assert.doesNotMatch(row!, /\s-(\s|$)/);
    assert.doesNotMatch(row!, /\s0\.0+(\s|$)/);
  });
});
