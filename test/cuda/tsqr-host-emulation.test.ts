/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the generated TSQR kernels themselves,
 * compiled as C++ for the host (test/helpers/tsqr-host-harness.cpp, which runs them in
 * launch.ts's order) with the plans the planner gives and forced ones (several tiles per block,
 * odd thread counts of the Gram groups): both precisions, n from 1 to 32, m a multiple of no
 * tile, padded leading dimensions (NaN in the padding, which must come back bit-identical);
 * well-conditioned matrices (CholeskyQR2), cond 1e8 in float64 (the shifted CholeskyQR3 route,
 * orthogonality still at the eps level), a NaN matrix and a rank-deficient one among good ones
 * (info > 0, NaN Q and R there, the neighbours unharmed). A check of the CUDA source without a
 * GPU; the GPU suite (test/gpu/tsqr.test.ts) is the real one.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

import type { DType } from '../../src/core/dtype.js';
import {
  cholSharedBytes, generateChol, generateReduce, generateRows, planTsqr, rowsSharedBytes, shiftScale, unitRoundoff,
  type TsqrForce, type TsqrPlan,
} from '../../src/cuda/kernels/tsqr/index.js';
import { defaultTsqrTuning } from '../../src/cuda/model/tuning/tsqr-default.js';
import { Rng } from '../helpers/random.js';
import { gaussian, graded, qrRatios, withCondition } from '../helpers/tsqr-data.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';

const HARNESS = resolve('test/helpers/tsqr-host-harness.cpp');
const HELPERS = resolve('test/helpers');
const DYNAMIC = 'extern __shared__ __align__(16) unsigned char smemBytes[];';

interface Output { routes: number[]; info: number[]; r: Float64Array; q: Float64Array }

/** Compiles the plan's four kernels with the harness; returns a runner. */
function build(dir: string, plan: TsqrPlan): (m: number, count: number, ld: number, a: Float64Array) => Output {
  const sources = { gram: generateRows(plan.gram), store: generateRows(plan.store), chol: generateChol(plan.chol), reduce: generateReduce(plan.reduce) };
  for (const [file, src] of Object.entries(sources)) {
    assert.ok(src.source.includes(DYNAMIC), `${src.entry} declares its dynamic shared memory as the harness expects`);
    writeFileSync(join(dir, `${file}.cu`), src.source.replace(DYNAMIC, 'unsigned char* smemBytes = g_shared;'));
  }
  writeFileSync(join(dir, 'entries.h'), `#define GRAM kg::${sources.gram.entry}\n#define STORE ks::${sources.store.entry}\n#define CHOL kc::${sources.chol.entry}\n#define REDUCE kr::${sources.reduce.entry}\n`);
  const exe = join(dir, `h-${sources.gram.entry}-${sources.store.entry}`);
  execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-I${dir}`, `-I${HELPERS}`, HARNESS, '-o', exe]);
  const n = plan.chol.n;
  const u = unitRoundoff(plan.chol.dtype);
  return (m, count, ld, a) => {
    const head = [m, n, count, ld, ld * n, plan.gramBlocks, plan.gram.threads, rowsSharedBytes(plan.gram), plan.storeBlocks, plan.store.threads,
      rowsSharedBytes(plan.store), cholSharedBytes(plan.chol), plan.reduce.slices, plan.conditionLimit === Infinity ? 1e308 : plan.conditionLimit,
      defaultTsqrTuning.fallbackRatio / Math.sqrt(u), shiftScale(plan, m)];
    const input = `${head.join(' ')}\n${Array.from(a, (v) => (Number.isNaN(v) ? 'nan' : String(v))).join('\n')}\n`;
    const res = spawnSync(exe, { input, maxBuffer: 1 << 28 });
    if (res.status !== 0) throw new Error(`host harness failed (${res.status}): ${res.stderr.toString()}`);
    const v = res.stdout.toString().trim().split('\n').map((l) => (/nan/i.test(l) ? NaN : Number(l)));
    const routes = v.slice(0, count), info = v.slice(count, 2 * count);
    const r = Float64Array.from(v.slice(2 * count, 2 * count + count * n * n));
    const q = Float64Array.from(v.slice(2 * count + count * n * n));
    return { routes, info, r, q };
  };
}

type Kind = 'random' | 'graded' | 'cond1e8' | 'nan' | 'rank';
interface Case { dtype: DType; m: number; n: number; kinds: Kind[]; force?: TsqrForce; smCount?: number }

const round = (dtype: DType, x: number): number => (dtype === 'float32' ? Math.fround(x) : x);

const worst = { residual: 0, orthogonality: 0 };

function run(rng: Rng, dir: string, c: Case): void {
  const { dtype, m, n, kinds } = c;
  const count = kinds.length;
  // Two slices in the reduction: the emulation starts a host thread per CUDA thread.
  const plan = planTsqr({ dtype, m, n, count, smCount: c.smCount ?? 2 }, defaultTsqrTuning, { reduceSlices: 2, ...c.force });
  const exec = build(dir, plan);
  const ld = m + 3;
  const a = new Float64Array(count * ld * n).fill(NaN);
  kinds.forEach((kind, b) => {
    const src = kind === 'cond1e8' ? withCondition(rng, m, n, 1e8) : kind === 'graded' ? graded(rng, m, n, 3) : Float64Array.from({ length: m * n }, () => gaussian(rng));
    if (kind === 'nan') src[Math.floor(m / 2) + (n - 1) * m] = NaN;
    if (kind === 'rank' && n > 1) for (let i = 0; i < m; i++) src[i + (n - 1) * m] = src[i]!;   // two equal columns
    if (kind === 'rank' && n === 1) src.fill(0);
    for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) a[b * ld * n + i + j * ld] = round(dtype, src[i + j * m]!);
  });
  const out = exec(m, count, ld, a);
  const label = `${dtype} m=${m} n=${n} ${JSON.stringify(c.force ?? {})}`;
  kinds.forEach((kind, b) => {
    const base = b * ld * n;
    for (let j = 0; j < n; j++) for (let i = m; i < ld; i++) assert.ok(Number.isNaN(out.q[base + i + j * ld]!), `${label}: padding of matrix ${b} untouched`);
    if (kind === 'nan' || kind === 'rank') {
      assert.ok(out.info[b]! > 0, `${label}: ${kind} matrix ${b} reports info > 0 (got ${out.info[b]})`);
      for (let e = 0; e < n * n; e++) assert.ok(Number.isNaN(out.r[b * n * n + e]!), `${label}: R of failed matrix ${b} is NaN`);
      for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) assert.ok(Number.isNaN(out.q[base + i + j * ld]!), `${label}: Q of failed matrix ${b} is NaN`);
      return;
    }
    assert.equal(out.info[b], 0, `${label}: ${kind} matrix ${b} succeeds`);
    const expectedRoute = c.force?.route === 'shifted' || kind === 'cond1e8' ? 1 : 0;
    // Graded (cond about 1e3) in float32 passes 256 = fallbackRatio / sqrt(u): either route.
    if (!(kind === 'graded' && dtype === 'float32')) assert.equal(out.routes[b], expectedRoute, `${label}: ${kind} matrix ${b} takes route ${expectedRoute}`);
    const ratios = qrRatios(dtype, m, n, (i, j) => a[base + i + j * ld]!, (i, j) => out.q[base + i + j * ld]!, (i, j) => out.r[b * n * n + i + j * n]!);
    assert.ok(ratios.upper && ratios.positive, `${label}: R of matrix ${b} is upper triangular with a positive diagonal`);
    assert.ok(ratios.residual < 30, `${label}: ${kind} matrix ${b}: ||A - QR|| / (n eps ||A||) = ${ratios.residual}`);
    assert.ok(ratios.orthogonality < 30, `${label}: ${kind} matrix ${b}: ||Q^T Q - I|| / (n eps) = ${ratios.orthogonality}`);
    worst.residual = Math.max(worst.residual, ratios.residual);
    worst.orthogonality = Math.max(worst.orthogonality, ratios.orthogonality);
  });
}

const CASES: Case[] = [
  { dtype: 'float64', m: 700, n: 32, kinds: ['random', 'nan', 'random', 'rank'], force: { reduceSlices: 4 } },
  { dtype: 'float64', m: 1500, n: 32, kinds: ['cond1e8', 'random', 'graded'] },
  { dtype: 'float64', m: 333, n: 1, kinds: ['random', 'rank'] },
  { dtype: 'float64', m: 501, n: 5, kinds: ['random'], force: { threads: 32, gramBlocks: 3, storeBlocks: 2 } },
  { dtype: 'float64', m: 900, n: 17, kinds: ['random', 'random'], force: { route: 'shifted' } },
  { dtype: 'float32', m: 800, n: 32, kinds: ['random', 'nan'] },
  { dtype: 'float32', m: 611, n: 8, kinds: ['random', 'rank'], force: { tile: 1, threads: 96 } },
  { dtype: 'float32', m: 1000, n: 16, kinds: ['random'], force: { route: 'shifted' } },
  { dtype: 'float32', m: 1200, n: 12, kinds: ['graded', 'random'] },
];

test('tsqr kernels run on the host: Q R = A, Q orthonormal, routes and info as designed', { skip, timeout: 900_000 }, () => {
  const rng = new Rng(27);
  const dir = mkdtempSync(join(tmpdir(), 'myriad-tsqr-'));
  try {
    for (const c of CASES) run(rng, dir, c);
    console.log(`worst ratios: ${JSON.stringify(worst)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
