/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the tridiagonal syev's inverse-iteration
 * design (generate-syev.ts stages 'reduce', 'load' and 'store', generate-panel.ts's panels with their
 * trailing updates and V := Q V by the reflectors done in C++ between the launches, generate-stein.ts's
 * values and vectors kernels) compiled for the host (test/helpers/tridiag-stein-host-harness.cpp)
 * and checked as the one-kernel design's host test checks it: info, eigenvalues within n eps ||A|| of
 * the CPU reference, residuals ||A V - V W|| / (n eps ||A||) and ||V^T V - I|| / (n eps) < 30, on
 * random, clustered, repeated, diagonal, zero, graded and rank-deficient matrices, random ones scaled
 * by 2^600 and 2^-600 (float32 2^100, 2^-100: the load's power-of-two scaling), a matrix with a
 * tight cluster of eigenvalues (the vectors of a cluster computed a thread each and orthogonalised by the
 * clusters kernel; with the serial cluster size forced to 8, small clusters on one thread), NaN among good ones,
 * both dtypes and triangles, fewer threads than rows, odd ld and stride with padding left untouched;
 * values only (A untouched); and the iteration limit (one inverse iteration: info n + 1 where the
 * vectors did not converge).
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
  planSyevStein, steinParts, steinSlice, syevTridiagSource, tridiagPanelSource, tridiagSteinSource, type SyevSteinPlan, type TridiagForce,
} from '../../src/cuda/kernels/tridiag/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { eigenResidual, frob, mat, orthoResidual, symmetricCase, type Mat, type SymKind } from '../helpers/jacobi-checks.js';
import { Rng } from '../helpers/random.js';
import { clustersKernelDefines } from '../helpers/stein-clusters.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';
const HARNESS = resolve('test/helpers/tridiag-stein-host-harness.cpp');
const EPS: Record<DType, number> = { float64: 2 ** -52, float32: 2 ** -23 };
const LIMIT = 30;
const SHARED = 227 * 1024 - 1024;
/** 'cluster': a tight cluster (clusterCase); 'huge', 'tiny': random matrices scaled by 2^600 and 2^-600 (float32 2^100, 2^-100). */
type Kind = SymKind | 'cluster' | 'huge' | 'tiny';
const ALL: readonly Kind[] = ['random', 'clustered', 'repeated', 'diagonal', 'zero', 'graded', 'rank-deficient', 'cluster', 'huge', 'tiny'];

interface Case {
  readonly dtype: DType;
  readonly n: number;
  readonly uplo: Uplo;
  readonly force: TridiagForce;
  readonly kinds: readonly Kind[];
  /** Values only (default: vectors). */
  readonly values?: boolean;
}

function build(dir: string, p: SyevSteinPlan): string {
  const files: [string, { source: string; entry: string }][] = [
    ['reduce.cu', syevTridiagSource(p.reduce)], ['values.cu', tridiagSteinSource(p.values)],
    ['store.cu', syevTridiagSource(p.store)]];
  if (p.vectors !== undefined) files.push(['vectors.cu', tridiagSteinSource(p.vectors)]);
  if (p.panel !== undefined) files.push(['panel.cu', tridiagPanelSource(p.panel)]);
  for (const [f, s] of files) writeFileSync(join(dir, f), s.source);
  const entry = (f: string): string | undefined => files.find(([name]) => name === f)?.[1].entry;
  const [r, w, s, v, pn] = ['reduce.cu', 'values.cu', 'store.cu', 'vectors.cu', 'panel.cu'].map(entry);
  const exe = join(dir, `stein-${w}-${p.reduce.dtype}-${p.reduce.uplo}${v === undefined ? '-values' : ''}${pn === undefined ? '' : '-panel'}`);
  const io = p.reduce.dtype === 'float32' ? ['-DIO=float'] : [];
  const clusters = clustersKernelDefines(dir, p.clusters);
  execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DREDUCE=${r}`, `-DVALUES=${w}`, ...(v === undefined ? [] : [`-DVECTORS=${v}`]), ...clusters, `-DSTORE=${s}`, ...(pn === undefined ? [] : [`-DPANEL=${pn}`]), ...io, `-I${dir}`, HARNESS, '-o', exe]);
  return exe;
}

/**
 * A symmetric matrix Q diag(w) Q^T whose eigenvalues hold a cluster of n / 4 within 1e-9 of each other
 * (inside dstein's 1e-3 ||T|| test: one thread computes them in turn, orthogonalising).
 */
function clusterCase(rng: Rng, n: number): Mat {
  const w = Array.from({ length: n }, (_, i) => (i < n / 4 ? 1 + 1e-9 * i : rng.uniform(-2, 2)));
  const q = mat(n, n);
  for (let e = 0; e < n * n; e++) q.d[e] = rng.uniform(-1, 1);
  // Gram-Schmidt for an orthogonal Q.
  for (let j = 0; j < n; j++) {
    for (let k = 0; k < j; k++) {
      let dot = 0;
      for (let i = 0; i < n; i++) dot += q.d[i + j * n]! * q.d[i + k * n]!;
      for (let i = 0; i < n; i++) q.d[i + j * n]! -= dot * q.d[i + k * n]!;
    }
    let s = 0;
    for (let i = 0; i < n; i++) s += q.d[i + j * n]! ** 2;
    for (let i = 0; i < n; i++) q.d[i + j * n]! /= Math.sqrt(s);
  }
  const a = mat(n, n);
  for (let j = 0; j < n; j++) for (let i = 0; i <= j; i++) {
    let s = 0;
    for (let k = 0; k < n; k++) s += q.d[i + k * n]! * w[k]! * q.d[j + k * n]!;
    a.d[i + j * n] = s; a.d[j + i * n] = s;
  }
  return a;
}

function check(dir: string, rng: Rng, c: Case): void {
  const { dtype, n, uplo } = c;
  const eps = EPS[dtype];
  const tuning = tuningFor('sm_90', 'tridiag');
  const vectors = c.values !== true;
  const plan = planSyevStein({ dtype, n, uplo, vectors, kind: 'strided', sharedLimit: SHARED }, tuning, { force: c.force });
  const exe = build(dir, plan);
  const count = c.kinds.length + 1;
  const mats: Mat[] = Array.from({ length: count }, (_, i) => {
    const kind = c.kinds[i % c.kinds.length]!;
    if (kind === 'cluster') return clusterCase(rng, n);
    return symmetricCase(rng, kind === 'huge' || kind === 'tiny' ? 'random' : kind, n).a;
  }).map((a) => ({ ...a, d: a.d.map((x) => (dtype === 'float32' ? Math.fround(x) : x)) }));
  // The power of two each matrix is given at (exact); the checks below run on the matrices as made.
  const scales = Array.from({ length: count }, (_, i) => {
    const kind = c.kinds[i % c.kinds.length]!;
    return kind === 'huge' || kind === 'tiny' ? (dtype === 'float32' ? 100 : 600) * (kind === 'huge' ? 1 : -1) : 0;
  });
  const ld = n + 3;
  const stride = ld * n + 2;
  const flat = new Float64Array(count * stride).fill(NaN);
  mats.forEach((a, k) => {
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++)
      if (uplo === 'lower' ? i >= j : i <= j) flat[k * stride + i + j * ld] = a.d[i + j * n]! * 2 ** scales[k]!;
  });
  const bad = count - 1;
  flat[bad * stride + Math.min(2, n - 1) * (ld + 1)] = NaN;
  const l = steinSlice(n);
  const input = `${count} ${plan.reduce.threads} ${n} ${ld} ${stride} ${plan.values.threads} ${steinParts(plan.values)}\n${Array.from(flat).join(' ')}\n`;
  const nums = execFileSync(exe, [String(l.tau), String(l.v), String(l.wb)], { input, maxBuffer: 1 << 30 }).toString().trim().split('\n').map(Number);
  const info = nums.slice(0, count), w = nums.slice(count, count + count * n), out = nums.slice(count + count * n);
  const what = `stein ${dtype} n=${n} ${uplo} t=${plan.reduce.threads}/${plan.values.threads}x${steinParts(plan.values)}${vectors ? '' : ' values'}${plan.panel === undefined ? '' : ` panels of ${plan.panel.nb}`}${c.force.steinMaxits === undefined ? '' : ` maxits=${c.force.steinMaxits}`}`;

  const refW = new Float64Array(count * n);
  const refInfo = new Int32Array(count);
  const dense = new Float64Array(count * n * n);
  mats.forEach((a, k) => dense.set(a.d, k * n * n));
  cpuSyev({ jobz: 'values', uplo, a: strided(dense, { rows: n, count }), w: strided(refW, { rows: n, cols: 1, count }), info: refInfo });
  mats.forEach((a, k) => {
    const at = `${what} #${k} (${k === bad ? 'NaN' : c.kinds[k % c.kinds.length]})`;
    const wk = w.slice(k * n, (k + 1) * n).map((x) => x * 2 ** -scales[k]!);
    if (k === bad) {
      assert.equal(info[k], n + 2, `${at}: info`);
      assert.ok(wk.every(Number.isNaN), `${at}: NaN w`);
      if (!vectors) return;
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) assert.ok(Number.isNaN(out[k * stride + i + j * ld]!), `${at}: NaN vectors`);
      return;
    }
    if (c.force.steinMaxits !== undefined) { assert.ok(info[k] === 0 || info[k] === n + 1, `${at}: info ${info[k]}`); return; }
    assert.equal(info[k], 0, `${at}: info`);
    const norm = frob(a);
    assert.equal(refInfo[k], 0);
    wk.forEach((x, j) => assert.ok(Math.abs(x - refW[k * n + j]!) <= n * eps * norm, `${at}: w[${j}] ${x} vs ${refW[k * n + j]}`));
    for (let j = 1; j < n; j++) assert.ok(wk[j - 1]! <= wk[j]!, `${at}: ascending`);
    if (!vectors) {
      for (let e = 0; e < stride; e++) assert.ok(Object.is(out[k * stride + e], flat[k * stride + e]), `${at}: A untouched`);
      return;
    }
    const v = mat(n, n);
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) v.d[i + j * n] = out[k * stride + i + j * ld]!;
    const r1 = eigenResidual(a, v, wk, eps), r2 = orthoResidual(v, eps);
    assert.ok(r1 < LIMIT, `${at}: ||AV - VW|| ratio ${r1}`);
    assert.ok(r2 < LIMIT, `${at}: ||V^T V - I|| ratio ${r2}`);
    if (k < 2) console.log(`${at}: residual ${r1.toFixed(3)}, orthogonality ${r2.toFixed(3)}`);
  });
  // The padding between columns and matrices: untouched.
  for (let e = 0; e < count * stride; e++) {
    const r = e % stride;
    if (r >= ld * n || r % ld >= n) assert.ok(Number.isNaN(out[e]!), `${what}: padding ${e}`);
  }
  if (c.force.steinMaxits !== undefined) assert.ok(info.slice(0, bad).some((x) => x === n + 1), `${what}: one iteration leaves some vector unconverged`);
}

test('inverse-iteration tridiagonal syev on the host: every kind, a tight cluster, NaN, both dtypes, the iteration limit', { skip, timeout: 3_600_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-tridiag-stein-'));
  const rng = new Rng(1731);
  try {
    const cases: Case[] = [
      { dtype: 'float64', n: 33, uplo: 'lower', force: {}, kinds: ALL },
      { dtype: 'float64', n: 40, uplo: 'upper', force: {}, kinds: ALL },
      { dtype: 'float32', n: 47, uplo: 'upper', force: {}, kinds: ALL },
      { dtype: 'float64', n: 64, uplo: 'lower', force: { threads: 32 }, kinds: ['random', 'graded', 'cluster', 'repeated', 'tight'] },
      // Clusters of up to 8 vectors on one thread in turn (the vectors kernel's serial path), larger ones orthogonalised by the clusters kernel.
      { dtype: 'float64', n: 48, uplo: 'upper', force: { steinSerialCluster: 8 }, kinds: ['random', 'clustered', 'cluster', 'repeated', 'tight'] },
      // The clusters kernel on more threads than rows.
      { dtype: 'float32', n: 64, uplo: 'upper', force: { steinClusterThreads: 128 }, kinds: ['tight', 'clustered', 'repeated'] },
      { dtype: 'float32', n: 100, uplo: 'lower', force: {}, kinds: ['random', 'clustered', 'cluster'] },
      { dtype: 'float64', n: 130, uplo: 'upper', force: { steinPanel: false }, kinds: ['random', 'cluster', 'diagonal'] },
      // The blocked reduction (panels of 32 and their updates): a partial last panel, one panel, fewer threads than rows.
      { dtype: 'float64', n: 33, uplo: 'upper', force: { steinPanel: true }, kinds: ALL },
      { dtype: 'float32', n: 70, uplo: 'lower', force: { steinPanel: true }, kinds: ALL },
      { dtype: 'float64', n: 97, uplo: 'lower', force: { steinPanel: true, threads: 32 }, kinds: ['random', 'graded', 'cluster', 'rank-deficient'] },
      { dtype: 'float64', n: 3, uplo: 'lower', force: { steinPanel: true }, kinds: ['random', 'zero'] },
      { dtype: 'float64', n: 1, uplo: 'upper', force: { steinPanel: true }, kinds: ['random'] },
      // Values only: the panels and the values kernel (A never written).
      { dtype: 'float64', n: 70, uplo: 'upper', force: { steinPanel: true }, kinds: ALL, values: true },
      { dtype: 'float32', n: 40, uplo: 'lower', force: { steinPanel: false }, kinds: ['random', 'zero', 'graded'], values: true },
      { dtype: 'float64', n: 1, uplo: 'lower', force: {}, kinds: ['random', 'zero'] },
      { dtype: 'float64', n: 2, uplo: 'upper', force: {}, kinds: ['random', 'diagonal', 'zero'] },
      { dtype: 'float64', n: 5, uplo: 'lower', force: {}, kinds: ['random', 'diagonal', 'repeated', 'cluster'] },
      { dtype: 'float64', n: 36, uplo: 'lower', force: { steinMaxits: 1 }, kinds: ['random', 'random'] },
    ];
    // Larger clusters (MYRIAD_STEIN_LARGE=1, slow): the bench's diagonally dominant kind (most of the spectrum one
    // cluster from about 200), nearly degenerate ones ('clustered', 'repeated': vectors computed again serially).
    if (process.env['MYRIAD_STEIN_LARGE'] === '1') cases.push({ dtype: 'float64', n: 200, uplo: 'upper', force: { threads: 64 }, kinds: ['random', 'cluster', 'graded', 'dominant', 'clustered', 'repeated', 'tight'] });
    for (const c of cases) check(dir, rng, c);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
