/**
 * The poti family (and the trtri leaf's arithmetic) without a GPU: the fused generator pure (every
 * parameter changes the source or the name), the planner's choices, the fused kernel and the trtri
 * leaf emulated on the CPU line for line as the generated code computes them (phases between
 * barriers, one column per thread) against the CPU reference, including the failing matrices
 * (potrf's partial state, singular triangles untouched); where nvcc is installed, representative
 * kernels compile for sm_90 without spills.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { DTYPE_EPS } from '../../src/core/dtype.js';
import type { Diag, Uplo } from '../../src/core/enums.js';
import { strided } from '../../src/core/batch.js';
import { cpuPoti, cpuPotri, cpuTrtri } from '../../src/cpu/lapack/index.js';
import { planPoti, potiFusedSource, type PotiStage } from '../../src/cuda/kernels/poti/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { NVCC_SKIP, compileFailures, compileForSm90, compileSet } from '../helpers/nvcc.js';
import { Rng, randomSpd } from '../helpers/random.js';
import { fillTriangle } from '../helpers/trsm-data.js';

const tuning = tuningFor('sm_90', 'trtri');
const LIMIT = 227 * 1024 - 1024;

test('poti generator is pure and every parameter changes the kernel', () => {
  const base = { dtype: 'float64', uplo: 'lower', kind: 'strided', nb: 32, stage: 'poti' } as const;
  assert.equal(potiFusedSource(base).source, potiFusedSource({ ...base }).source);
  const variants: KernelSource[] = [
    potiFusedSource(base), potiFusedSource({ ...base, dtype: 'float32' }), potiFusedSource({ ...base, uplo: 'upper' }),
    potiFusedSource({ ...base, kind: 'pointer' }), potiFusedSource({ ...base, nb: 8 }), potiFusedSource({ ...base, stage: 'potri' }),
  ];
  assert.equal(new Set(variants.map((v) => v.entry)).size, variants.length, 'entry names are distinct');
  assert.equal(new Set(variants.map((v) => v.source)).size, variants.length, 'sources are distinct');
  for (const v of variants) assert.match(v.source, new RegExp(`__global__ void __launch_bounds__\\([^)]*\\) ${v.entry}\\(`));
  assert.throws(() => potiFusedSource({ ...base, nb: 12 }), /not one of/);
});

test('poti plan: fused up to fusedMax, several matrices per block; composed above', () => {
  for (const dtype of ['float64', 'float32'] as const) {
    for (const [n, count] of [[1, 1000], [3, 7], [17, 1000], [32, 5]] as const) {
      const p = planPoti({ dtype, uplo: 'lower', stage: 'poti', n, count, kind: 'strided', sharedLimit: LIMIT }, tuning);
      assert.equal(p.variant, 'fused');
      if (p.variant !== 'fused') continue;
      assert.ok(p.params.nb >= n && p.params.nb < 2 * Math.max(n, 1) && p.matrices >= 1 && p.matrices <= count && p.matrices * p.params.nb <= 256);
      assert.ok(p.sharedBytes <= LIMIT);
    }
    assert.equal(planPoti({ dtype, uplo: 'upper', stage: 'potri', n: 33, count: 5, kind: 'pointer', sharedLimit: LIMIT }, tuning).variant, 'composed');
  }
  assert.equal(planPoti({ dtype: 'float64', uplo: 'upper', stage: 'poti', n: 9, count: 5, kind: 'strided', sharedLimit: LIMIT }, tuning, { force: { fusedMax: 8 } }).variant, 'composed');
  assert.equal(planPoti({ dtype: 'float64', uplo: 'upper', stage: 'poti', n: 1, count: 5, kind: 'strided', sharedLimit: LIMIT }, tuning, { force: { fusedMax: 0 } }).variant, 'composed');
  assert.throws(() => planPoti({ dtype: 'float64', uplo: 'upper', stage: 'poti', n: 1, count: 5, kind: 'strided', sharedLimit: LIMIT }, tuning, { force: { fusedMax: 20 } }), /fused poti size/);
});

// ---- The kernels' arithmetic on the CPU --------------------------------------------------------

/** inverseColumn of generate-leaf.ts: column j of inv(T) for the identity-padded nb x nb tile. */
function inverseColumn(T: Float64Array, nb: number, j: number, uplo: Uplo, unit: boolean): number[] {
  const LDS = nb + 1;
  const x: number[] = Array.from({ length: nb }, (_, i) => (i === j ? 1 : 0));
  if (uplo === 'lower') {
    for (let k = 0; k < nb; k++) {
      if (k < j) continue;
      if (!unit) x[k] = x[k]! / T[k + k * LDS]!;
      for (let i = k + 1; i < nb; i++) x[i] = x[i]! - T[i + k * LDS]! * x[k]!;
    }
  } else {
    for (let k = nb - 1; k >= 0; k--) {
      if (k > j) continue;
      if (!unit) x[k] = x[k]! / T[k + k * LDS]!;
      for (let i = 0; i < k; i++) x[i] = x[i]! - T[i + k * LDS]! * x[k]!;
    }
  }
  return x;
}

/** The trtri leaf kernel (whole-matrix use, with info) on one matrix. */
function emulateLeaf(uplo: Uplo, diag: Diag, nb: number, A: Float64Array | Float32Array, off: number, ld: number, t: number): number {
  const LDS = nb + 1;
  const unit = diag === 'unit';
  const tri = (r: number, c: number): boolean => (uplo === 'lower' ? r >= c : r <= c);
  const T = new Float64Array(nb * LDS);
  for (let r = 0; r < nb; r++) for (let c = 0; c < nb; c++)
    T[r + c * LDS] = r < t && c < t && tri(r, c) && !(unit && r === c) ? A[off + r + c * ld]! : r === c ? 1 : 0;
  let bad = 0;
  if (!unit) for (let c = t - 1; c >= 0; c--) if (T[c + c * LDS] === 0) bad = c + 1;
  const cols = Array.from({ length: nb }, (_, j) => inverseColumn(T, nb, j, uplo, unit));
  cols.forEach((x, j) => x.forEach((v, i) => { T[i + j * LDS] = v; }));
  if (bad !== 0) return bad;
  for (let r = 0; r < t; r++) for (let c = 0; c < t; c++) if (tri(r, c) && !(unit && r === c)) A[off + r + c * ld] = T[r + c * LDS]!;
  return 0;
}

/** The fused kernel (generate-fused.ts) on one matrix. */
function emulateFused(stage: PotiStage, uplo: Uplo, nb: number, A: Float64Array | Float32Array, off: number, ld: number, t: number): number {
  const LDS = nb + 1;
  const lower = uplo === 'lower';
  const at = (r: number, c: number): number => (lower ? r + c * LDS : c + r * LDS);
  const tri = (r: number, c: number): boolean => (lower ? r >= c : r <= c);
  const T = new Float64Array(nb * LDS);
  for (let r = 0; r < nb; r++) for (let c = 0; c < nb; c++) T[at(r, c)] = r < t && c < t && tri(r, c) ? A[off + r + c * ld]! : r === c ? 1 : 0;
  let fail = 0;
  if (stage === 'poti') {
    for (let k = 0; k < nb; k++) {
      const d = T[k + k * LDS]!;
      if (fail === 0 && !(d > 0)) fail = k + 1;
      if (fail === 0) {
        const l = Math.sqrt(d);
        T[k + k * LDS] = l;
        for (let r = k + 1; r < nb; r++) T[r + k * LDS] = T[r + k * LDS]! / l;
        for (let r = k + 1; r < nb; r++) for (let j = k + 1; j <= r; j++) T[r + j * LDS] = T[r + j * LDS]! - T[r + k * LDS]! * T[j + k * LDS]!;
      }
    }
    if (fail !== 0) {
      const f = fail - 1;
      for (let r = 0; r < t; r++) for (let c = 0; c < t; c++) {
        const col = lower ? c : r;
        if (tri(r, c) && (col < f || (r === f && c === f))) A[off + r + c * ld] = T[at(r, c)]!;
      }
    }
  }
  let bad = 0;
  for (let c = t - 1; c >= 0; c--) if (T[c + c * LDS] === 0) bad = c + 1;
  const cols = Array.from({ length: nb }, (_, j) => inverseColumn(T, nb, j, 'lower', false));
  cols.forEach((x, j) => x.forEach((v, i) => { T[i + j * LDS] = v; }));
  const prods = Array.from({ length: nb }, (_, j) => Array.from({ length: nb }, (_, i) => {
    if (i < j) return 0;
    let s = 0;
    for (let k = i; k < nb; k++) s += T[k + i * LDS]! * T[k + j * LDS]!;
    return s;
  }));
  prods.forEach((y, j) => y.forEach((v, i) => { if (i >= j) T[i + j * LDS] = v; }));
  if (fail !== 0 || bad !== 0) return fail !== 0 ? fail : bad;
  for (let r = 0; r < t; r++) for (let c = 0; c < t; c++) if (tri(r, c)) A[off + r + c * ld] = T[at(r, c)]!;
  return 0;
}

function closeOrSame(got: ArrayLike<number>, want: ArrayLike<number>, tol: number, what: string): void {
  for (let e = 0; e < want.length; e++) {
    const [x, y] = [got[e]!, want[e]!];
    if (Number.isNaN(y)) { if (!Number.isNaN(x)) assert.fail(`${what}: element ${e} stays NaN`); }
    else if (!(Math.abs(x - y) <= tol * Math.max(1, Math.abs(y)))) assert.fail(`${what}: element ${e}: ${x} vs ${y}`);
  }
}

test('the trtri leaf emulated matches the reference, a singular matrix untouched with its info', () => {
  const rng = new Rng(31);
  for (const uplo of ['lower', 'upper'] as const) for (const diag of ['nonunit', 'unit'] as const) for (const n of [1, 2, 3, 7, 16, 29, 32]) {
    const nb = 2 ** Math.ceil(Math.log2(n));
    const ld = n + 2;
    const data = new Float64Array(ld * n * 3);
    for (let k = 0; k < 3; k++) fillTriangle(rng, data, k * ld * n, ld, n, uplo, diag);
    if (diag === 'nonunit') data[ld * n + (n >> 1) * (ld + 1)] = 0;
    const want = data.slice();
    const info = new Int32Array(3);
    cpuTrtri({ uplo, diag, a: strided(want, { rows: n, cols: n, count: 3, ld, stride: ld * n }), info });
    const got = [0, 1, 2].map((k) => emulateLeaf(uplo, diag, nb, data, k * ld * n, ld, n));
    assert.deepEqual(got, [...info], `${uplo} ${diag} n=${n}: info`);
    closeOrSame(data, want, DTYPE_EPS.float64 * 64 * n, `${uplo} ${diag} n=${n}`);
  }
});

test('the fused poti and potri kernels emulated match the reference, failing matrices as LAPACK leaves them', () => {
  const rng = new Rng(32);
  for (const stage of ['poti', 'potri'] as const) for (const uplo of ['lower', 'upper'] as const) for (const n of [1, 2, 5, 8, 13, 31, 32]) {
    const nb = 2 ** Math.ceil(Math.log2(n));
    const ld = n + 3;
    const count = 3;
    const data = new Float64Array(ld * n * count);
    for (let k = 0; k < count; k++) {
      if (stage === 'poti') {
        const s = randomSpd(rng, 'float64', n);
        for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) data[k * ld * n + i + j * ld] = s.data[s.offset + i + j * s.ld]!;
      } else fillTriangle(rng, data, k * ld * n, ld, n, uplo, 'nonunit');
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) if (uplo === 'lower' ? i < j : i > j) data[k * ld * n + i + j * ld] = NaN;
    }
    const f = n >> 1;
    data[ld * n + f * (ld + 1)] = stage === 'poti' ? -1 : 0; // matrix 1 fails at f + 1
    const want = data.slice();
    const info = new Int32Array(count);
    (stage === 'poti' ? cpuPoti : cpuPotri)({ uplo, a: strided(want, { rows: n, cols: n, count, ld, stride: ld * n }), info });
    assert.deepEqual([...info], [0, f + 1, 0]);
    const got = Array.from({ length: count }, (_, k) => emulateFused(stage, uplo, nb, data, k * ld * n, ld, n));
    assert.deepEqual(got, [...info], `${stage} ${uplo} n=${n}: info`);
    closeOrSame(data, want, DTYPE_EPS.float64 * 256 * n, `${stage} ${uplo} n=${n}`);
  }
});

test('poti kernels compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 120_000 }, async () => {
  // By default the largest (most registers): poti, float64, 32; MYRIAD_FULL_COMPILE=1: every variant.
  const all = (['float64', 'float32'] as const).flatMap((dtype) => (['lower', 'upper'] as const).flatMap((uplo) => (['strided', 'pointer'] as const).flatMap((kind) =>
    [1, 2, 4, 8, 16, 32].flatMap((nb) => (['poti', 'potri'] as const).map((stage) => potiFusedSource({ dtype, uplo, kind, nb, stage }))))));
  const sources = compileSet(all, (e) => e === 'poti_fused_d_l_st_32');
  const failures = compileFailures(await compileForSm90(sources), (r) => (r.spillStores > 0 ? `${r.spillStores} bytes of spill stores` : undefined));
  assert.deepEqual(failures, []);
});
