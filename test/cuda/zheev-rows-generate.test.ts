/**
 * The complex heev rows design without a GPU: the generator is pure and every parameter changes its
 * source, the plan (the default table, forced, V's place, warps a block by the shared memory), the
 * round's text (fixed slots, the rotation record, the rows' step by shuffles, V in shared memory at
 * the frame's columns), and (where nvcc is installed) its kernels compile for sm_90 with their ptxas
 * report (registers and spills) checked.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { strided } from '../../src/core/batch.js';
import {
  complexHeevCuda, HEEV_ROWS_V_REGISTERS_MAX, HEEV_SMALL_DESIGN, heevRowsSharedBytes, heevRowsSource, heevSmallDesign, planHeevRows, selectHeev, type HeevRowsParams,
} from '../../src/cuda/kernels/zjacobi/index.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import type { DeviceArray } from '../../src/cuda/runtime/types.js';
import { FULL_COMPILE, NVCC_SKIP, compileFailures, compileForSm90 } from '../helpers/nvcc.js';
import { recordingDevice, RECORDED_BASE, type Recorded } from '../helpers/recording-device.js';

const base: HeevRowsParams = { dtype: 'float64', n: 16, uplo: 'lower', vectors: true, kind: 'strided', maxSweeps: 30, vShared: false, warps: 4 };

test('heev rows: pure, every parameter in the source and the entry name', () => {
  assert.equal(heevRowsSource(base).source, heevRowsSource({ ...base }).source);
  const variants = [base, { ...base, n: 15 }, { ...base, dtype: 'float32' as const }, { ...base, uplo: 'upper' as const }, { ...base, vectors: false },
    { ...base, kind: 'pointer' as const }, { ...base, maxSweeps: 5 }, { ...base, vShared: true }, { ...base, warps: 2 }].map(heevRowsSource);
  assert.equal(new Set(variants.map((v) => v.source)).size, variants.length, 'every parameter changes the source');
  assert.equal(new Set(variants.map((v) => v.entry)).size, variants.length, 'and the entry name');
  assert.equal(heevRowsSource(base).entry, 'heev_rows_z_st_n16_lv_w4_s30');
  assert.equal(heevRowsSource({ ...base, dtype: 'float32', vShared: true, uplo: 'upper', kind: 'pointer' }).entry, 'heev_rows_c_pa_n16_us_w4_s30');
});

test('heev design: the table (the rows design from 9, measured), the rows design where forced, V in registers to the ptxas limit', () => {
  const pr = { dtype: 'float64', n: 16, uplo: 'lower', vectors: true, kind: 'strided' } as const;
  for (const dtype of ['float64', 'float32'] as const) {
    for (const n of [1, 8, 9, 16, 24, 32]) assert.equal(selectHeev({ ...pr, dtype, n }).design, heevSmallDesign(dtype, n), `${dtype} ${n}`);
    assert.ok(HEEV_SMALL_DESIGN[dtype].every((r) => r.from >= 1 && r.to <= 32 && r.from <= r.to));
  }
  // The rows design from 9 as measured; below 9 the warp design.
  for (const n of [9, 16, 32]) assert.equal(heevSmallDesign('float64', n), 'rows');
  for (const n of [1, 8]) assert.equal(heevSmallDesign('float32', n), 'warp');
  for (const n of [1, 9, 17, 32]) {
    const c = selectHeev({ ...pr, n }, { force: { design: 'rows' } });
    assert.equal(c.design, 'rows');
    assert.equal(c.design === 'rows' && c.params.vShared, n > HEEV_ROWS_V_REGISTERS_MAX.float64);
  }
  assert.equal(selectHeev({ ...pr, n: 9 }, { force: { design: 'warp' } }).design, 'warp');
  assert.equal(planHeevRows({ ...pr, n: 32, dtype: 'float32' }).vShared, false);
  assert.equal(planHeevRows({ ...pr, n: 32, vectors: false }).vShared, false, 'no V without vectors');
  assert.equal(planHeevRows({ ...pr, n: 16 }, { force: { vShared: true } }).vShared, true);
  assert.equal(planHeevRows({ ...pr, n: 32 }, { force: { vShared: false } }).vShared, false);
  // Warps a block: 4 where the static 48 KiB allow, fewer where V in shared memory would pass them.
  for (const dtype of ['float64', 'float32'] as const) for (let n = 1; n <= 32; n++) for (const vShared of [false, true]) {
    const p = planHeevRows({ ...pr, dtype, n }, { force: { vShared } });
    assert.ok(heevRowsSharedBytes(p) <= 48 * 1024, `${dtype} ${n} ${vShared}`);
    if (p.warps < 4) assert.ok(heevRowsSharedBytes({ ...p, warps: p.warps + 1 }) > 48 * 1024);
  }
  assert.equal(planHeevRows({ ...pr, n: 32 }).warps, 2);
  assert.equal(planHeevRows({ ...pr, n: 16 }).warps, 4);
  assert.throws(() => planHeevRows({ ...pr, n: 33 }), /1 <= n <= 32/);
  assert.throws(() => planHeevRows({ ...pr, n: 0 }), /1 <= n <= 32/);
});

test('heev launcher: the rows design by default from 9, the warp design where forced, a block of 32 x warps threads over ceil(count / perBlock) blocks', () => {
  const fake = (dtype: 'float64' | 'float32' | 'int32', length: number, ptr: bigint): DeviceArray => ({ kind: 'device', dtype, length, device: 0, ptr, byteLength: 8 * length, disposed: false, dispose() {} });
  const cases = [
    { dtype: 'float64', n: 32, count: 5, force: { design: 'rows' }, entry: 'heev_rows_z_st_n32_ls_w2_s30', grid: 3, block: 64 },
    { dtype: 'float64', n: 16, count: 9, force: { design: 'rows' }, entry: 'heev_rows_z_st_n16_lv_w4_s30', grid: 2, block: 128 },
    { dtype: 'float32', n: 9, count: 13, force: { design: 'rows', vShared: true }, entry: 'heev_rows_c_st_n9_ls_w4_s30', grid: 2, block: 128 },
    { dtype: 'float64', n: 16, count: 9, force: undefined, entry: 'heev_rows_z_st_n16_lv_w4_s30', grid: 2, block: 128 },
    { dtype: 'float64', n: 16, count: 9, force: { design: 'warp' }, entry: 'heev_warp_z_st_n16_lv_t16x4_s30', grid: 3, block: 64 },
  ] as const;
  for (const c of cases) {
    const recorded: Recorded[] = [];
    const dev = recordingDevice(recorded);
    const type = c.dtype === 'float64' ? 'complex128' : 'complex64';
    const a = strided(fake(c.dtype, 2 * c.n * c.n * c.count, RECORDED_BASE), { rows: c.n, cols: c.n, count: c.count, dtype: type });
    const w = strided(fake(c.dtype, c.n * c.count, RECORDED_BASE + 0x100000n), { rows: c.n, cols: 1, count: c.count });
    complexHeevCuda(dev, { jobz: 'vectors', uplo: 'lower', a, w, info: fake('int32', c.count, 0x2000000n) }, c.force === undefined ? {} : { force: c.force });
    assert.equal(recorded.length, 1);
    const r = recorded[0]!;
    assert.equal(r.src.entry, c.entry);
    assert.deepEqual([r.config.grid[0], r.config.block[0]], [c.grid, c.block], c.entry);
  }
});

test('heev rows: fixed slots, the rotation record, the rows step by shuffles, V in shared memory at the frame columns', () => {
  const src = heevRowsSource(base).source;
  // The rounds stay a loop; the pair's slots are compile-time; a_ij by a select tree of real2.
  assert.match(src, /#pragma unroll 1\n\s*for \(int r = 0; r < N2 - 1; \+\+r\)/);
  assert.match(src, /rotSlots2\(a\[k\], a\[N2 - 1 - k\], jk\.c, jk\.zx, jk\.zy\);\n\s*rotSlots2\(v\[k\], v\[N2 - 1 - k\], jk\.c, jk\.zx, jk\.zy\);/);
  assert.match(src, /const real2 s3_0 = \(other & 8\) \? s2_1 : s2_0;/);
  // The first slot's lane publishes z, or -conj(z) where its column is q.
  assert.match(src, /rot\[own\] = low \? ZRotation\{c, zx, zy, real\(0\)\} : ZRotation\{c, -zx, zy, real\(0\)\};/);
  // The rows' step: two shuffles an element of the partner's row.
  const round = src.slice(src.indexOf('// A := J^H A'), src.indexOf('// The 2 x 2 block'));
  assert.equal(round.split('__shfl_sync').length - 1, 2);
  // The diagonal's imaginary part is never read; the unreferenced triangle by its conjugate.
  assert.match(src, /if \(j == tid\) x\.x = g\[tid \+ \(long long\)j \* ldA\]\.x;\n\s*else if \(tid > j\) x = g\[tid \+ \(long long\)j \* ldA\];\n\s*else \{ x = g\[j \+ \(long long\)tid \* ldA\]; x\.y = -x\.y; \}/);
  assert.match(heevRowsSource({ ...base, uplo: 'upper' }).source, /else if \(tid < j\)/);
  // Values only: no V anywhere, A not written.
  const values = heevRowsSource({ ...base, vectors: false }).source;
  assert.doesNotMatch(values, /v\[|sV|z\[tid/);
  // V in shared memory: no V registers; its column of slot k in round r as an address; written from there.
  const shared = heevRowsSource({ ...base, vShared: true }).source;
  assert.doesNotMatch(shared, /real2 v\[N2\]/);
  assert.match(shared, /__shared__ real2 sV\[MPB \* N2 \* N2\];/);
  assert.match(shared, /int ck = k \+ r;\n\s*if \(ck >= N2 - 1\) ck -= N2 - 1;/);
  assert.match(shared, /z\[tid \+ \(long long\)rj \* ldA\] = failed \? makeReal2\(nanReal\(\), nanReal\(\)\) : vs\[\(j\) \* N2\];/);
  // Several matrices a warp at small n (MPW), one at 17 and above.
  assert.match(heevRowsSource({ ...base, n: 9 }).source, /constexpr int MPW = 3;/);
  assert.match(heevRowsSource({ ...base, n: 17 }).source, /constexpr int MPW = 1;/);
});

/**
 * ptxas (nvcc 13, sm_90), registers with vectors as planned (V in registers to complex128 20, in shared
 * memory above) / values only: complex128 n = 9 134 / 86, 16 192 / 130, 17 213 / 136, 24 196 / 192,
 * 32 255 / 255; complex64 80 / 64, 120 / 80, 128 / 80, 144 / 108, 212 / 128. No local memory except
 * complex128 32 with vectors (48 bytes) and complex64 32 values only (24 bytes): the saves around the
 * IEEE square root's slow-path call (the test's sqrt|a_ii|; with an approximate square root, none),
 * which runs only for operands outside the fast path's range. V in registers at complex128 24 and 32
 * would spill (24 and 44,672 bytes), hence HEEV_ROWS_V_REGISTERS_MAX.
 */
const SIZES = [9, 16, 17, 24, 32] as const;
const SLOW_PATH_SAVES = new Set(['heev_rows_z_st_n32_ls_w2_s30', 'heev_rows_c_st_n32_ln_w4_s30']);

test('heev rows kernels compile for sm_90: no local memory beyond the square root slow path saves', { skip: NVCC_SKIP, timeout: 900_000 }, async () => {
  const all: KernelSource[] = [];
  for (const dtype of ['float64', 'float32'] as const) for (const n of SIZES) for (const vectors of [true, false]) {
    all.push(heevRowsSource(planHeevRows({ dtype, n, uplo: 'lower', vectors, kind: 'strided' })));
  }
  const picked = FULL_COMPILE ? all : all.filter((s) => ['heev_rows_z_st_n32_ls_w2_s30', 'heev_rows_c_st_n17_lv_w4_s30'].includes(s.entry));
  assert.equal(picked.length, FULL_COMPILE ? 20 : 2);
  const results = await compileForSm90(picked);
  for (const r of results) if ('report' in r) console.log(`${r.src.entry}: ${r.report.registers} registers, ${r.report.spillStores} bytes spill stores`);
  const failures = compileFailures(results, (r) => (Number.isFinite(r.spillStores) ? undefined : 'no ptxas report'));
  for (const r of results) {
    if (!('report' in r)) continue;
    const limit = SLOW_PATH_SAVES.has(r.src.entry) ? 48 : 0;
    if (r.report.spillStores > limit) failures.push(`${r.src.entry}: ${r.report.spillStores} bytes spill stores`);
  }
  assert.deepEqual(failures, [], failures.join('\n'));
});
