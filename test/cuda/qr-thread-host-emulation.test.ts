/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the per-thread QR kernels
 * (src/cuda/kernels/qr/generate-thread.ts) compiled as C++ for the host
 * (test/helpers/qr-thread-host-harness.cpp: a thread per CUDA thread, __syncthreads a barrier) and
 * launched with the planner's shapes: geqrf against the CPU reference (R, reflectors and tau; tau
 * exactly 0 at a zero column) and by residuals (||A - QR||, ||Q^T Q - I|| over max(m, n) eps,
 * < 30) on random, graded, rank-deficient, zero-column and ill-conditioned matrices with a NaN and an
 * Inf member among good ones (their non-finite entries where the reference has them, the others
 * unaffected); orgqr (k = n, k = n / 2, k = 0) against the reference's dorg2r on the same factors.
 * n = 1..8 square, m > n and m < n, both dtypes; densely packed strided batches (staged: the contiguous
 * span, 16-byte vectors in full blocks), ragged ld, stride and offsets (unstaged, and staged by force),
 * list batches (pointer form, an index map reversing info), a dense batch unstaged by force; counts that
 * leave the last block part empty. Padding (NaN) must come back untouched. geqrf's fast variant
 * (generate-thread-fast.ts) at n = 1..8 with m in {n, n + 1, 2n + 3} (up to 8) and wide shapes, dense
 * (aligned, and shifted by one element so the vector path is not taken), ragged and list batches, with
 * a NaN row, a tiny and a huge member (outside its unscaled range: the scaled dlarfg, beside members
 * in range) among the others. At float64's limits (test/helpers/qr-extremes.ts, the GPU suite's
 * qr-extremes data): R of a batch whose middle matrix is scaled by 2^700, 2^-700 and 2^-1030
 * (subnormal elements) against the unscaled batch's, and gels's X from those factors, both variants,
 * staged and unstaged. test/gpu/qr-thread.test.ts and test/gpu/geqrf-tiny.test.ts are the real
 * checks.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import type { DType } from '../../src/core/dtype.js';
import { org2r } from '../../src/cpu/lapack/qr.js';
import {
  geqrfThreadFastSource, geqrfThreadSource, orgqrThreadSource, planQrThread, type QrForce, type QrThreadPlan, type QrThreadVariant,
} from '../../src/cuda/kernels/qr/index.js';
import { QR_KINDS, qrCase, qrRatios, referenceQr, relativeGap } from '../helpers/qr-checks.js';
import { QR_EXTREME_COUNT, QR_EXTREME_NRHS, rFailures, SCALE_EXPONENTS, scaledQrBatch, solveFromFactors, xFailures } from '../helpers/qr-extremes.js';
import { Rng } from '../helpers/random.js';

const run = promisify(execFile);
const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';
const HARNESS = resolve('test/helpers/qr-thread-host-harness.cpp');
const EPS: Record<DType, number> = { float64: 2 ** -52, float32: 2 ** -23 };
const LIMIT = 30;

/**
 * How a case lays out its batch: densely packed (at the array's start, or shifted by one element off
 * the 16-byte vectors), ragged (ld, stride and offsets padded), or a list.
 */
type Layout = 'dense' | 'shifted' | 'ragged' | 'list';
interface Case {
  readonly dtype: DType; readonly m: number; readonly n: number; readonly layout: Layout; readonly force?: QrForce; readonly variant?: QrThreadVariant;
}

interface Geometry { ld: number; stride: number; offset: number; tStride: number; tOffset: number }
function geometry(layout: Layout, m: number, n: number, k: number): Geometry {
  if (layout === 'dense') return { ld: m, stride: m * n, offset: 0, tStride: k, tOffset: 0 };
  if (layout === 'shifted') return { ld: m, stride: m * n, offset: 1, tStride: k, tOffset: 1 };
  return { ld: m + 1, stride: (m + 1) * n + 3, offset: 5, tStride: k + 2, tOffset: 3 };
}

interface Out { info: number[]; a: number[]; t: number[] }

/** Runs `exe` with `input` on stdin, without blocking the other tasks: its stdout. */
function exec(exe: string, input: string): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(exe);
    const out: Buffer[] = [], err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', fail);
    child.on('close', (code) => (code === 0 ? done(Buffer.concat(out).toString()) : fail(new Error(`${exe}: exit ${code} ${Buffer.concat(err).toString()}`))));
    child.stdin.end(input);
  });
}
let launches = 0;

type Launcher = (count: number, g: Geometry, A: Float64Array, T: Float64Array) => Promise<Out>;

/** Compiles one kernel: a runner of it over a batch (A and tau arrays as the geometry lays them out). */
async function build(dir: string, plan: QrThreadPlan, layout: Layout): Promise<Launcher> {
  const p = plan.params;
  const src = p.op === 'orgqr' ? orgqrThreadSource(p) : p.variant === 'fast' ? geqrfThreadFastSource(p) : geqrfThreadSource(p);
  const sub = join(dir, `${src.entry}-${++launches}`);
  mkdirSync(sub, { recursive: true });
  writeFileSync(join(sub, 'kernel.cu'), src.source);
  const exe = join(sub, 'run');
  const flags = [...(p.op === 'geqrf' ? ['-DGEQRF'] : []), ...(layout === 'list' ? ['-DPOINTER'] : [])];
  await run('g++', ['-std=c++20', '-O1', '-pthread', `-DENTRY=${src.entry}`, ...flags, `-I${sub}`, HARNESS, '-o', exe]);
  const reversed = layout === 'list' ? 1 : 0;
  return async (count, g, A, T) => {
    const head = [count, Math.ceil(count / p.blockThreads), p.blockThreads, plan.sharedBytes, g.ld, g.stride, g.offset, g.tStride, g.tOffset, reversed];
    const input = `${head.join(' ')}\n${Array.from(A).join(' ')}\n${Array.from(T).join(' ')}\n`;
    const out = (await exec(exe, input)).trim().split('\n').map(Number);
    const ni = p.op === 'geqrf' ? count : 0;
    return { info: out.slice(0, ni), a: out.slice(ni, ni + A.length), t: out.slice(ni + A.length) };
  };
}

/** Compiles and runs one kernel over a batch (A and tau arrays as the geometry lays them out). */
async function launch(dir: string, plan: QrThreadPlan, layout: Layout, count: number, g: Geometry, A: Float64Array, T: Float64Array): Promise<Out> {
  return (await build(dir, plan, layout))(count, g, A, T);
}

/** Element (i, j) of matrix q, and whether array index e lies inside some matrix. */
const at = (g: Geometry, q: number, i: number, j: number): number => g.offset + q * g.stride + i + j * g.ld;
function insideA(g: Geometry, m: number, n: number, count: number, e: number): boolean {
  const x = e - g.offset;
  if (x < 0 || x >= count * g.stride) return false;
  const r = x % g.stride;
  return r < g.ld * n && r % g.ld < m;
}
const insideT = (g: Geometry, k: number, count: number, e: number): boolean => {
  const x = e - g.tOffset;
  return x >= 0 && x < count * g.tStride && x % g.tStride < k;
};

function assertPadding(what: string, out: number[], inside: (e: number) => boolean): void {
  for (let e = 0; e < out.length; e++) if (!inside(e)) assert.ok(Number.isNaN(out[e]), `${what}: padding ${e} written (${out[e]})`);
}

const dense = (l: Layout): boolean => l === 'dense' || l === 'shifted';
const plan = (c: Case, op: 'geqrf' | 'orgqr', k: number): QrThreadPlan => planQrThread(
  { op, dtype: c.dtype, m: c.m, n: c.n, k, kind: c.layout === 'list' ? 'pointer' : 'strided', denseA: dense(c.layout), denseT: dense(c.layout) },
  c.force, c.variant);

/** Scales the fast variant's unscaled range leaves out (2^+-500 float64, 2^+-60 float32): the scaled dlarfg runs. */
const OUT_OF_RANGE: Record<DType, number> = { float64: 500, float32: 60 };

async function geqrfCase(dir: string, rng: Rng, c: Case): Promise<void> {
  const { dtype, m, n, layout } = c;
  const k = Math.min(m, n);
  const eps = EPS[dtype];
  const p = plan(c, 'geqrf', k);
  // A partly empty last block; a NaN member and an Inf member among good ones.
  const count = p.params.blockThreads + 7;
  const mats = Array.from({ length: count }, (_, q) => qrCase(rng, QR_KINDS[q % QR_KINDS.length]!, m, n, dtype));
  const NAN = 3, INF = 8, NAN_ROW = 11, TINY = 14, HUGE = 17;
  mats[NAN]![m * n - 1] = NaN;
  mats[INF]![0] = -Infinity;
  // A NaN row (its last row), and members scaled out of the fast variant's unscaled range (exact powers of two).
  for (let j = 0; j < n; j++) mats[NAN_ROW]![m - 1 + j * m] = NaN;
  const e2 = OUT_OF_RANGE[dtype];
  mats[TINY] = mats[TINY]!.map((v) => v * 2 ** -e2);
  mats[HUGE] = mats[HUGE]!.map((v) => v * 2 ** e2);
  const scaleOf = (q: number): number => (q === TINY ? 2 ** e2 : q === HUGE ? 2 ** -e2 : 1);
  const g = geometry(layout, m, n, k);
  const A = new Float64Array(g.offset + count * g.stride).fill(NaN);
  mats.forEach((x, q) => { for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) A[at(g, q, i, j)] = x[i + j * m]!; });
  const T = new Float64Array(g.tOffset + count * g.tStride).fill(NaN);
  const out = await launch(dir, p, layout, count, g, A, T);
  const what = `geqrf ${dtype} ${m}x${n} ${layout} ${JSON.stringify(p.params)}`;
  assert.deepEqual(out.info, new Array(count).fill(0), `${what}: info`);
  assertPadding(`${what} A`, out.a, (e) => insideA(g, m, n, count, e));
  assertPadding(`${what} tau`, out.t, (e) => insideT(g, k, count, e));
  mats.forEach((x, q) => {
    const where = `${what} #${q} (${QR_KINDS[q % QR_KINDS.length]})`;
    const f = new Float64Array(m * n);
    for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) f[i + j * m] = out.a[at(g, q, i, j)]!;
    const tau = Array.from({ length: k }, (_, j) => out.t[g.tOffset + q * g.tStride + j]!);
    const ref = referenceQr(x, m, n);
    if (q === NAN || q === INF || q === NAN_ROW) {
      // Non-finite entries where the reference has them (NaN and Inf pass through as in dgeqr2).
      const mine = [...f, ...tau].map(Number.isFinite), theirs = [...ref.f, ...ref.tau].map(Number.isFinite);
      assert.deepEqual(mine, theirs, `${where}: the reference's non-finite entries`);
      assert.ok(mine.some((v) => !v) || m * n === 1, `${where}: the bad value stays`);
      return;
    }
    assert.ok(f.every(Number.isFinite) && tau.every(Number.isFinite), `${where}: finite`);
    const c = scaleOf(q);
    if (c !== 1) {
      // QR of c A is (Q, c R) with the same reflectors and tau: checked at the ordinary scale (no squares underflow there).
      const up = (a: ArrayLike<number>): Float64Array => Float64Array.from(a, (v, e) => (e % m <= Math.floor(e / m) ? v * c : v));
      const { residual, orthogonality } = qrRatios(x.map((v) => v * c), up(f), tau, m, n, eps);
      assert.ok(residual < LIMIT && orthogonality < LIMIT, `${where}: scaled by ${1 / c}: ||A - QR|| ratio ${residual}, ||Q^T Q - I|| ratio ${orthogonality}`);
      return;
    }
    // A zero column stays zero under the reflectors before it: tau exactly 0 there, as the reference's.
    const zero = Math.floor(n / 2);
    if (QR_KINDS[q % QR_KINDS.length] === 'zero-column' && zero < k) {
      assert.equal(ref.tau[zero], 0);
      assert.equal(tau[zero], 0, `${where}: tau ${zero} of the zero column`);
    }
    const { residual, orthogonality } = qrRatios(x, f, tau, m, n, eps);
    assert.ok(residual < LIMIT && orthogonality < LIMIT, `${where}: ||A - QR|| ratio ${residual}, ||Q^T Q - I|| ratio ${orthogonality}`);
    if (q % QR_KINDS.length === 0) {
      let na = 0;
      for (const v of x) na += v * v;
      na = Math.sqrt(na);
      const up = (a: ArrayLike<number>): number[] => Array.from(a).filter((_, e) => e % m <= Math.floor(e / m));
      const low = (a: ArrayLike<number>): number[] => Array.from(a).filter((_, e) => e % m > Math.floor(e / m));
      const rGap = relativeGap(up(f), up(ref.f), na, m, n, eps);
      const vGap = relativeGap([...low(f), ...tau], [...low(ref.f), ...ref.tau], 1, m, n, eps);
      assert.ok(rGap < LIMIT && vGap < LIMIT, `${where}: R gap ${rGap}, reflector gap ${vGap} (max(m, n) eps units)`);
    }
  });
}

async function orgqrCase(dir: string, rng: Rng, c: Case, kq: number): Promise<void> {
  const { dtype, m, n, layout } = c;
  const eps = EPS[dtype];
  const p = plan(c, 'orgqr', kq);
  const count = p.params.blockThreads + 3;
  const round = (v: number): number => (dtype === 'float32' ? Math.fround(v) : v);
  const refs = Array.from({ length: count }, (_, q) => referenceQr(qrCase(rng, QR_KINDS[q % QR_KINDS.length]!, m, n, dtype), m, n));
  const NAN = 2;
  const g = geometry(layout, m, n, kq);
  const A = new Float64Array(g.offset + count * g.stride).fill(NaN);
  const T = new Float64Array(g.tOffset + count * g.tStride).fill(NaN);
  refs.forEach((r, q) => {
    for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) A[at(g, q, i, j)] = round(r.f[i + j * m]!);
    for (let j = 0; j < kq; j++) T[g.tOffset + q * g.tStride + j] = round(r.tau[j]!);
  });
  if (kq > 0) T[g.tOffset + NAN * g.tStride] = NaN;
  const out = await launch(dir, p, layout, count, g, A, T);
  const what = `orgqr ${dtype} ${m}x${n} k=${kq} ${layout} ${JSON.stringify(p.params)}`;
  assertPadding(`${what} A`, out.a, (e) => insideA(g, m, n, count, e));
  for (let e = 0; e < T.length; e++) assert.ok(Object.is(out.t[e], T[e]) || (Number.isNaN(out.t[e]) && Number.isNaN(T[e])), `${what}: tau ${e} changed`);
  refs.forEach((r, q) => {
    const where = `${what} #${q}`;
    const mine = new Float64Array(m * n);
    for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) mine[i + j * m] = out.a[at(g, q, i, j)]!;
    if (q === NAN && kq > 0) {
      assert.ok(mine.some(Number.isNaN), `${where}: a NaN tau reaches Q`);
      return;
    }
    const ref = new Float64Array(m * n);
    for (let e = 0; e < m * n; e++) ref[e] = round(r.f[e]!);
    org2r(ref, Float64Array.from(r.tau.slice(0, kq), round), m, n, kq);
    const gap = relativeGap(mine, ref, 1, m, n, eps);
    assert.ok(gap < LIMIT, `${where}: Q gap ${gap}`);
    let worst = 0;
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
      let s = 0;
      for (let p2 = 0; p2 < m; p2++) s += mine[p2 + i * m]! * mine[p2 + j * m]!;
      worst = Math.max(worst, Math.abs(s - (i === j ? 1 : 0)));
    }
    assert.ok(worst / (Math.max(m, n) * eps) < LIMIT, `${where}: Q^T Q - I ${worst}`);
  });
}

const SQUARE = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => [n, n] as const);
const RECT = [[8, 3], [5, 2], [7, 1], [6, 4], [3, 8], [2, 5], [1, 6], [4, 7]] as const;
const FEW = [[1, 1], [3, 3], [8, 8], [7, 3], [3, 7], [5, 5]] as const;

function cases(): Case[] {
  const out: Case[] = [];
  for (const dtype of ['float64', 'float32'] as const) {
    for (const [m, n] of [...SQUARE, ...RECT]) out.push({ dtype, m, n, layout: 'dense' });
    for (const [m, n] of FEW) {
      out.push({ dtype, m, n, layout: 'ragged' }, { dtype, m, n, layout: 'list' });
      out.push({ dtype, m, n, layout: 'ragged', force: { stage: true } }, { dtype, m, n, layout: 'dense', force: { stage: false } });
    }
    // Other block sizes: staged 64 and unstaged 32.
    out.push({ dtype, m: 6, n: 6, layout: 'dense', force: { blockThreads: 64 } }, { dtype, m: 4, n: 3, layout: 'list', force: { blockThreads: 32 } });
  }
  return out;
}

/** geqrf's fast variant: n = 1..8, m in {n, n + 1, 2n + 3} up to 8 and wide shapes, every layout, both dtypes. */
function fastCases(): Case[] {
  const shapes: [number, number][] = [];
  for (let n = 1; n <= 8; n++) for (const m of new Set([n, n + 1, 2 * n + 3])) if (m <= 8) shapes.push([m, n]);
  shapes.push([3, 8], [2, 5], [1, 6], [4, 7]);
  const out: Case[] = [];
  for (const dtype of ['float64', 'float32'] as const) {
    for (const [m, n] of shapes) for (const layout of ['dense', 'shifted', 'ragged', 'list'] as const) out.push({ dtype, m, n, layout, variant: 'fast' });
    out.push({ dtype, m: 8, n: 8, layout: 'dense', variant: 'fast', force: { blockThreads: 32 } });
  }
  return out;
}

/** Runs the tasks `width` at a time. */
async function pool(tasks: (() => Promise<void>)[], width: number): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => { while (next < tasks.length) await tasks[next++]!(); }));
}

test('per-thread QR kernels on the host: reference factors, residuals, NaN and Inf members, layouts, padding', { skip, timeout: 3_600_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-qr-thread-'));
  try {
    const tasks: (() => Promise<void>)[] = [];
    cases().forEach((c, i) => {
      tasks.push(() => geqrfCase(dir, new Rng(2600 + i), c));
      if (c.m >= c.n) for (const kq of new Set([c.n, Math.floor(c.n / 2), 0])) tasks.push(() => orgqrCase(dir, new Rng(3600 + i * 8 + kq), c, kq));
    });
    fastCases().forEach((c, i) => tasks.push(() => geqrfCase(dir, new Rng(5600 + i), c)));
    await pool(tasks, Math.max(2, cpus().length));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * The factors (A over them, and tau) of the QR_EXTREME_COUNT matrices of `a` (m x n each, densely
 * packed) by the per-thread kernel `kernel` of case `c`.
 */
async function factorBatch(kernel: Launcher, c: Case, a: Float64Array): Promise<{ f: number[]; tau: number[] }> {
  const k = Math.min(c.m, c.n);
  const g = geometry(c.layout, c.m, c.n, k);
  const count = QR_EXTREME_COUNT;
  const A = new Float64Array(g.offset + count * g.stride).fill(NaN);
  for (let q = 0; q < count; q++) for (let j = 0; j < c.n; j++) for (let i = 0; i < c.m; i++) A[at(g, q, i, j)] = a[q * c.m * c.n + i + j * c.m]!;
  const T = new Float64Array(g.tOffset + count * g.tStride).fill(NaN);
  const out = await kernel(count, g, A, T);
  assert.deepEqual(out.info, new Array(count).fill(0), `${JSON.stringify(c)}: info`);
  const f: number[] = [], tau: number[] = [];
  for (let q = 0; q < count; q++) {
    for (let j = 0; j < c.n; j++) for (let i = 0; i < c.m; i++) f.push(out.a[at(g, q, i, j)]!);
    for (let j = 0; j < k; j++) tau.push(out.t[g.tOffset + q * g.tStride + j]!);
  }
  return { f, tau };
}

test('per-thread geqrf on the host at float64\'s limits: R scales with A (2^700, 2^-700, subnormal 2^-1030), and so does gels\'s X from its factors', { skip, timeout: 1_800_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-qr-thread-extremes-'));
  try {
    const shapes: [number, number][] = [[2, 2], [3, 3], [5, 5], [8, 8], [8, 3], [3, 8]];
    const designs: Pick<Case, 'layout' | 'variant'>[] = [{ layout: 'dense', variant: 'fast' }, { layout: 'dense', variant: 'classic' }, { layout: 'ragged', variant: 'classic' }];
    const tasks: (() => Promise<string[]>)[] = [];
    for (const [m, n] of shapes) for (const d of designs) {
      tasks.push(async () => {
        const c: Case = { dtype: 'float64', m, n, ...d };
        const kernel = await build(dir, plan(c, 'geqrf', Math.min(m, n)), c.layout);
        const k = Math.min(m, n), per = m * n, label = `${d.variant} ${d.layout} ${m}x${n}`;
        const mid = (x: number[], size: number): number[] => x.slice(size, 2 * size);
        const batch = (e: number): ReturnType<typeof scaledQrBatch> => scaledQrBatch(false, m, n, 2 ** e);
        const base = await factorBatch(kernel, c, batch(0).a);
        const baseB = batch(0).b;
        const failures: string[] = [];
        for (const e of SCALE_EXPONENTS) {
          const { a, b } = batch(e);
          const got = await factorBatch(kernel, c, a);
          failures.push(...rFailures(label, e, false, m, n, mid(base.f, per), mid(got.f, per)));
          if (m < n) continue;
          const bper = m * QR_EXTREME_NRHS;
          const x = (r: { f: number[]; tau: number[] }, rhs: Float64Array): Float64Array =>
            solveFromFactors(m, n, QR_EXTREME_NRHS, mid(r.f, per), mid(r.tau, k), rhs.subarray(bper, 2 * bper));
          failures.push(...xFailures(label, e, x(base, baseB), x(got, b)));
        }
        return failures;
      });
    }
    const failures: string[] = [];
    await pool(tasks.map((t) => async () => { failures.push(...await t()); }), Math.max(2, cpus().length));
    assert.deepEqual(failures, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
