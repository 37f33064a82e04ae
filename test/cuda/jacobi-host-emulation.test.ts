/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the generated Jacobi warp kernels
 * (the shared-memory warp design, the thread design, the rows design) themselves, compiled as C++ for the host (test/helpers/jacobi-host-harness.cpp: a thread per
 * CUDA thread, warp intrinsics from a barrier per warp) and launched with the planner's shapes,
 * checked by residuals and against the CPU reference's values: syev and gesvd, both dtypes, odd
 * and even sizes, tall and wide, zero and rank-deficient matrices, NaN in a batch of good ones.
 * The block kernels (n = 33 ... 64, -DBLOCK: __syncthreads from a block barrier) likewise, with A
 * and V in shared memory and in the global workspace, and fewer threads than the plan's.
 * A check of the CUDA source without a GPU; test/gpu/jacobi-*.test.ts are the real ones.
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
import { cpuGesvd, cpuSyev } from '../../src/cpu/lapack/index.js';
import {
  BLOCK_COMPUTE, ROWS_WARPS, THREAD_BLOCK, THREAD_MAX, gesvdBlockSource, gesvdWarpSource, planGesvd, planGesvdBlock, planSyev, planSyevBlock, rowsShape,
  planSyevThread, selectSyev, syevBlockSource, syevRowsSource, syevThreadSharedBytes, syevThreadSource, syevWarpSource,
} from '../../src/cuda/kernels/jacobi/index.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { eigenResidual, generalCase, mat, orthoResidual, svdResidual, symmetricCase, type Mat, type SymKind } from '../helpers/jacobi-checks.js';
import { Rng } from '../helpers/random.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';
const HARNESS = resolve('test/helpers/jacobi-host-harness.cpp');
const EPS: Record<DType, number> = { float64: 2 ** -52, float32: 2 ** -23 };
const LIMIT = 30;

/** `block`: a block design, whose arithmetic is BLOCK_COMPUTE whatever `dtype` (the data's) is. */
function runKernel(dir: string, src: KernelSource, gesvd: boolean, input: string, block = false, dtype: DType = BLOCK_COMPUTE, staged = false): number[] {
  writeFileSync(join(dir, 'kernel.cu'), src.source);
  const exe = join(dir, src.entry);
  const io = block && dtype !== BLOCK_COMPUTE ? [`-DIO=${dtype === 'float32' ? 'float' : 'double'}`] : [];
  execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DENTRY=${src.entry}`, ...(gesvd ? ['-DGESVD'] : []), ...(block ? ['-DBLOCK'] : []), ...(staged ? ['-DSTAGED'] : []), ...io, `-I${dir}`, HARNESS, '-o', exe]);
  return execFileSync(exe, { input, maxBuffer: 1 << 28 }).toString().trim().split('\n').map(Number);
}

/** A syev run's outputs split (info, W, A), and the CPU reference's W and info of the same batch `flat` (the reference on the same data). */
function syevResults(out: number[], flat: Float64Array, count: number, n: number, ld: number, stride: number, uplo: Uplo) {
  const refW = new Float64Array(count * n);
  const refInfo = new Int32Array(count);
  cpuSyev({ jobz: 'values', uplo, a: strided(flat.slice(), { rows: n, count, ld, stride }), w: strided(refW, { rows: n, cols: 1, count }), info: refInfo });
  return { info: out.slice(0, count), w: out.slice(count, count + count * n), aOut: out.slice(count + count * n), refW, refInfo };
}

/** A gesvd run's outputs split (info, S, U, VT), and the CPU reference's S and info of the same batch `flat`. */
function gesvdResults(out: number[], flat: Float64Array, count: number, m: number, n: number) {
  const k = Math.min(m, n);
  const refS = new Float64Array(count * k);
  const refInfo = new Int32Array(count);
  cpuGesvd({ a: strided(flat.slice(), { rows: m, cols: n, count }), s: strided(refS, { rows: k, cols: 1, count }), info: refInfo });
  return {
    info: out.slice(0, count),
    s: out.slice(count, count + count * k),
    u: out.slice(count + count * k, count + count * k + count * m * k),
    vt: out.slice(count + count * k + count * m * k),
    refS,
    refInfo,
  };
}

const round = (x: number, dtype: DType): number => (dtype === 'float32' ? Math.fround(x) : x);

test('Jacobi warp kernels on the host: residuals and the reference values', { skip, timeout: 1_800_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-jacobi-'));
  const rng = new Rng(31);
  try {
    for (const dtype of ['float64', 'float32'] as const) {
      const eps = EPS[dtype];
      for (const n of [1, 2, 3, 4, 5, 8, 13, 32]) for (const vectors of [true, false]) for (const design of ['warp', 'thread', 'staged', 'rows'] as const) {
        if ((design === 'thread' || design === 'staged') && n > THREAD_MAX) continue;
        // The staged per-thread kernel: a full block and a partial one, densely packed at even n (16-byte vectors), ragged ld at odd n.
        const dense = design === 'staged' && n % 2 === 0;
        if (design === 'staged' && syevThreadSharedBytes({ dtype, n, staged: true }) > STAGED_SHARED_MAX) continue;
        const staged = design === 'staged' ? planSyevThread({ dtype, n, uplo: n % 2 === 0 ? 'upper' : 'lower', vectors, kind: 'strided', denseA: dense, denseW: true }, true) : undefined;
        const uplo = n % 2 === 0 ? 'upper' : 'lower';
        const p = planSyev({ dtype, n, uplo, vectors, kind: 'strided' });
        const rows = rowsShape(n);
        const count = design === 'warp' ? p.perBlock + 1 : design === 'rows' ? rows.perBlock + 1 : design === 'staged' ? THREAD_BLOCK + 37 : 37;
        const launch = design === 'warp'
          ? { src: syevWarpSource(p), grid: Math.ceil(count / p.perBlock), block: p.threads * p.perBlock }
          : design === 'rows'
            ? { src: syevRowsSource({ dtype, n, uplo, vectors, kind: 'strided', maxSweeps: p.maxSweeps, angle: 'halfAngle' }), grid: Math.ceil(count / rows.perBlock), block: 32 * ROWS_WARPS }
            : design === 'staged'
              ? { src: syevThreadSource(staged!), grid: 2, block: THREAD_BLOCK }
              : { src: syevThreadSource({ dtype, n, uplo, vectors, kind: 'strided', maxSweeps: p.maxSweeps, staged: false, denseA: false, denseW: false }), grid: 1, block: THREAD_BLOCK };
        const kinds = ['random', 'repeated', 'zero', 'graded', 'rank-deficient'] as const;
        // The staged kernel's matrices from a generator of its own: the other designs keep their cases.
        const source = design === 'staged' ? new Rng(1000 * n + (vectors ? 1 : 0)) : rng;
        const mats: Mat[] = Array.from({ length: count }, (_, i) => symmetricCase(source, kinds[i % kinds.length]!, n).a)
          .map((a) => ({ ...a, d: a.d.map((x) => round(x, dtype)) }));
        const bad = Math.min(1, count - 1);
        mats[bad]!.d[n * n - 1] = NaN;
        const ld = dense ? n : n + 1;
        const stride = ld * n;
        const flat = new Float64Array(count * stride);
        mats.forEach((a, k) => { for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) flat[k * stride + i + j * ld] = a.d[i + j * n]!; });
        const out = runKernel(dir, launch.src, false, `${count} ${launch.grid} ${launch.block} ${n} ${n} ${ld} ${stride}\n${Array.from(flat).join(' ')}\n`, false, BLOCK_COMPUTE, design === 'staged');
        const { info, w, aOut, refW, refInfo } = syevResults(out, flat, count, n, ld, stride, uplo);
        mats.forEach((a, k) => {
          const at = `syev ${design} ${dtype} n=${n} ${vectors ? 'V' : 'N'} #${k}`;
          assert.equal(info[k], refInfo[k], `${at}: info`);
          if (k === bad && n > 0) {
            assert.equal(info[k], n + 2);
            assert.ok(w.slice(k * n, (k + 1) * n).every(Number.isNaN), `${at}: NaN w`);
            return;
          }
          const wk = w.slice(k * n, (k + 1) * n);
          let norm = 0;
          for (const x of a.d) norm += x * x;
          norm = Math.sqrt(norm);
          wk.forEach((x, j) => assert.ok(Math.abs(x - refW[k * n + j]!) <= LIMIT * n * eps * norm, `${at}: w[${j}] ${x} vs ${refW[k * n + j]}`));
          if (!vectors) {
            for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) assert.equal(aOut[k * stride + i + j * ld], flat[k * stride + i + j * ld], `${at}: A untouched`);
            return;
          }
          const v = mat(n, n);
          for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) v.d[i + j * n] = aOut[k * stride + i + j * ld]!;
          assert.ok(eigenResidual(a, v, wk, eps) < LIMIT, `${at}: ||AV - VW|| ratio ${eigenResidual(a, v, wk, eps)}`);
          assert.ok(orthoResidual(v, eps) < LIMIT, `${at}: ||V^T V - I|| ratio ${orthoResidual(v, eps)}`);
        });
      }
      for (const [m, n] of [[1, 1], [4, 1], [1, 4], [5, 3], [3, 5], [8, 8], [32, 7], [6, 32]] as const) {
        const k = Math.min(m, n);
        const p = planGesvd({ dtype, m, n, wantU: true, wantVt: true, kind: 'strided' });
        const count = Math.min(p.perBlock + 1, 9);
        const kinds = ['random', 'zero', 'rank-deficient', 'graded', 'repeated'] as const;
        const mats = Array.from({ length: count }, (_, i) => generalCase(rng, kinds[i % kinds.length]!, m, n).a)
          .map((a) => ({ ...a, d: a.d.map((x) => round(x, dtype)) }));
        mats[count - 1]!.d[0] = Infinity;
        const stride = m * n;
        const flat = new Float64Array(count * stride);
        mats.forEach((a, i) => flat.set(a.d, i * stride));
        const out = runKernel(dir, gesvdWarpSource(p), true, `${count} ${Math.ceil(count / p.perBlock)} ${p.threads * p.perBlock} ${m} ${n} ${m} ${stride}\n${Array.from(flat).join(' ')}\n`);
        const { info, s, u, vt, refS, refInfo } = gesvdResults(out, flat, count, m, n);
        mats.forEach((a, i) => {
          const at = `gesvd ${dtype} ${m}x${n} #${i}`;
          assert.equal(info[i], refInfo[i], `${at}: info`);
          if (i === count - 1) {
            assert.ok(s.slice(i * k, (i + 1) * k).every(Number.isNaN) && u.slice(i * m * k, (i + 1) * m * k).every(Number.isNaN), `${at}: NaN`);
            return;
          }
          const si = s.slice(i * k, (i + 1) * k);
          let norm = 0;
          for (const x of a.d) norm += x * x;
          norm = Math.sqrt(norm);
          si.forEach((x, j) => assert.ok(Math.abs(x - refS[i * k + j]!) <= LIMIT * Math.max(m, n) * eps * norm, `${at}: s[${j}] ${x} vs ${refS[i * k + j]}`));
          const ui = mat(m, k);
          ui.d.set(u.slice(i * m * k, (i + 1) * m * k));
          const vti = mat(k, n);
          vti.d.set(vt.slice(i * k * n, (i + 1) * k * n));
          assert.ok(svdResidual(a, ui, si, vti, eps) < LIMIT, `${at}: ||A - USVT|| ratio ${svdResidual(a, ui, si, vti, eps)}`);
          assert.ok(orthoResidual(ui, eps) < LIMIT, `${at}: ||U^T U - I|| ratio ${orthoResidual(ui, eps)}`);
          assert.ok(orthoResidual(vti, eps, true) < LIMIT, `${at}: ||VT VT^T - I|| ratio ${orthoResidual(vti, eps, true)}`);
        });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The rows design's cases: the named kinds, two scaled far from 1 (the half-angle's power-of-two scaling), and one with a NaN. */
const ROWS_KINDS = ['random', 'clustered', 'repeated', 'graded', 'diagonal', 'zero', 'tiny', 'huge', 'nan'] as const;

for (const dtype of ['float64', 'float32'] as const) test(`the rows design (n = 9 ... 32) on the host, ${dtype}: both angles, every kind of matrix, eigenvalues within n eps ||A||, residual and orthogonality within 30 n eps`, { skip, timeout: 3_600_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-jacobi-rows-'));
  const rng = new Rng(dtype === 'float64' ? 41 : 43);
  try {
    {
      const eps = EPS[dtype];
      // Powers of two far from 1 that the dtype's squares still hold in its normal range, as in the reference's tests.
      const [tiny, huge] = dtype === 'float64' ? [2 ** -1000, 2 ** 600] : [2 ** -100, 2 ** 60];
      for (const n of [9, 12, 16, 17, 24, 31, 32]) for (const vectors of [true, false]) for (const angle of ['halfAngle', 'tangent'] as const) {
        if (angle === 'tangent' && ![9, 32].includes(n)) continue;
        const uplo = n % 2 === 0 ? 'lower' : 'upper';
        const p = selectSyev({ dtype, n, uplo, vectors, kind: 'strided' }).params;
        assert.ok('angle' in p && p.angle === 'halfAngle', 'the planner takes the half-angle rotation');
        const src = syevRowsSource({ dtype, n, uplo, vectors, kind: 'strided', maxSweeps: p.maxSweeps, angle });
        const { perBlock } = rowsShape(n);
        const count = Math.max(perBlock + 1, ROWS_KINDS.length);
        // Matrix k is scales[k] mats[k], exactly (a power of two times normal numbers of the dtype); the
        // checks run on mats[k] and W / scales[k], where the squares of the scaled entries would under- or overflow.
        const scales = Array.from({ length: count }, (_, i) => {
          const kind = ROWS_KINDS[i % ROWS_KINDS.length]!;
          return kind === 'tiny' ? tiny : kind === 'huge' ? huge : 1;
        });
        const mats: Mat[] = Array.from({ length: count }, (_, i) => {
          const kind = ROWS_KINDS[i % ROWS_KINDS.length]!;
          const a = symmetricCase(rng, kind === 'tiny' || kind === 'huge' || kind === 'nan' ? 'random' : kind, n).a;
          return { ...a, d: a.d.map((x) => round(x, dtype)) };
        });
        const nan = ROWS_KINDS.indexOf('nan');
        mats[nan]!.d[(n - 1) * (n + 1)] = NaN;
        const ld = n + 1;
        const stride = ld * n;
        const flat = new Float64Array(count * stride);
        mats.forEach((a, k) => { for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) flat[k * stride + i + j * ld] = a.d[i + j * n]! * scales[k]!; });
        const out = runKernel(dir, src, false, `${count} ${Math.ceil(count / perBlock)} ${32 * ROWS_WARPS} ${n} ${n} ${ld} ${stride}\n${Array.from(flat).join(' ')}\n`);
        const { info, w, aOut, refW, refInfo } = syevResults(out, flat, count, n, ld, stride, uplo);
        mats.forEach((a, k) => {
          const at = `syev rows ${angle} ${dtype} n=${n} ${vectors ? 'V' : 'N'} ${ROWS_KINDS[k % ROWS_KINDS.length]} #${k}`;
          assert.equal(info[k], refInfo[k], `${at}: info`);
          const wk = w.slice(k * n, (k + 1) * n).map((x) => x / scales[k]!);
          if (k === nan) {
            assert.equal(info[k], n + 2);
            assert.ok(wk.every(Number.isNaN), `${at}: NaN w`);
            if (vectors) assert.ok(aOut.slice(k * stride, k * stride + n * ld).filter((_, e) => e % ld < n).every(Number.isNaN), `${at}: NaN vectors`);
            return;
          }
          assert.equal(info[k], 0, `${at}: converged`);
          let norm = 0;
          for (const x of a.d) norm += x * x;
          norm = Math.sqrt(norm);
          wk.forEach((x, j) => assert.ok(Math.abs(x - refW[k * n + j]! / scales[k]!) <= n * eps * norm, `${at}: w[${j}] ${x} vs ${refW[k * n + j]! / scales[k]!}`));
          if (!vectors) {
            for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) assert.equal(aOut[k * stride + i + j * ld], flat[k * stride + i + j * ld], `${at}: A untouched`);
            return;
          }
          const v = mat(n, n);
          for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) v.d[i + j * n] = aOut[k * stride + i + j * ld]!;
          const res = eigenResidual(a, v, wk, eps), orth = orthoResidual(v, eps);
          assert.ok(res < LIMIT, `${at}: ||AV - VW|| ratio ${res}`);
          assert.ok(orth < LIMIT, `${at}: ||V^T V - I|| ratio ${orth}`);
        });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Symmetric test matrices as a flat strided batch (ld = n + 1), rounded to the dtype. */
function symmetricBatch(rng: Rng, dtype: DType, n: number, count: number, kinds: readonly SymKind[]): { mats: Mat[]; flat: Float64Array; ld: number; stride: number } {
  const mats = Array.from({ length: count }, (_, i) => symmetricCase(rng, kinds[i % kinds.length]!, n).a).map((a) => ({ ...a, d: a.d.map((x) => round(x, dtype)) }));
  const ld = n + 1;
  const stride = ld * n;
  const flat = new Float64Array(count * stride);
  mats.forEach((a, k) => { for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) flat[k * stride + i + j * ld] = a.d[i + j * n]!; });
  return { mats, flat, ld, stride };
}

test('Jacobi block kernels (n = 33 ... 64) on the host: residuals and the reference values', { skip, timeout: 3_600_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-jacobi-block-'));
  const rng = new Rng(37);
  const SHARED = 227 * 1024 - 1024;
  try {
    // Shared storage (the H100's opt-in limit), global storage (forced), and the planner's threads
    // or fewer (more work items per thread); float32 also at the static 48 KiB limit.
    const cases = [
      { dtype: 'float64', n: 33, vectors: true, global: false, threads: undefined, kinds: ['random', 'graded', 'zero'] },
      { dtype: 'float64', n: 40, vectors: true, global: true, threads: 64, kinds: ['clustered', 'rank-deficient', 'diagonal'] },
      { dtype: 'float64', n: 64, vectors: true, global: false, threads: 128, kinds: ['repeated', 'random'] },
      { dtype: 'float32', n: 33, vectors: false, global: true, threads: 96, kinds: ['random', 'graded'] },
      { dtype: 'float32', n: 40, vectors: true, global: false, threads: undefined, kinds: ['random', 'repeated'] },
    ] as const;
    for (const c of cases) {
      const { dtype, n, vectors } = c;
      const eps = EPS[dtype];
      const uplo = n % 2 === 0 ? 'upper' : 'lower';
      const p = planSyevBlock({ dtype, n, uplo, vectors, kind: 'strided', sharedLimit: SHARED }, { force: { global: c.global, threads: c.threads } });
      assert.equal(p.aShared, !c.global);
      const count = c.kinds.length + 1;
      const { mats, flat, ld, stride } = symmetricBatch(rng, dtype, n, count, c.kinds);
      const bad = count - 1;
      flat[bad * stride + 2 + 2 * ld] = NaN;   // on the diagonal: read whatever the triangle
      const out = runKernel(dir, syevBlockSource(p), false, `${count} ${count} ${p.threads} ${n} ${n} ${ld} ${stride}\n${Array.from(flat).join(' ')}\n`, true, dtype);
      const { info, w, aOut, refW, refInfo } = syevResults(out, flat, count, n, ld, stride, uplo);
      mats.forEach((a, k) => {
        const at = `syev block ${dtype} n=${n} ${vectors ? 'V' : 'N'} t=${p.threads} ${p.aShared ? 'shared' : 'global'} #${k}`;
        assert.equal(info[k], refInfo[k], `${at}: info`);
        const wk = w.slice(k * n, (k + 1) * n);
        if (k === bad) {
          assert.equal(info[k], n + 2);
          assert.ok(wk.every(Number.isNaN), `${at}: NaN w`);
          return;
        }
        let norm = 0;
        for (const x of a.d) norm += x * x;
        norm = Math.sqrt(norm);
        wk.forEach((x, j) => assert.ok(Math.abs(x - refW[k * n + j]!) <= n * eps * norm, `${at}: w[${j}] ${x} vs ${refW[k * n + j]}`));
        if (!vectors) return;
        const v = mat(n, n);
        for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) v.d[i + j * n] = aOut[k * stride + i + j * ld]!;
        assert.ok(eigenResidual(a, v, wk, eps) < LIMIT, `${at}: ||AV - VW|| ratio ${eigenResidual(a, v, wk, eps)}`);
        assert.ok(orthoResidual(v, eps) < LIMIT, `${at}: ||V^T V - I|| ratio ${orthoResidual(v, eps)}`);
      });
    }
    const svdCases = [
      { dtype: 'float64', m: 40, n: 33, global: false, threads: undefined, u: true, vt: true },
      { dtype: 'float64', m: 33, n: 64, global: true, threads: 64, u: true, vt: true },
      { dtype: 'float64', m: 64, n: 64, global: false, threads: 128, u: false, vt: true },
      { dtype: 'float32', m: 34, n: 40, global: false, threads: 256, u: true, vt: false },
      { dtype: 'float32', m: 64, n: 35, global: true, threads: 32, u: true, vt: true },
    ] as const;
    for (const c of svdCases) {
      const { dtype, m, n } = c;
      const eps = EPS[dtype];
      const k = Math.min(m, n);
      const p = planGesvdBlock({ dtype, m, n, wantU: c.u, wantVt: c.vt, kind: 'strided', sharedLimit: SHARED }, { force: { global: c.global, threads: c.threads } });
      const kinds = ['random', 'rank-deficient', 'zero', 'graded', 'repeated'] as const;
      const count = kinds.length + 1;
      const mats = Array.from({ length: count }, (_, i) => generalCase(rng, kinds[i % kinds.length]!, m, n).a)
        .map((a) => ({ ...a, d: a.d.map((x) => round(x, dtype)) }));
      mats[count - 1]!.d[5] = -Infinity;
      const stride = m * n;
      const flat = new Float64Array(count * stride);
      mats.forEach((a, i) => flat.set(a.d, i * stride));
      const out = runKernel(dir, gesvdBlockSource(p), true, `${count} ${count} ${p.threads} ${m} ${n} ${m} ${stride}\n${Array.from(flat).join(' ')}\n`, true, dtype);
      const { info, s, u, vt, refS, refInfo } = gesvdResults(out, flat, count, m, n);
      mats.forEach((a, i) => {
        const at = `gesvd block ${dtype} ${m}x${n} t=${p.threads} ${p.aShared ? 'shared' : 'global'} #${i}`;
        assert.equal(info[i], refInfo[i], `${at}: info`);
        const si = s.slice(i * k, (i + 1) * k);
        if (i === count - 1) {
          assert.equal(info[i], k + 2);
          assert.ok(si.every(Number.isNaN), `${at}: NaN s`);
          if (c.u) assert.ok(u.slice(i * m * k, (i + 1) * m * k).every(Number.isNaN), `${at}: NaN u`);
          return;
        }
        let norm = 0;
        for (const x of a.d) norm += x * x;
        norm = Math.sqrt(norm);
        si.forEach((x, j) => assert.ok(Math.abs(x - refS[i * k + j]!) <= Math.max(m, n) * eps * norm, `${at}: s[${j}] ${x} vs ${refS[i * k + j]}`));
        const ui = mat(m, k);
        ui.d.set(u.slice(i * m * k, (i + 1) * m * k));
        const vti = mat(k, n);
        vti.d.set(vt.slice(i * k * n, (i + 1) * k * n));
        if (c.u) assert.ok(orthoResidual(ui, eps) < LIMIT, `${at}: ||U^T U - I|| ratio ${orthoResidual(ui, eps)}`);
        if (c.vt) assert.ok(orthoResidual(vti, eps, true) < LIMIT, `${at}: ||VT VT^T - I|| ratio ${orthoResidual(vti, eps, true)}`);
        if (c.u && c.vt) assert.ok(svdResidual(a, ui, si, vti, eps) < LIMIT, `${at}: ||A - USVT|| ratio ${svdResidual(a, ui, si, vti, eps)}`);
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
