/**
 * The blocked compact-WY QR without a GPU: the planner's designs at 64...512 (shared kernel below
 * the table's blockedFrom where the tile fits, blocked above; panel widths that fit; tails), the
 * registry's coverage, the WY kernels' generators (purity, parameters) and an nvcc compile; and
 * the drivers themselves (geqrfCuda, orgqrCuda forced blocked) on an emulating device
 * (test/helpers/wy-emulator.ts: every kernel the drivers launch run in TypeScript with its CUDA
 * semantics), against the CPU reference and by residuals: strided with padding that must come
 * back untouched, NaN in one matrix of a good batch, list and variable batches, wide and tall.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { list, strided, variable } from '../../src/core/batch.js';
import type { DType } from '../../src/core/dtype.js';
import { org2r } from '../../src/cpu/lapack/qr.js';
import { lasetSource, wyFactorSource, type WyFactorParams } from '../../src/cuda/kernels/common/wy.js';
import { geqrfCuda, orgqrCuda, planQrDesign, qrCovers, type QrForce, type QrProblem } from '../../src/cuda/kernels/qr/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { FULL_COMPILE, NVCC_SKIP, compileFailures, compileForSm90 } from '../helpers/nvcc.js';
import { QR_KINDS, qrCase, qrRatios, referenceQr, relativeGap } from '../helpers/qr-checks.js';
import { Rng } from '../helpers/random.js';
import { EmuDevice } from '../helpers/wy-emulator.js';

const H100_SHARED = 232448 - 1024;
const EPS: Record<DType, number> = { float64: 2 ** -52, float32: 2 ** -23 };
const LIMIT = 30;
const tuning = tuningFor('sm_90', 'qr');
const problem = (op: 'geqrf' | 'orgqr', m: number, n: number, dtype: DType = 'float64', k = Math.min(m, n), sharedLimit = H100_SHARED): QrProblem =>
  ({ op, dtype, m, n, k, kind: 'strided', sharedLimit });

test('designs at 64...512: shared below blockedFrom where the tile fits, blocked above, panels and tails that fit', () => {
  for (const dtype of ['float64', 'float32'] as const) {
    assert.equal(planQrDesign(problem('geqrf', 64, 64, dtype), tuning).design, 'shared');
    assert.equal(planQrDesign(problem('geqrf', 100, 100, dtype), tuning).design, 'shared');
    for (const [m, n] of [[128, 128], [200, 200], [256, 256], [512, 512], [512, 128], [300, 500]] as const) {
      for (const op of ['geqrf', 'orgqr'] as const) {
        if (op === 'orgqr' && m < n) continue;
        const d = planQrDesign(problem(op, m, n, dtype), tuning);
        assert.equal(d.design, 'blocked', `${op} ${dtype} ${m}x${n}`);
        if (d.design !== 'blocked') continue;
        assert.equal(d.nb, tuning.panel[dtype]);
        assert.ok(d.tail % d.nb === 0 || d.tail === d.k, 'the tail starts at a panel boundary or at k');
        if (d.tailKernel) assert.ok((op === 'geqrf' ? d.k : d.n) - d.tail <= tuning.tailMax[dtype]);
      }
    }
    // A wide matrix too large for one tile goes blocked even below blockedFrom.
    assert.equal(planQrDesign(problem('geqrf', 64, 512, dtype), tuning).design, dtype === 'float64' ? 'blocked' : 'shared');
    // Tall and narrow: one shared tile.
    assert.equal(planQrDesign(problem('geqrf', 512, 48, dtype), tuning).design, 'shared');
  }
  const sq = planQrDesign(problem('geqrf', 512, 512), tuning);
  assert.deepEqual(sq.design === 'blocked' && [sq.nb, sq.tail, sq.tailKernel], [32, 448, true]);
  const org = planQrDesign(problem('orgqr', 512, 512, 'float64', 256), tuning);
  assert.deepEqual(org.design === 'blocked' && [org.tail, org.tailKernel], [256, false], 'orgqr with k < n - tailMax: unit columns beyond k');
  // A 64 KiB card: the panel narrows until 512 x nb fits (float64 512 x 8 = 32 KiB).
  const small = planQrDesign(problem('geqrf', 512, 512, 'float64', 512, 65536 - 1024), tuning);
  assert.ok(small.design === 'blocked' && small.nb === 8);
  assert.throws(() => planQrDesign(problem('geqrf', 512, 512), tuning, { force: { design: 'blocked', panel: 48 } }), /panel/);
  assert.equal(planQrDesign(problem('geqrf', 40, 40), tuning, { force: { design: 'blocked', panel: 8 } }).design, 'blocked');
});

test('coverage: every size up to 512 (and beyond) where the narrowest panel fits', () => {
  const dev = new EmuDevice();
  const a = (rows: number, cols: number, dtype: DType = 'float64') => strided(dev.alloc(dtype, rows * cols), { rows, cols });
  for (const [m, n] of [[300, 300], [512, 512], [512, 48], [48, 512], [1000, 1000]]) assert.equal(qrCovers(a(m!, n!), dev), true, `${m}x${n}`);
  const tiny = new EmuDevice(8192);
  assert.equal(qrCovers(strided(tiny.alloc('float64', 512 * 512), { rows: 512, cols: 512 }), tiny), false, '512 x 8 float64 needs 32 KiB');
});

const WY_BASE: WyFactorParams = { dtype: 'float64', kind: 'strided', nb: 32, transT: false };
const WY_VARIANTS: WyFactorParams[] = [WY_BASE, { ...WY_BASE, dtype: 'float32' }, { ...WY_BASE, kind: 'pointer' }, { ...WY_BASE, nb: 16 }, { ...WY_BASE, transT: true }];

test('WY generators are pure and every parameter changes the source', () => {
  const p = WY_BASE;
  const variants = WY_VARIANTS;
  assert.equal(wyFactorSource(p).source, wyFactorSource({ ...p }).source);
  const srcs = variants.map(wyFactorSource);
  assert.equal(new Set(srcs.map((s) => s.source)).size, variants.length);
  assert.equal(new Set(srcs.map((s) => s.entry)).size, variants.length);
  assert.throws(() => wyFactorSource({ ...p, nb: 65 }), /nb/);
  assert.notEqual(lasetSource({ dtype: 'float64', kind: 'strided' }).source, lasetSource({ dtype: 'float32', kind: 'strided' }).source);
});

test('WY kernels compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 240_000 }, async () => {
  // One representative by default; every variant under MYRIAD_FULL_COMPILE=1.
  const all = FULL_COMPILE
    ? [...WY_VARIANTS.map(wyFactorSource), lasetSource({ dtype: 'float64', kind: 'pointer' }), lasetSource({ dtype: 'float32', kind: 'strided' })]
    : [wyFactorSource({ ...WY_BASE, dtype: 'float32', kind: 'pointer', transT: true })];
  const failures = compileFailures(await compileForSm90(all), (r) => (r.spillStores !== 0 ? `${r.spillStores} bytes spill stores` : undefined));
  assert.deepEqual(failures, [], failures.join('\n'));
});

/** geqrf then orgqr (on the reference's factors) of `count` m x n matrices through the drivers on the emulator, checked. */
function emulated(rng: Rng, dtype: DType, m: number, n: number, count: number, force: QrForce, form: 'strided' | 'list' | 'variable'): void {
  const dev = new EmuDevice();
  const eps = EPS[dtype];
  const k = Math.min(m, n);
  const mats = Array.from({ length: count }, (_, i) => qrCase(rng, QR_KINDS[i % QR_KINDS.length]!, m, n, dtype));
  const bad = count > 2 ? 1 : -1;
  if (bad >= 0) mats[bad]![m * n - 1] = NaN;
  const ld = m + 3, stride = ld * n + 5, tStride = k + 2;
  const arr = (len: number) => (dtype === 'float64' ? new Float64Array(len) : new Float32Array(len));
  const A = arr(count * stride).fill(NaN);
  mats.forEach((x, q) => { for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) A[q * stride + i + j * ld] = x[i + j * m]!; });
  const dA = dev.upload(A), dT = dev.upload(arr(count * tStride).fill(NaN)), dInfo = dev.upload(new Int32Array(count).fill(-7));
  const batchA = form === 'strided' ? strided(dA, { rows: m, cols: n, count, ld, stride })
    : form === 'list' ? list(mats.map((_, q) => ({ data: dA, offset: q * stride })), { rows: m, cols: n, ld })
      : variable(mats.map((_, q) => ({ data: dA, offset: q * stride, rows: m, cols: n, ld })));
  const batchT = form === 'strided' ? strided(dT, { rows: k, cols: 1, count, ld: k, stride: tStride })
    : variable(mats.map((_, q) => ({ data: dT, offset: q * tStride, rows: k, cols: 1, ld: k })));
  const what = `${form} geqrf ${dtype} ${m}x${n} ${JSON.stringify(force)}`;
  geqrfCuda(dev, { a: batchA, tau: batchT, info: dInfo }, { force });
  assert.ok(dev.launches.some((e) => e.startsWith('wy_factor')) || k <= (force.tailMax ?? 0), `${what}: the blocked driver ran (${dev.launches.join(' ')})`);
  const a = dev.download(dA), t = dev.download(dT);
  assert.deepEqual(Array.from(dev.download(dInfo) as Int32Array), new Array(count).fill(0), `${what}: info`);
  for (let e = 0; e < a.length; e++) { const r = e % stride; if ((r >= ld * n || r % ld >= m) && !Number.isNaN(a[e] as number)) assert.fail(`${what}: padding ${e} written`); }
  mats.forEach((x, q) => {
    const at = `${what} #${q}`;
    const f = new Float64Array(m * n);
    for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) f[i + j * m] = a[q * stride + i + j * ld] as number;
    const tau = Array.from({ length: k }, (_, j) => t[q * tStride + j] as number);
    assert.ok(Number.isNaN(t[q * tStride + k] as number), `${at}: tau padding written`);
    if (q === bad) { assert.ok(f.some(Number.isNaN), `${at}: NaN stays`); return; }
    assert.ok(f.every(Number.isFinite) && tau.every(Number.isFinite), `${at}: finite (NaN spread?)`);
    const { residual, orthogonality } = qrRatios(x, f, tau, m, n, eps);
    assert.ok(residual < LIMIT && orthogonality < LIMIT, `${at}: residual ${residual}, orthogonality ${orthogonality}`);
    if (q % QR_KINDS.length === 0) {
      // Random matrices: the same factors as the reference (R relative to ||A||, reflectors and tau absolutely).
      const ref = referenceQr(x, m, n);
      const upper = (g: Float64Array): number[] => Array.from(g).filter((_, e) => e % m <= Math.floor(e / m));
      const lower = (g: Float64Array): number[] => Array.from(g).filter((_, e) => e % m > Math.floor(e / m));
      const normA = Math.sqrt(x.reduce((s, v) => s + v * v, 0));
      const rGap = relativeGap(upper(f), upper(ref.f), normA, m, n, eps);
      const vGap = relativeGap([...lower(f), ...tau], [...lower(ref.f), ...ref.tau], 1, m, n, eps);
      assert.ok(rGap < LIMIT && vGap < LIMIT, `${at}: against the reference: R gap ${rGap}, reflector gap ${vGap}`);
    }
  });
  if (m < n) return;
  // orgqr of the good matrices' reference factors, k = n and k < n.
  for (const kq of [n, Math.max(1, Math.floor(n / 3))]) {
    const dev2 = new EmuDevice();
    const round = (v: number): number => (dtype === 'float32' ? Math.fround(v) : v);
    const refs = mats.map((x) => referenceQr(x.map((v) => (Number.isNaN(v) ? 0 : v)), m, n));
    const B = arr(count * stride).fill(NaN), T = arr(count * (kq + 1)).fill(NaN);
    refs.forEach((r, q) => {
      for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) B[q * stride + i + j * ld] = r.f[i + j * m]!;
      for (let j = 0; j < kq; j++) T[q * (kq + 1) + j] = r.tau[j]!;
    });
    const dB = dev2.upload(B), dT2 = dev2.upload(T);
    const bA = form === 'strided' ? strided(dB, { rows: m, cols: n, count, ld, stride }) : list(mats.map((_, q) => ({ data: dB, offset: q * stride })), { rows: m, cols: n, ld });
    const bT = form === 'strided' ? strided(dT2, { rows: kq, cols: 1, count, ld: kq, stride: kq + 1 }) : list(mats.map((_, q) => ({ data: dT2, offset: q * (kq + 1) })), { rows: kq, cols: 1, ld: kq });
    orgqrCuda(dev2, { a: bA, tau: bT }, { force });
    const b = dev2.download(dB);
    const at0 = `${form} orgqr ${dtype} ${m}x${n} k=${kq} ${JSON.stringify(force)}`;
    for (let e = 0; e < b.length; e++) { const r = e % stride; if ((r >= ld * n || r % ld >= m) && !Number.isNaN(b[e] as number)) assert.fail(`${at0}: padding ${e} written`); }
    refs.forEach((r, q) => {
      const mine = new Float64Array(m * n), ref = new Float64Array(m * n);
      for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) { mine[i + j * m] = b[q * stride + i + j * ld] as number; ref[i + j * m] = round(r.f[i + j * m]!); }
      org2r(ref, Float64Array.from(r.tau.slice(0, kq), round), m, n, kq);
      const gap = relativeGap(mine, ref, 1, m, n, eps);
      assert.ok(gap < LIMIT, `${at0} #${q}: Q against the reference: gap ${gap}`);
    });
  }
}

test('blocked geqrf and orgqr on the emulating device: reference, residuals, padding, NaN, list and variable batches', { timeout: 300_000 }, () => {
  const rng = new Rng(1818);
  const cases: [DType, number, number, QrForce, 'strided' | 'list' | 'variable'][] = [
    ['float64', 40, 40, { design: 'blocked', panel: 8, tailMax: 0 }, 'strided'],
    ['float64', 45, 37, { design: 'blocked', panel: 8, tailMax: 12 }, 'strided'],
    ['float64', 70, 21, { design: 'blocked', panel: 8, tailMax: 8 }, 'list'],
    ['float64', 19, 50, { design: 'blocked', panel: 8, tailMax: 0 }, 'strided'],
    ['float64', 23, 41, { design: 'blocked', panel: 8, tailMax: 10 }, 'variable'],
    ['float32', 36, 36, { design: 'blocked', panel: 16, tailMax: 8 }, 'strided'],
    ['float32', 50, 30, { design: 'blocked', panel: 4, tailMax: 0 }, 'list'],
    ['float64', 130, 130, {}, 'strided'],
  ];
  for (const [dtype, m, n, force, form] of cases) emulated(rng, dtype, m, n, 4, force, form);
});

test('chunks: a group whose workspace exceeds the budget runs in chunks, each with its matrices, info and index in place', async () => {
  const { eachWyChunk } = await import('../../src/cuda/kernels/common/wy-launch.js');
  const dev = new EmuDevice();
  const info = dev.alloc('int32', 10);
  // Strided: 10 matrices of 8 x 4, 100 elements of workspace each, a budget of 3 matrices (float64).
  const a = strided(dev.alloc('float64', 10 * 32), { rows: 8, cols: 4, count: 10 });
  const tau = strided(dev.alloc('float64', 10 * 4), { rows: 4, cols: 1, count: 10 });
  const seen: [number, number, bigint, boolean][] = [];
  eachWyChunk(dev, 'float64', [a, tau], () => 100, (c) => {
    seen.push([c.count, c.operands[0]!.offset, c.infoPointer(info) - info.ptr, c.index === null]);
    assert.ok(c.work.length >= c.count * 100);
    assert.equal(c.operands[1]!.offset, (c.operands[0]!.offset / 32) * 4, 'tau in step with A');
  }, () => true, 3 * 100 * 8);
  assert.deepEqual(seen, [[3, 0, 0n, true], [3, 96, 12n, true], [3, 192, 24n, true], [1, 288, 36n, true]]);
  // Variable: the included matrices of one shape, grouped, chunked, each chunk's index their batch positions.
  const data = dev.alloc('float64', 1000);
  const shapes = [[8, 4], [5, 5], [8, 4], [8, 4], [5, 5], [8, 4]] as const;
  const v = variable(shapes.map(([rows, cols], i) => ({ data, offset: i * 50, rows, cols })));
  const vt = variable(shapes.map(([rows, cols], i) => ({ data, offset: 600 + i * 5, rows: Math.min(rows, cols), cols: 1 })));
  const groups: number[][] = [];
  eachWyChunk(dev, 'float64', [v, vt], () => 100, (c) => {
    groups.push(Array.from(dev.download(c.index!) as Int32Array));
    assert.equal(c.operands[0]!.kind, 'pointer');
    assert.deepEqual(c.operands[0]!.views.map((x) => x.offset), groups.at(-1)!.map((i) => i * 50));
  }, (i) => i !== 3, 2 * 100 * 8);
  assert.deepEqual(groups, [[0, 2], [5], [1, 4]]);
});
