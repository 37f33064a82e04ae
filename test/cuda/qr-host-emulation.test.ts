/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the generated QR kernels themselves,
 * compiled as C++ for the host (test/helpers/qr-host-harness.cpp: a thread per CUDA thread, warp
 * intrinsics from a barrier per warp) and launched with the planner's shapes (and forced ones):
 * geqrf against the CPU reference (R, reflectors and tau of random matrices) and by residuals
 * (||A - QR||, ||Q^T Q - I|| over max(m, n) eps, < 30) on random, graded, rank-deficient and
 * zero-column matrices, NaN in one matrix of a batch, odd ld and stride with NaN padding that must
 * come back untouched; orgqr (k = n and k < n) against the reference's Q. Both dtypes, both
 * scopes. At float64's limits (test/helpers/qr-extremes.ts, the GPU suite's qr-extremes data): R of a
 * batch whose middle matrix is scaled by 2^700, 2^-700 and 2^-1030 (subnormal elements) against the
 * unscaled batch's, and gels's X from those factors, at the GPU suite's orders (5, 20, 48, 100: the
 * warp and block scopes), a blocked driver's first panel (130 x 32) and forced shapes. A check of the
 * CUDA source without a GPU; test/gpu/qr.test.ts is the real one.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import type { DType } from '../../src/core/dtype.js';
import { org2r } from '../../src/cpu/lapack/qr.js';
import { geqrfSharedSource, orgqrSharedSource, planQr, type QrForce, type QrPlan } from '../../src/cuda/kernels/qr/index.js';
import { QR_KINDS, qrCase, qrRatios, referenceQr, relativeGap } from '../helpers/qr-checks.js';
import { QR_EXTREME_COUNT, QR_EXTREME_NRHS, rFailures, SCALE_EXPONENTS, scaledQrBatch, solveFromFactors, xFailures } from '../helpers/qr-extremes.js';
import { Rng } from '../helpers/random.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';
const HARNESS = resolve('test/helpers/qr-host-harness.cpp');
const EPS: Record<DType, number> = { float64: 2 ** -52, float32: 2 ** -23 };
const LIMIT = 30;
const SHARED = 227 * 1024;

interface Run { info: number[]; a: number[]; t: number[] }

type Runner = (count: number, ldA: number, strideA: number, strideT: number, A: Float64Array, T: Float64Array) => Run;

/** Compiles the plan's kernel with the harness: a runner of it over a strided batch. */
function buildKernel(dir: string, plan: QrPlan): Runner {
  const p = plan.params;
  const src = p.op === 'geqrf' ? geqrfSharedSource(p) : orgqrSharedSource(p);
  writeFileSync(join(dir, 'kernel.cu'), src.source);
  const exe = join(dir, src.entry);
  execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DENTRY=${src.entry}`, ...(p.op === 'geqrf' ? ['-DGEQRF'] : []), `-I${dir}`, HARNESS, '-o', exe]);
  return (count, ldA, strideA, strideT, A, T) => {
    const input = `${count} ${Math.ceil(count / p.perBlock)} ${plan.blockThreads} ${plan.sharedBytes} ${ldA} ${strideA} ${strideT}\n${Array.from(A).join(' ')}\n${Array.from(T).join(' ')}\n`;
    const out = execFileSync(exe, { input, maxBuffer: 1 << 28 }).toString().trim().split('\n').map(Number);
    const ni = p.op === 'geqrf' ? count : 0;
    return { info: out.slice(0, ni), a: out.slice(ni, ni + count * strideA), t: out.slice(ni + count * strideA) };
  };
}

function runKernel(dir: string, plan: QrPlan, count: number, ldA: number, strideA: number, strideT: number, A: Float64Array, T: Float64Array): Run {
  return buildKernel(dir, plan)(count, ldA, strideA, strideT, A, T);
}

const CASES: [number, number, QrForce?][] = [
  [1, 1], [2, 2], [3, 3], [5, 3], [3, 5], [8, 8], [13, 7], [7, 13], [32, 32], [32, 3], [17, 32],
  [12, 9, { rowLanes: 1 }], [12, 9, { threads: 32, rowLanes: 32 }], [20, 12, { scope: 'block', threads: 64 }],
  [40, 40], [100, 10], [33, 50],
];

test('QR kernels on the host: reference factors, residuals, NaN isolation, padding', { skip, timeout: 3_600_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-qr-'));
  const rng = new Rng(18);
  try {
    for (const dtype of ['float64', 'float32'] as const) {
      const eps = EPS[dtype];
      for (const [m, n, force] of CASES) {
        const k = Math.min(m, n);
        const plan = planQr({ op: 'geqrf', dtype, m, n, k, kind: 'strided', sharedLimit: SHARED }, { force });
        const count = plan.params.scope === 'warp' ? Math.min(plan.params.perBlock + 1, 9) : 3;
        const mats = Array.from({ length: count }, (_, i) => qrCase(rng, QR_KINDS[i % QR_KINDS.length]!, m, n, dtype));
        const bad = count > 2 ? 1 : -1;
        if (bad >= 0) mats[bad]![m * n - 1] = NaN;
        const ldA = m + 1, strideA = ldA * n + 2, strideT = k + 1;
        const A = new Float64Array(count * strideA).fill(NaN);
        mats.forEach((x, q) => { for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) A[q * strideA + i + j * ldA] = x[i + j * m]!; });
        const T = new Float64Array(count * strideT).fill(NaN);
        const out = runKernel(dir, plan, count, ldA, strideA, strideT, A, T);
        const what = `geqrf ${dtype} ${m}x${n} ${JSON.stringify(plan.params)}`;
        assert.deepEqual(out.info, new Array(count).fill(0), `${what}: info`);
        for (let e = 0; e < A.length; e++) {
          const r = e % strideA;
          if (r >= ldA * n || r % ldA >= m) assert.ok(Number.isNaN(out.a[e]), `${what}: padding ${e} written`);
        }
        for (let q = 0; q < count; q++) assert.ok(Number.isNaN(out.t[q * strideT + k]), `${what}: tau padding written`);
        mats.forEach((x, q) => {
          const at = `${what} #${q} (${QR_KINDS[q % QR_KINDS.length]})`;
          const f = new Float64Array(m * n);
          for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) f[i + j * m] = out.a[q * strideA + i + j * ldA]!;
          const tau = out.t.slice(q * strideT, q * strideT + k);
          if (q === bad) {
            assert.ok(f.some(Number.isNaN), `${at}: NaN stays in its matrix`);
            return;
          }
          assert.ok(f.every(Number.isFinite) && tau.every(Number.isFinite), `${at}: finite`);
          const { residual, orthogonality } = qrRatios(x, f, tau, m, n, eps);
          assert.ok(residual < LIMIT && orthogonality < LIMIT, `${at}: ||A - QR|| ratio ${residual}, ||Q^T Q - I|| ratio ${orthogonality}`);
          if (q % QR_KINDS.length === 0) {
            const ref = referenceQr(x, m, n);
            let na = 0;
            for (const v of x) na += v * v;
            na = Math.sqrt(na);
            const rGap = relativeGap(f.filter((_, e) => e % m <= Math.floor(e / m)), ref.f.filter((_, e) => e % m <= Math.floor(e / m)), na, m, n, eps);
            const vGap = relativeGap([...f.filter((_, e) => e % m > Math.floor(e / m)), ...tau], [...ref.f.filter((_, e) => e % m > Math.floor(e / m)), ...ref.tau], 1, m, n, eps);
            assert.ok(rGap < LIMIT && vGap < LIMIT, `${at}: R gap ${rGap}, reflector gap ${vGap} (max(m, n) eps units)`);
          }
        });
        // orgqr on the reference's factors: k = n (thin Q) where m >= n, and k < n.
        if (m < n) continue;
        for (const kq of n > 1 ? [n, Math.floor(n / 2)] : [n]) {
          const op = planQr({ op: 'orgqr', dtype, m, n, k: kq, kind: 'strided', sharedLimit: SHARED }, { force });
          const oc = Math.min(count, 4);
          const refs = mats.slice(0, oc).map((x) => referenceQr(x.map((v) => (Number.isNaN(v) ? 0 : v)), m, n));
          const round = (v: number): number => (dtype === 'float32' ? Math.fround(v) : v);
          const stT = kq + 1;
          const A2 = new Float64Array(oc * strideA).fill(NaN);
          const T2 = new Float64Array(oc * stT).fill(NaN);
          refs.forEach((r, q) => {
            for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) A2[q * strideA + i + j * ldA] = round(r.f[i + j * m]!);
            for (let j = 0; j < kq; j++) T2[q * stT + j] = round(r.tau[j]!);
          });
          const o = runKernel(dir, op, oc, ldA, strideA, stT, A2, T2);
          refs.forEach((r, q) => {
            const at = `orgqr ${dtype} ${m}x${n} k=${kq} #${q}`;
            const mine = new Float64Array(m * n);
            const ref = new Float64Array(m * n);
            for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) { mine[i + j * m] = o.a[q * strideA + i + j * ldA]!; ref[i + j * m] = round(r.f[i + j * m]!); }
            org2r(ref, Float64Array.from(r.tau.slice(0, kq), round), m, n, kq);
            const gap = relativeGap(mine, ref, 1, m, n, eps);
            assert.ok(gap < LIMIT, `${at}: Q gap ${gap}`);
            let worst = 0;
            for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
              let s = 0;
              for (let p = 0; p < m; p++) s += mine[p + i * m]! * mine[p + j * m]!;
              worst = Math.max(worst, Math.abs(s - (i === j ? 1 : 0)));
            }
            assert.ok(worst / (m * eps) < LIMIT, `${at}: Q^T Q - I ${worst}`);
            for (let e = q * strideA; e < (q + 1) * strideA; e++) {
              const rr = e % strideA;
              if (rr >= ldA * n || rr % ldA >= m) assert.ok(Number.isNaN(o.a[e]), `${at}: padding ${e} written`);
            }
          });
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Shapes of the float64 extremes: the GPU suite's orders, a blocked driver's first panel, forced scopes. */
const EXTREMES: [number, number, QrForce?][] = [
  [5, 5], [20, 20], [48, 48], [100, 100], [130, 32], [7, 13], [12, 9, { rowLanes: 1 }], [20, 12, { scope: 'block', threads: 64 }],
];

test('QR kernels on the host at float64\'s limits: R scales with A (2^700, 2^-700, subnormal 2^-1030), and so does gels\'s X from its factors', { skip, timeout: 3_600_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-qr-extremes-'));
  try {
    const failures: string[] = [];
    for (const [m, n, force] of EXTREMES) {
      const k = Math.min(m, n), per = m * n, count = QR_EXTREME_COUNT;
      const plan = planQr({ op: 'geqrf', dtype: 'float64', m, n, k, kind: 'strided', sharedLimit: SHARED }, { force });
      const run = buildKernel(dir, plan);
      const label = `${m}x${n} ${JSON.stringify(plan.params)}`;
      const factor = (a: Float64Array): { f: number[]; tau: number[] } => {
        const out = run(count, m, per, k, a, new Float64Array(count * k).fill(NaN));
        assert.deepEqual(out.info, new Array(count).fill(0), `${label}: info`);
        return { f: out.a.slice(per, 2 * per), tau: out.t.slice(k, 2 * k) };
      };
      const base = factor(scaledQrBatch(false, m, n, 1).a);
      const bper = m * QR_EXTREME_NRHS;
      const x = (r: { f: number[]; tau: number[] }, b: Float64Array): Float64Array => solveFromFactors(m, n, QR_EXTREME_NRHS, r.f, r.tau, b.subarray(bper, 2 * bper));
      const baseX = m >= n ? x(base, scaledQrBatch(false, m, n, 1).b) : undefined;
      for (const e of SCALE_EXPONENTS) {
        const { a, b } = scaledQrBatch(false, m, n, 2 ** e);
        const got = factor(a);
        failures.push(...rFailures(label, e, false, m, n, base.f, got.f));
        if (baseX !== undefined) failures.push(...xFailures(label, e, baseX, x(got, b)));
      }
    }
    assert.deepEqual(failures, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
