/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the generated tridiagonal-QL syev kernel
 * itself, compiled as C++ for the host (test/helpers/tridiag-host-harness.cpp: a thread per CUDA
 * thread, one block at a time) with the planner's shapes and forced ones (working matrix in shared
 * memory and in the global workspace, fewer threads than rows), checked against the CPU reference's
 * info and eigenvalues (within n eps ||A||) and by the residuals ||A V - V W|| / (n eps ||A||) and
 * ||V^T V - I|| / (n eps) < 30: both dtypes, both triangles, values and vectors, every kind of test
 * matrix, NaN in a batch of good ones, and the iteration limit (info n + 1). Values only run the
 * bisection (generate-syev.ts BISECTION_VALUES), vectors the QL iteration.
 * A check of the CUDA source without a GPU; test/gpu/tridiag.test.ts is the real one.
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
import { planSyevTridiag, syevTridiagSource, type SyevTridiagParams, type TridiagForce } from '../../src/cuda/kernels/tridiag/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { eigenResidual, mat, orthoResidual, symmetricCase, type Mat, type SymKind } from '../helpers/jacobi-checks.js';
import { Rng } from '../helpers/random.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';
const HARNESS = resolve('test/helpers/tridiag-host-harness.cpp');
const EPS: Record<DType, number> = { float64: 2 ** -52, float32: 2 ** -23 };
const LIMIT = 30;
const SHARED = 227 * 1024 - 1024;
const ALL: readonly SymKind[] = ['random', 'clustered', 'repeated', 'diagonal', 'zero', 'graded', 'rank-deficient'];

function runKernel(dir: string, p: SyevTridiagParams, input: string): number[] {
  const src = syevTridiagSource(p);
  writeFileSync(join(dir, 'kernel.cu'), src.source);
  const exe = join(dir, src.entry);
  const io = p.dtype === 'float32' ? ['-DIO=float'] : [];
  execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DENTRY=${src.entry}`, ...io, `-I${dir}`, HARNESS, '-o', exe]);
  return execFileSync(exe, { input, maxBuffer: 1 << 28 }).toString().trim().split('\n').map(Number);
}

const round = (x: number, dtype: DType): number => (dtype === 'float32' ? Math.fround(x) : x);

interface Case { dtype: DType; n: number; uplo: Uplo; vectors: boolean; force: TridiagForce; kinds: readonly SymKind[] }

/** Runs a case: the kinds' matrices, then one with NaN on the diagonal; returns the outputs and the batch. */
function runCase(dir: string, rng: Rng, c: Case, maxit?: number) {
  const { dtype, n, uplo, vectors } = c;
  const planned = planSyevTridiag({ dtype, n, uplo, vectors, kind: 'strided', sharedLimit: SHARED }, tuningFor('sm_90', 'tridiag'), { force: c.force });
  const p = maxit === undefined ? planned : { ...planned, maxit };
  const count = c.kinds.length + 1;
  const mats: Mat[] = Array.from({ length: count }, (_, i) => symmetricCase(rng, c.kinds[i % c.kinds.length]!, n).a)
    .map((a) => ({ ...a, d: a.d.map((x) => round(x, dtype)) }));
  const ld = n + 1;
  const stride = ld * n;
  const flat = new Float64Array(count * stride);
  mats.forEach((a, k) => { for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) flat[k * stride + i + j * ld] = a.d[i + j * n]!; });
  const bad = count - 1;
  flat[bad * stride + Math.min(2, n - 1) * (ld + 1)] = NaN;   // on the diagonal: read whatever the triangle
  // The triangle syev must not read: NaN (a read of it would spoil the results).
  mats.forEach((_, k) => { for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) if (uplo === 'lower' ? i < j : i > j) flat[k * stride + i + j * ld] = NaN; });
  const out = runKernel(dir, p, `${count} ${p.threads} ${n} ${ld} ${stride}\n${Array.from(flat).join(' ')}\n`);
  const refW = new Float64Array(count * n);
  const refInfo = new Int32Array(count);
  cpuSyev({ jobz: 'values', uplo, a: strided(flat.slice(), { rows: n, count, ld, stride }), w: strided(refW, { rows: n, cols: 1, count }), info: refInfo });
  return { p, mats, flat, ld, stride, bad, info: out.slice(0, count), w: out.slice(count, count + count * n), aOut: out.slice(count + count * n), refW, refInfo };
}

function check(dir: string, rng: Rng, c: Case): void {
  const { dtype, n, vectors } = c;
  const eps = EPS[dtype];
  const r = runCase(dir, rng, c);
  const what = `tridiag ${dtype} n=${n} ${c.uplo} ${vectors ? 'V' : 'N'} t=${r.p.threads} ${r.p.shared ? 'shared' : 'global'}`;
  r.mats.forEach((a, k) => {
    const at = `${what} #${k} (${k === r.bad ? 'NaN' : c.kinds[k % c.kinds.length]})`;
    assert.equal(r.info[k], r.refInfo[k], `${at}: info`);
    const wk = r.w.slice(k * n, (k + 1) * n);
    if (k === r.bad) {
      assert.equal(r.info[k], n + 2);
      assert.ok(wk.every(Number.isNaN), `${at}: NaN w`);
      if (vectors) for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) assert.ok(Number.isNaN(r.aOut[k * r.stride + i + j * r.ld]!), `${at}: NaN vectors`);
      return;
    }
    let norm = 0;
    for (const x of a.d) norm += x * x;
    norm = Math.sqrt(norm);
    wk.forEach((x, j) => assert.ok(Math.abs(x - r.refW[k * n + j]!) <= n * eps * norm, `${at}: w[${j}] ${x} vs ${r.refW[k * n + j]}`));
    for (let j = 1; j < n; j++) assert.ok(wk[j - 1]! <= wk[j]!, `${at}: ascending`);
    if (!vectors) {
      for (let e = k * r.stride; e < (k + 1) * r.stride; e++) assert.ok(Object.is(r.aOut[e], r.flat[e]), `${at}: A untouched at ${e}`);
      return;
    }
    const v = mat(n, n);
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) v.d[i + j * n] = r.aOut[k * r.stride + i + j * r.ld]!;
    const r1 = eigenResidual(a, v, wk, eps), r2 = orthoResidual(v, eps);
    assert.ok(r1 < LIMIT, `${at}: ||AV - VW|| ratio ${r1}`);
    assert.ok(r2 < LIMIT, `${at}: ||V^T V - I|| ratio ${r2}`);
  });
}

test('tridiagonal-QL syev kernel on the host: reference values, residuals, NaN, both storages', { skip, timeout: 3_600_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-tridiag-'));
  const rng = new Rng(1717);
  try {
    const cases: Case[] = [
      { dtype: 'float64', n: 40, uplo: 'lower', vectors: true, force: {}, kinds: ALL },
      { dtype: 'float64', n: 33, uplo: 'upper', vectors: true, force: { global: true, threads: 32 }, kinds: ALL },
      { dtype: 'float32', n: 47, uplo: 'upper', vectors: true, force: {}, kinds: ['random', 'graded', 'clustered', 'rank-deficient'] },
      { dtype: 'float32', n: 36, uplo: 'lower', vectors: true, force: { global: true }, kinds: ['repeated', 'diagonal', 'zero'] },
      { dtype: 'float64', n: 64, uplo: 'upper', vectors: false, force: {}, kinds: ['random', 'graded', 'repeated'] },
      { dtype: 'float32', n: 35, uplo: 'lower', vectors: false, force: { global: true, threads: 64 }, kinds: ['clustered', 'random'] },
      { dtype: 'float64', n: 100, uplo: 'lower', vectors: true, force: {}, kinds: ['random', 'graded'] },
    ];
    // Small sizes where forced (the planner serves n >= 33 by default): the edge cases of the loops.
    for (const n of [1, 2, 3, 5, 8]) for (const vectors of [true, false])
      cases.push({ dtype: 'float64', n, uplo: n % 2 === 0 ? 'upper' : 'lower', vectors, force: {}, kinds: ['random', 'diagonal', 'zero'] });
    for (const c of cases) check(dir, rng, c);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('tridiagonal-QL syev kernel on the host: the iteration limit gives info n + 1, a diagonal matrix needs none', { skip, timeout: 600_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-tridiag-'));
  const rng = new Rng(1718);
  try {
    const n = 34;
    const r = runCase(dir, rng, { dtype: 'float64', n, uplo: 'lower', vectors: true, force: {}, kinds: ['random', 'diagonal'] }, 0);
    assert.deepEqual(r.info, [n + 1, 0, n + 2]);
    // The diagonal matrix's results are still right: eigenvalues sorted, vectors a permutation.
    const wk = r.w.slice(n, 2 * n);
    wk.forEach((x, j) => assert.equal(x, r.refW[n + j]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
