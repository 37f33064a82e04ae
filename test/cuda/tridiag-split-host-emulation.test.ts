/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the tridiagonal syev's split design
 * (record, apply, finish: generate-apply.ts) and the one-kernel design, both generated kernels
 * compiled as C++ for the host (test/helpers/tridiag-split-host-harness.cpp) and run on the same
 * input: the split design's info, eigenvalues and eigenvectors equal the one-kernel design's bit for
 * bit (the same rotations in the same order with the same arithmetic), with the default buffer and
 * with buffers so small that the finish kernel resumes most chains (the resume path), apply blocks
 * of several row counts (a partial last block), fewer threads than rows, both dtypes and triangles,
 * every kind of test matrix, NaN among good ones and the iteration limit; and the results pass the
 * checks of the one-kernel host test (reference info and eigenvalues within n eps ||A|| to n = 128,
 * residuals ||A V - V W|| / (n eps ||A||) and ||V^T V - I|| / (n eps) < 30). Prints the rotations
 * the chain made per matrix (the model of generate-apply.ts and the table's capFactor use them).
 * About 3 minutes on a 2-core machine; MYRIAD_SPLIT_LARGE=1 adds n = 200 and 256 (several more).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { strided } from '../../src/core/batch.js';
import type { DType } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import { cpuSyev } from '../../src/cpu/lapack/index.js';
import {
  planSyevSplit, planSyevTridiag, syevTridiagSource, tridiagApplySource, type SyevSplitPlan, type SyevTridiagParams, type TridiagForce,
} from '../../src/cuda/kernels/tridiag/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { eigenResidual, frob, mat, orthoResidual, symmetricCase, type Mat, type SymKind } from '../helpers/jacobi-checks.js';
import { Rng } from '../helpers/random.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';
const HARNESS = resolve('test/helpers/tridiag-split-host-harness.cpp');
const EPS: Record<DType, number> = { float64: 2 ** -52, float32: 2 ** -23 };
const LIMIT = 30;
const SHARED = 227 * 1024 - 1024;
const ALL: readonly SymKind[] = ['random', 'clustered', 'repeated', 'diagonal', 'zero', 'graded', 'rank-deficient'];

interface Case {
  readonly dtype: DType;
  readonly n: number;
  readonly uplo: Uplo;
  readonly force: TridiagForce;
  readonly kinds: readonly SymKind[];
  readonly maxit?: number;
  /** Check eigenvalues against the CPU reference (cubic in JavaScript: small n). */
  readonly reference: boolean;
}

interface Outputs { info: number[]; w: number[]; a: number[] }

function build(dir: string, one: SyevTridiagParams, split: SyevSplitPlan): string {
  const files: [string, { source: string; entry: string }][] = [
    ['one.cu', syevTridiagSource(one)], ['record.cu', syevTridiagSource(split.record)],
    ['apply.cu', tridiagApplySource(split.apply)], ['finish.cu', syevTridiagSource(split.finish)]];
  for (const [f, s] of files) writeFileSync(join(dir, f), s.source);
  const [o, r, a, f] = files.map(([, s]) => s.entry);
  const exe = join(dir, `split-${r}`);
  const io = one.dtype === 'float32' ? ['-DIO=float'] : [];
  execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DONE=${o}`, `-DRECORD=${r}`, `-DAPPLY=${a}`, `-DFINISH=${f}`, ...io, `-I${dir}`, HARNESS, '-o', exe]);
  return exe;
}

function check(dir: string, rng: Rng, c: Case): void {
  const { dtype, n, uplo } = c;
  const eps = EPS[dtype];
  const tuning = tuningFor('sm_90', 'tridiag');
  const pr = { dtype, n, uplo, vectors: true, kind: 'strided', sharedLimit: SHARED } as const;
  const planned = planSyevSplit(pr, tuning, { force: { ...c.force, split: true } });
  const withMaxit = (p: SyevTridiagParams): SyevTridiagParams => (c.maxit === undefined ? p : { ...p, maxit: c.maxit });
  const split: SyevSplitPlan = { ...planned, record: withMaxit(planned.record), finish: withMaxit(planned.finish) };
  const one = withMaxit(planSyevTridiag(pr, tuning, { force: { global: true, threads: split.record.threads } }));
  assert.equal(one.split, undefined);
  const exe = build(dir, one, split);

  const count = c.kinds.length + 1;
  const mats: Mat[] = Array.from({ length: count }, (_, i) => symmetricCase(rng, c.kinds[i % c.kinds.length]!, n).a)
    .map((a) => ({ ...a, d: a.d.map((x) => (dtype === 'float32' ? Math.fround(x) : x)) }));
  const ld = n + 2;
  const stride = ld * n + 1;
  const flat = new Float64Array(count * stride);
  mats.forEach((a, k) => { for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) flat[k * stride + i + j * ld] = a.d[i + j * n]!; });
  const bad = count - 1;
  flat[bad * stride + Math.min(2, n - 1) * (ld + 1)] = NaN;
  mats.forEach((_, k) => { for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) if (uplo === 'lower' ? i < j : i > j) flat[k * stride + i + j * ld] = NaN; });
  const input = `${count} ${split.record.threads} ${n} ${ld} ${stride} ${split.apply.rows}\n${Array.from(flat).join(' ')}\n`;
  const out = execFileSync(exe, { input, maxBuffer: 1 << 30 }).toString().trim().split('\n');
  const counts = out.slice(0, count).map((line) => line.split(' ').map(Number) as [number, number]);
  const nums = out.slice(count).map(Number);
  const size = count + count * n + count * stride;
  const take = (o: number): Outputs => ({ info: nums.slice(o, o + count), w: nums.slice(o + count, o + count + count * n), a: nums.slice(o + count + count * n, o + size) });
  const s = take(0), o1 = take(size);
  const what = `split ${dtype} n=${n} ${uplo} t=${split.record.threads} cap=${split.apply.cap} rows=${split.apply.rows}${c.maxit === undefined ? '' : ` maxit=${c.maxit}`}`;

  // The same bits as the one-kernel design, everything written (info, w, A with its padding).
  assert.deepEqual(s.info, o1.info, `${what}: info`);
  s.w.forEach((x, e) => assert.ok(Object.is(x, o1.w[e]), `${what}: w[${e}] ${x} vs ${o1.w[e]}`));
  s.a.forEach((x, e) => assert.ok(Object.is(x, o1.a[e]), `${what}: A[${e}] ${x} vs ${o1.a[e]}`));

  // The buffer: never past it; a chain that stopped left fewer than n slots.
  counts.forEach(([rot, done], k) => {
    assert.ok(rot <= split.apply.cap, `${what} #${k}: ${rot} rotations recorded`);
    if (done === 0) assert.ok(rot > split.apply.cap - n, `${what} #${k}: stopped with ${split.apply.cap - rot} slots left`);
    if (k === bad) assert.deepEqual([rot, done], [0, 1], `${what}: the NaN matrix records nothing`);
  });
  console.log(`${what}: rotations recorded / n^2 (finished in the record kernel): ${counts.slice(0, bad)
    .map(([rot, done], k) => `${c.kinds[k % c.kinds.length]} ${(rot / (n * n)).toFixed(3)}${done ? '' : ' (resumed)'}`).join(', ')}`);

  let refW: Float64Array | undefined;
  const refInfo = new Int32Array(count);
  if (c.reference) {
    refW = new Float64Array(count * n);
    cpuSyev({ jobz: 'values', uplo, a: strided(flat.slice(), { rows: n, count, ld, stride }), w: strided(refW, { rows: n, cols: 1, count }), info: refInfo });
  }
  mats.forEach((a, k) => {
    const at = `${what} #${k} (${k === bad ? 'NaN' : c.kinds[k % c.kinds.length]})`;
    const wk = s.w.slice(k * n, (k + 1) * n);
    if (k === bad) {
      assert.equal(s.info[k], n + 2, `${at}: info`);
      assert.ok(wk.every(Number.isNaN), `${at}: NaN w`);
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) assert.ok(Number.isNaN(s.a[k * stride + i + j * ld]!), `${at}: NaN vectors`);
      return;
    }
    if (c.maxit !== undefined) { assert.ok(s.info[k] === 0 || s.info[k] === n + 1, `${at}: info ${s.info[k]}`); return; }
    assert.equal(s.info[k], 0, `${at}: info`);
    const norm = frob(a);
    if (refW !== undefined) {
      assert.equal(refInfo[k], 0);
      wk.forEach((x, j) => assert.ok(Math.abs(x - refW![k * n + j]!) <= n * eps * norm, `${at}: w[${j}] ${x} vs ${refW![k * n + j]}`));
    }
    for (let j = 1; j < n; j++) assert.ok(wk[j - 1]! <= wk[j]!, `${at}: ascending`);
    const v = mat(n, n);
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) v.d[i + j * n] = s.a[k * stride + i + j * ld]!;
    const r1 = eigenResidual(a, v, wk, eps), r2 = orthoResidual(v, eps);
    assert.ok(r1 < LIMIT, `${at}: ||AV - VW|| ratio ${r1}`);
    assert.ok(r2 < LIMIT, `${at}: ||V^T V - I|| ratio ${r2}`);
  });
  // The padding between columns and matrices: untouched.
  for (let e = 0; e < count * stride; e++) {
    const r = e % stride;
    if (r >= ld * n || r % ld >= n) assert.ok(Object.is(s.a[e], flat[e]) || (Number.isNaN(s.a[e]!) && Number.isNaN(flat[e]!)), `${what}: padding ${e}`);
  }
}

test('split tridiagonal syev on the host: the one-kernel design\'s bits, the resume path, every kind, NaN', { skip, timeout: 3_600_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-tridiag-split-'));
  const rng = new Rng(1720);
  try {
    const cases: Case[] = [
      { dtype: 'float64', n: 40, uplo: 'lower', force: {}, kinds: ALL, reference: true },
      { dtype: 'float64', n: 45, uplo: 'upper', force: { applyUnroll: 1 }, kinds: ['random', 'graded', 'clustered'], reference: true },
      { dtype: 'float64', n: 50, uplo: 'lower', force: { applyUnroll: 3, applyRows: 7 }, kinds: ['random', 'graded', 'clustered'], reference: true },
      // Buffers of 2n and 3n: most chains stop after a sweep or two and the finish kernel resumes them.
      { dtype: 'float64', n: 33, uplo: 'upper', force: { cap: 66, applyRows: 8 }, kinds: ALL, reference: true },
      { dtype: 'float32', n: 47, uplo: 'upper', force: { cap: 141, applyRows: 16 }, kinds: ALL, reference: true },
      { dtype: 'float32', n: 64, uplo: 'lower', force: { threads: 32, applyRows: 32 }, kinds: ['random', 'graded', 'clustered'], reference: true },
      { dtype: 'float64', n: 100, uplo: 'lower', force: { threads: 64, applyRows: 12 }, kinds: ['random', 'graded', 'repeated'], reference: true },
      { dtype: 'float64', n: 128, uplo: 'upper', force: { threads: 32, cap: 2000 }, kinds: ['random', 'clustered'], reference: true },
      // The iteration limit: info n + 1 (where a matrix needs iterations) in both designs, the same bits.
      { dtype: 'float64', n: 34, uplo: 'lower', force: {}, kinds: ['random', 'diagonal'], maxit: 0, reference: false },
      { dtype: 'float64', n: 36, uplo: 'upper', force: { cap: 72 }, kinds: ['random', 'clustered'], maxit: 1, reference: false },
    ];
    // Tiny n: apply blocks of 2 rows, and of 16 (more threads than rows).
    for (const n of [1, 2, 3, 5]) cases.push({ dtype: 'float64', n, uplo: n % 2 === 0 ? 'upper' : 'lower', force: n < 3 ? {} : { applyRows: 2 }, kinds: ['random', 'diagonal', 'zero'], reference: true });
    // Larger n (minutes each on the host: dorgtr's warp sums dominate the emulation).
    if (process.env['MYRIAD_SPLIT_LARGE'] === '1')
      for (const n of [200, 256]) cases.push({ dtype: 'float64', n, uplo: 'lower', force: { threads: 32 }, kinds: ['random', 'clustered', 'graded'], reference: false });
    for (const c of cases) check(dir, rng, c);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
