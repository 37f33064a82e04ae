/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++): the generated per-thread QL syev kernels
 * (src/cuda/kernels/ql-thread/) themselves, compiled as C++ for the host
 * (test/helpers/ql-thread-host-harness.cpp) and launched over a batch with odd ld and stride:
 * n = 1 ... 8, both dtypes, vectors and values only, uplo 'L' and 'U', on random, clustered,
 * repeated, diagonal, zero, graded, rank-deficient, tiny- and huge-scaled matrices and a NaN and an
 * Inf among good ones, NaN in the triangle `uplo` does not name. Checked: info as the CPU
 * reference's, the eigenvalues ascending and within n eps ||A|| of the reference's (float32 data in
 * float32 arithmetic: 30 n eps ||A||, the Jacobi designs' bound, on 40 matrices of each kind),
 * ||A V - V W|| and ||V^T V - I|| below 30 n eps (||A||), NaN outputs for the bad matrices, the
 * padding between matrices untouched, A untouched without vectors; and the iteration limit's info
 * n + 1; float32 arithmetic on a column negligible beside a much larger A (the reflector skipped,
 * which without the rule ends in NaN). The float32 arithmetic's kernels run with rsqrtf 2 ulps high (the GPU's bound), which
 * their Newton step absorbs.
 * A check of the CUDA source without a GPU; test/gpu/syev-small.test.ts is the real one.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { strided } from '../../src/core/batch.js';
import { STAGED_SHARED_MAX } from '../../src/cuda/kernels/common/span-stage.js';
import type { DType } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import { cpuSyev } from '../../src/cpu/lapack/index.js';
import { QL_THREAD_BLOCK, QL_THREAD_LIMIT, planQlThread, qlThreadSharedBytes, qlThreadSource } from '../../src/cuda/kernels/ql-thread/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { eigenResidual, mat, orthoResidual, symmetricCase, type Mat, type SymKind } from '../helpers/jacobi-checks.js';
import { Rng } from '../helpers/random.js';
import { parseHarnessNumber } from '../helpers/recording-device.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';
const HARNESS = resolve('test/helpers/ql-thread-host-harness.cpp');
const EPS: Record<DType, number> = { float64: 2 ** -52, float32: 2 ** -23 };
const LIMIT = 30;
const TABLE = tuningFor('sm_90', 'qlThread');
const round = (x: number, dtype: DType): number => (dtype === 'float32' ? Math.fround(x) : x);

/** The cases of one batch: a kind and a power-of-two scale (exact), or a bad entry. */
type Case = { kind: SymKind; scale: number } | { bad: number };
const scales: Record<DType, readonly number[]> = { float64: [2 ** -600, 2 ** 600, 2 ** -1000], float32: [2 ** -60, 2 ** 60, 2 ** -100] };
const KINDS: readonly SymKind[] = ['random', 'clustered', 'repeated', 'diagonal', 'zero', 'graded', 'rank-deficient'];

/**
 * Runs the kernels of `dtype` data in `arithmetic` (undefined: the plan's default) over the cases,
 * `perKind` matrices of each kind, the eigenvalues held within `valueLimit` n eps ||A|| of the
 * reference's; returns the largest
 * ratio seen of each check.
 */
function checkOnHost(dtypes: readonly DType[], arithmetic: DType | undefined, valueLimit: number, perKind: number, seed: number, defines: readonly string[] = [],
  staging?: 'dense' | 'ragged'): { values: number; residual: number; orthogonality: number } {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-ql-thread-'));
  const rng = new Rng(seed);
  const worst = { values: 0, residual: 0, orthogonality: 0 };
  try {
    for (const dtype of dtypes) for (let n = 1; n <= QL_THREAD_LIMIT; n++) for (const vectors of [true, false]) {
      const uplo: Uplo = (n + (vectors ? 1 : 0)) % 2 === 0 ? 'upper' : 'lower';
      const eps = EPS[dtype];
      // staging: the kernel staged through shared memory (forced), over densely packed matrices or the ragged layout below.
      const dense = staging === 'dense';
      const force = { ...(arithmetic === undefined ? {} : { arithmetic }), ...(staging === undefined ? {} : { stage: true }) };
      if (staging !== undefined && qlThreadSharedBytes({ dtype, n, staged: true }) > STAGED_SHARED_MAX) continue;
      const p = planQlThread({ dtype, n, uplo, vectors, kind: 'strided', denseA: dense, denseW: true }, TABLE, { force });
      const cases: Case[] = [
        ...KINDS.flatMap((kind) => Array.from({ length: perKind }, () => ({ kind, scale: 1 }))),
        ...scales[dtype].flatMap((scale) => [{ kind: 'random' as const, scale }, { kind: 'graded' as const, scale }]),
        { bad: NaN }, { kind: 'random', scale: 1 }, { bad: Infinity },
      ];
      const count = cases.length;
      const mats: Mat[] = cases.map((c) => {
        if ('bad' in c) {
          const a = symmetricCase(rng, 'random', n).a;
          a.d[(n - 1) + (n - 1) * n] = c.bad;   // on the diagonal: read whatever the triangle
          return a;
        }
        const a = symmetricCase(rng, c.kind, n).a;
        return { ...a, d: a.d.map((x) => round(x * c.scale, dtype)) };
      });
      const ld = dense ? n : n + 1;
      const stride = dense ? n * n : ld * n + 2;
      const flat = new Float64Array(count * stride).fill(-0.5);   // padding: must come back as it was
      // The triangle syev must not read holds NaN.
      mats.forEach((a, k) => { for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) flat[k * stride + i + j * ld] = (uplo === 'lower' ? i < j : i > j) ? NaN : a.d[i + j * n]!; });
      const src = qlThreadSource(p);
      writeFileSync(join(dir, 'kernel.cu'), src.source);
      const exe = join(dir, src.entry);
      execFileSync('g++', [staging === undefined ? '-std=c++17' : '-std=c++20', '-O1', ...(staging === undefined ? [] : ['-pthread', '-DSTAGED']), `-DENTRY=${src.entry}`, ...defines, `-I${dir}`, HARNESS, '-o', exe]);
      const grid = Math.ceil(count / QL_THREAD_BLOCK);
      const out = execFileSync(exe, { input: `${count} ${grid} ${QL_THREAD_BLOCK} ${n} ${ld} ${stride}\n${Array.from(flat).join(' ')}\n`, maxBuffer: 1 << 28 })
        .toString().trim().split('\n').map(parseHarnessNumber);
      const info = out.slice(0, count), w = out.slice(count, count + count * n), aOut = out.slice(count + count * n);
      const refW = new Float64Array(count * n);
      const refInfo = new Int32Array(count);
      cpuSyev({ jobz: 'values', uplo, a: strided(flat.slice(), { rows: n, count, ld, stride }), w: strided(refW, { rows: n, cols: 1, count }), info: refInfo });
      mats.forEach((a, k) => {
        const c = cases[k]!;
        const at = `ql-thread ${dtype} n=${n} ${vectors ? 'V' : 'N'} ${uplo} #${k} ${'bad' in c ? String(c.bad) : `${c.kind} x${c.scale}`}`;
        for (let e = 0; e < stride; e++) if (e % ld >= n || e >= n * ld) assert.equal(aOut[k * stride + e], -0.5, `${at}: padding ${e}`);
        assert.equal(info[k], refInfo[k], `${at}: info`);
        const wk = w.slice(k * n, (k + 1) * n);
        if ('bad' in c) {
          assert.equal(info[k], n + 2);
          assert.ok(wk.every(Number.isNaN), `${at}: NaN w`);
          if (vectors) for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) assert.ok(Number.isNaN(aOut[k * stride + i + j * ld]!), `${at}: NaN V`);
          return;
        }
        assert.equal(info[k], 0, `${at}: info`);
        for (let j = 1; j < n; j++) assert.ok(wk[j - 1]! <= wk[j]!, `${at}: ascending at ${j}`);
        // ||A||_F of a scaled matrix from A / scale (exact), clear of underflow in the squares.
        let norm = 0;
        for (const x of a.d) norm += (x / c.scale) ** 2;
        norm = Math.sqrt(norm) * c.scale;
        wk.forEach((x, j) => {
          const ratio = norm === 0 ? (x === refW[k * n + j] ? 0 : Infinity) : Math.abs(x - refW[k * n + j]!) / (n * eps * norm);
          worst.values = Math.max(worst.values, ratio);
          assert.ok(ratio <= valueLimit, `${at}: w[${j}] ${x} vs ${refW[k * n + j]} (${ratio} n eps ||A||)`);
        });
        if (!vectors) {
          for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) assert.ok(Object.is(aOut[k * stride + i + j * ld], flat[k * stride + i + j * ld]), `${at}: A untouched`);
          return;
        }
        const v = mat(n, n);
        for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) v.d[i + j * n] = aOut[k * stride + i + j * ld]!;
        // A scaled matrix's residual on A / scale and W / scale (exact: powers of two), clear of underflow in the check itself.
        const res = eigenResidual({ ...a, d: a.d.map((x) => x / c.scale) }, v, wk.map((x) => x / c.scale), eps), orth = orthoResidual(v, eps);
        worst.residual = Math.max(worst.residual, res);
        worst.orthogonality = Math.max(worst.orthogonality, orth);
        assert.ok(res < LIMIT, `${at}: ||AV - VW|| ratio ${res}`);
        assert.ok(orth < LIMIT, `${at}: ||V^T V - I|| ratio ${orth}`);
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return worst;
}

test('per-thread QL syev kernels on the host: residuals, order, info and the reference values, n = 1 ... 8', { skip, timeout: 1_800_000 }, (t) => {
  // float64 arithmetic: the eigenvalues within n eps ||A|| of the reference's.
  const worst = checkOnHost(['float64', 'float32'], undefined, 1, 3, 88);
  t.diagnostic(`largest ratios: values ${worst.values.toFixed(3)} n eps ||A||, ||AV - VW|| ${worst.residual.toFixed(3)}, ||V^T V - I|| ${worst.orthogonality.toFixed(3)}`);
});

test('per-thread QL syev kernels staged through shared memory on the host: the same checks, a full block and a partial one, dense and ragged layouts', { skip, timeout: 1_800_000 }, () => {
  // 20 matrices a kind: more than a block of QL_THREAD_BLOCK, so the dense spans take the vector copies in the full block.
  // The eigenvalues within n eps ||A|| of the exact ones, and so are the reference's: within twice that of each other
  // (these matrices reach 1.05 n eps ||A|| at float64 n = 3, staged or not: the same bits).
  checkOnHost(['float64', 'float32'], undefined, 2, 20, 91, [], 'dense');
  checkOnHost(['float32'], 'float32', LIMIT, 20, 92, ['-DRSQRTF_ULPS=2'], 'ragged');
});

test('per-thread QL syev kernels in float32 arithmetic on the host: the same cases and checks, the eigenvalues within the Jacobi designs\' 30 n eps ||A||', { skip, timeout: 1_800_000 }, (t) => {
  // rsqrtf 2 ulps high on every call (the GPU's bound, as a bias): the kernels' Newton step must absorb it.
  const worst = checkOnHost(['float32'], 'float32', LIMIT, 40, 90, ['-DRSQRTF_ULPS=2']);
  t.diagnostic(`largest ratios: values ${worst.values.toFixed(3)} n eps ||A||, ||AV - VW|| ${worst.residual.toFixed(3)}, ||V^T V - I|| ${worst.orthogonality.toFixed(3)}`);
});

test('per-thread QL syev on the host: the iteration limit gives info n + 1 and the iterate reached, sorted; a diagonal matrix needs none', { skip, timeout: 300_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-ql-thread-maxit-'));
  const rng = new Rng(89);
  try {
    for (const [dtype, n, maxit, arithmetic] of [['float64', 5, 0, 'float64'], ['float32', 8, 0, 'float64'], ['float64', 8, 1, 'float64'], ['float32', 5, 0, 'float32'], ['float32', 8, 1, 'float32']] as const) {
      const src = qlThreadSource({ ...planQlThread({ dtype, n, uplo: 'lower', vectors: true, kind: 'strided' }, TABLE, { force: { arithmetic } }), maxit });
      writeFileSync(join(dir, 'kernel.cu'), src.source);
      const exe = join(dir, src.entry);
      execFileSync('g++', ['-std=c++17', '-O1', `-DENTRY=${src.entry}`, `-I${dir}`, HARNESS, '-o', exe]);
      const mats = [symmetricCase(rng, 'random', n).a, symmetricCase(rng, 'diagonal', n).a, symmetricCase(rng, 'random', n).a];
      const flat = new Float64Array(3 * n * n);
      mats.forEach((a, k) => flat.set(a.d.map((x) => round(x, dtype)), k * n * n));
      const out = execFileSync(exe, { input: `3 1 ${QL_THREAD_BLOCK} ${n} ${n} ${n * n}\n${Array.from(flat).join(' ')}\n` }).toString().trim().split('\n').map(parseHarnessNumber);
      const at = `${dtype} n=${n} maxit=${maxit} in ${arithmetic}`;
      // maxit n iterations in all: 0 stops a random matrix before its first, 1 x 8 = 8 before it converges (it needs ~18).
      assert.deepEqual(out.slice(0, 3), [n + 1, 0, n + 1], `${at}: info`);
      for (let k = 0; k < 3; k++) {
        const wk = out.slice(3 + k * n, 3 + (k + 1) * n);
        assert.ok(wk.every(Number.isFinite), `${at} #${k}: w finite`);
        for (let j = 1; j < n; j++) assert.ok(wk[j - 1]! <= wk[j]!, `${at} #${k}: ascending`);
      }
      // The diagonal matrix: its diagonal, sorted, and permuted unit vectors.
      const diag = Array.from({ length: n }, (_, i) => round(mats[1]!.d[i + i * n]!, dtype)).sort((x, y) => x - y);
      assert.deepEqual(out.slice(3 + n, 3 + 2 * n), diag, `${at}: diagonal`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('per-thread QL syev in float32 arithmetic on the host: a column negligible beside a much larger A (its reflector\'s h u^T p past float32\'s range) skips its reflector', { skip, timeout: 300_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-ql-thread-flat-'));
  const rng = new Rng(91);
  const eps = EPS.float32;
  try {
    for (const n of [3, 5, 8]) for (const arithmetic of ['float32', 'float64'] as const) {
      const src = qlThreadSource(planQlThread({ dtype: 'float32', n, uplo: 'lower', vectors: true, kind: 'strided' }, TABLE, { force: { arithmetic } }));
      writeFileSync(join(dir, 'kernel.cu'), src.source);
      const exe = join(dir, src.entry);
      execFileSync('g++', ['-std=c++17', '-O1', `-DENTRY=${src.entry}`, `-I${dir}`, HARNESS, '-o', exe]);
      // Rows and columns 1 ... n - 1 of order 1e12 (below the scaling window's top), a_00 = 1, column 0
      // below the diagonal of order 1e-20: its ||x||^2 ~ 1e-40 is subnormal, and 1 / ||x||^2 overflows.
      const count = 8;
      const mats = Array.from({ length: count }, () => {
        const a = symmetricCase(rng, 'random', n).a;
        const d = a.d.map((x, e) => {
          const i = e % n, j = Math.floor(e / n);
          return Math.fround(i === 0 && j === 0 ? 1 : i === 0 || j === 0 ? x * 1e-20 : x * 1e12);
        });
        return { ...a, d };
      });
      const flat = new Float64Array(count * n * n);
      mats.forEach((a, k) => flat.set(a.d, k * n * n));
      const out = execFileSync(exe, { input: `${count} 1 ${QL_THREAD_BLOCK} ${n} ${n} ${n * n}\n${Array.from(flat).join(' ')}\n` }).toString().trim().split('\n').map(parseHarnessNumber);
      const refW = new Float64Array(count * n), refInfo = new Int32Array(count);
      cpuSyev({ jobz: 'values', uplo: 'lower', a: strided(flat.slice(), { rows: n, count }), w: strided(refW, { rows: n, cols: 1, count }), info: refInfo });
      mats.forEach((a, k) => {
        const at = `flat column, n=${n} in ${arithmetic} #${k}`;
        assert.equal(out[k], 0, `${at}: info`);
        const wk = out.slice(count + k * n, count + (k + 1) * n);
        const norm = Math.hypot(...a.d);
        wk.forEach((x, j) => assert.ok(Math.abs(x - refW[k * n + j]!) <= LIMIT * n * eps * norm, `${at}: w[${j}] ${x} vs ${refW[k * n + j]}`));
        const v = mat(n, n);
        v.d.set(out.slice(count + count * n + k * n * n, count + count * n + (k + 1) * n * n));
        const res = eigenResidual(a, v, wk, eps), orth = orthoResidual(v, eps);
        assert.ok(res < LIMIT && orth < LIMIT, `${at}: ||AV - VW|| ratio ${res}, ||V^T V - I|| ratio ${orth}`);
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
