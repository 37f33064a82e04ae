/** The command line: info, bench with --json, usage errors (run as a child process, as a user would). */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../../src/cli.js', import.meta.url));

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
    const op = spawnSync(process.execPath, [cli, 'bench', 'qr'], { encoding: 'utf8' });
    assert.equal(op.status, 2);
    assert.match(op.stderr, /op: /);
    const sizes = spawnSync(process.execPath, [cli, 'bench', 'gemm', '--backend', 'cpu', '--sizes', '2,x'], { encoding: 'utf8' });
    assert.equal(sizes.status, 2);
    assert.match(sizes.stderr, /--sizes/);
    const format = spawnSync(process.execPath, [cli, 'bench', 'gemm', '--backend', 'cpu', '--format', 'xml'], { encoding: 'utf8' });
    assert.equal(format.status, 2);
    assert.match(format.stderr, /--format: expected one of 'text', 'markdown'/);
  });
});
