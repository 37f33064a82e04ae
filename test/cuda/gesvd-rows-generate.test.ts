/**
 * The gesvd rows design without a GPU: the generator is pure and every parameter changes its
 * source, the shape by size, the plan (forced, the default table, limits), the reduction's text
 * (the reduce-scatter's offsets and shuffle count a round), and (where nvcc is installed) its
 * kernels compile for sm_90 with their ptxas report (registers and spills) checked.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  GESVD_ROWS_FROM, GESVD_SMALL_DESIGN, WARP_MAX, gesvdRowsShape, gesvdRowsSource, selectGesvd, type GesvdRowsParams,
} from '../../src/cuda/kernels/jacobi/index.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { FULL_COMPILE, NVCC_SKIP, compileFailures, compileForSm90 } from '../helpers/nvcc.js';

const base: GesvdRowsParams = { dtype: 'float64', m: 16, n: 16, wantU: true, wantVt: true, kind: 'strided', maxSweeps: 30 };

test('gesvd rows: pure, every parameter in the source and the entry name', () => {
  assert.equal(gesvdRowsSource(base).source, gesvdRowsSource({ ...base }).source);
  const variants = [base, { ...base, m: 15 }, { ...base, n: 12 }, { ...base, m: 12, n: 16 }, { ...base, dtype: 'float32' as const },
    { ...base, wantU: false }, { ...base, wantVt: false }, { ...base, wantU: false, wantVt: false }, { ...base, kind: 'pointer' as const },
    { ...base, maxSweeps: 5 }].map(gesvdRowsSource);
  assert.equal(new Set(variants.map((v) => v.source)).size, variants.length, 'every parameter changes the source');
  assert.equal(new Set(variants.map((v) => v.entry)).size, variants.length, 'and the entry name');
});

test('gesvd rows: lanes the power of two over the rows of G and V, whole matrices a warp', () => {
  const shapes = ([[1, 1], [3, 2], [8, 8], [9, 9], [12, 5], [5, 12], [16, 16], [17, 17], [24, 24], [31, 31], [32, 7], [32, 32]] as const)
    .map(([m, n]) => gesvdRowsShape(m, n));
  assert.deepEqual(shapes, [
    { lanes: 2, pairs: 1, perWarp: 16, perBlock: 64 }, { lanes: 4, pairs: 1, perWarp: 8, perBlock: 32 }, { lanes: 8, pairs: 4, perWarp: 4, perBlock: 16 },
    { lanes: 16, pairs: 8, perWarp: 2, perBlock: 8 }, { lanes: 16, pairs: 4, perWarp: 2, perBlock: 8 }, { lanes: 16, pairs: 4, perWarp: 2, perBlock: 8 },
    { lanes: 16, pairs: 8, perWarp: 2, perBlock: 8 }, { lanes: 32, pairs: 16, perWarp: 1, perBlock: 4 }, { lanes: 32, pairs: 16, perWarp: 1, perBlock: 4 },
    { lanes: 32, pairs: 16, perWarp: 1, perBlock: 4 }, { lanes: 32, pairs: 4, perWarp: 1, perBlock: 4 }, { lanes: 32, pairs: 16, perWarp: 1, perBlock: 4 }]);
  // An odd square size: its dummy column's V row needs a lane past the last row of G.
  assert.equal(gesvdRowsShape(15, 15).lanes, 16);
  for (let m = 1; m <= 32; m++) for (let n = 1; n <= 32; n++) {
    const s = gesvdRowsShape(m, n);
    const k = Math.min(m, n);
    assert.ok(s.lanes >= Math.max(m, n, k + (k & 1)) && s.pairs <= s.lanes / 2 && 32 % s.lanes === 0, `${m}x${n}`);
  }
});

test('gesvd design: the table design from 9 (GESVD_SMALL_DESIGN), the warp design below, the rows design where forced, limits named', () => {
  const pr = { dtype: 'float64', wantU: true, wantVt: true, kind: 'strided' } as const;
  assert.equal(GESVD_ROWS_FROM, 9);
  for (const dtype of ['float64', 'float32'] as const) {
    for (const [m, n] of [[8, 8], [9, 9], [32, 32], [32, 3], [3, 32]] as const) {
      const expect = Math.max(m, n) >= GESVD_ROWS_FROM ? GESVD_SMALL_DESIGN[dtype] : 'warp';
      assert.equal(selectGesvd({ ...pr, dtype, m, n }).design, expect, `${dtype} ${m}x${n}`);
    }
    assert.equal(selectGesvd({ ...pr, dtype, m: 33, n: 33 }).design, 'block');
  }
  for (const [m, n] of [[1, 1], [4, 9], [9, 4], [32, 32]] as const) {
    const c = selectGesvd({ ...pr, m, n }, { force: { design: 'rows' } });
    assert.equal(c.design, 'rows');
    assert.deepEqual(c.params, { ...pr, m, n, maxSweeps: c.params.maxSweeps });
  }
  assert.throws(() => selectGesvd({ ...pr, m: WARP_MAX + 1, n: 4 }, { force: { design: 'rows' } }), /m, n <= 32/);
  assert.throws(() => selectGesvd({ ...pr, m: 8, n: 8 }, { force: { design: 'thread' } }), /no thread design/);
});

/** The shuffles of one round of the sweep loop's text. */
function roundShuffles(src: string): number {
  const round = src.slice(src.indexOf('for (int r = 0; r < N2 - 1; ++r)'), src.indexOf('if ((__ballot_sync(FULL, rotated)'));
  return round.split('__shfl_xor_sync').length - 1;
}

test('gesvd rows: the round sums by a reduce-scatter (offsets T / 2 ... T / P), then an all-reduce; (c, s) through shared memory', () => {
  const src = gesvdRowsSource({ ...base, m: 32, n: 32 }).source;
  assert.match(src, /constexpr int T = 32;/);
  assert.match(src, /constexpr int P = 16;/);
  // Step 1 at T / 2 fused with the products; then offsets 8, 4, 2 written out (P / 4, P / 8, P / 16 pairs kept).
  assert.match(src, /__shfl_xor_sync\(FULL, xs \* ys, T \/ 2\)/);
  for (const [o, half] of [[8, 4], [4, 2], [2, 1]] as const) assert.match(src, new RegExp(`for \\(int k = 0; k < ${half}; \\+\\+k\\) \\{\\n\\s*const real sa = __shfl_xor_sync\\(FULL, up \\? al\\[k\\] : al\\[k \\+ ${half}\\], ${o}\\)`));
  assert.match(src, /for \(int o = T \/ \(2 \* P\); o > 0; o >>= 1\)/);
  // Text-level count: 3 in the fused step's loop body, 3 in each later step's body, 3 in the all-reduce.
  assert.equal(roundShuffles(src), 3 + 3 * 3 + 3);
  // The rounds stay a loop; the rotations are read from shared memory and applied to fixed slots.
  assert.match(src, /#pragma unroll 1\n\s*for \(int r = 0; r < N2 - 1; \+\+r\)/);
  assert.match(src, /rotSlots\(g\[k\], g\[N2 - 1 - k\], jk\.c, jk\.s\)/);
  assert.match(src, /if \(k < HALF && \(tid & \(T \/ P - 1\)\) == 0\) rot\[k\] = Rotation\{c, s\};/);
  // K <= 2: one pair, no reduce-scatter step.
  const one = gesvdRowsSource({ ...base, m: 5, n: 2 }).source;
  assert.doesNotMatch(one, /const bool up/);
  assert.equal(roundShuffles(one), 3);
  // Values only: V is neither kept nor written, G's columns not completed; G goes through shared
  // memory only where a matrix's sweeps did not settle (the absolute test), and is not read back.
  const values = gesvdRowsSource({ ...base, wantU: false, wantVt: false }).source;
  assert.doesNotMatch(values, /real v\[N2\]|uo\[|vo\[|settleColumns\(gs|g\[j\] = tid < M/);
  assert.match(values, /if \(__any_sync\(FULL, complete\)\) \{\n\s*real\* const gs = sG/);
  assert.match(values, /if \(settle && tid == 0\) done = settleGramOff\(gs, sSig \+ slot \* K, M, K\);/);
  // Tall: U from G, VT from V; wide: U from V, VT from G (A^T's rows).
  assert.match(gesvdRowsSource({ ...base, m: 20, n: 9 }).source, /uo\[tid \+ \(long long\)rj \* ldU\] = failed \? nanReal\(\) : g\[j\]/);
  assert.match(gesvdRowsSource({ ...base, m: 9, n: 20 }).source, /uo\[tid \+ \(long long\)rj \* ldU\] = failed \? nanReal\(\) : v\[j\]/);
  assert.match(gesvdRowsSource({ ...base, m: 9, n: 20 }).source, /x = ga\[j \+ \(long long\)tid \* ldA\]/);
});

/**
 * The sizes checked: 9, 16, 17, 24 and 32, square, both dtypes, U and VT, and tall and wide ones.
 * ptxas (nvcc 13, sm_90), registers: float64 9 94, 16 128, 17 128, 24 168, 32 210; float32 48, 64,
 * 80, 96, 118. No spills at float64 16, 24 and 32 and float32 24 and 32; elsewhere at most 48 bytes, the
 * saves around the calls off the fast path: the IEEE division and square root slow paths (the
 * angle's, the normalisation's and the completion's: with those calls removed, no spill) and the
 * serial code of a matrix whose sweeps did not settle (common/gesvd-settle.ts). Float64 17 spills 24
 * bytes at 128 registers where it had 168 before that code (four blocks an SM instead of three).
 */
const SIZES = [9, 16, 17, 24, 32] as const;
const NO_SPILL = new Set(['gesvd_rows_d_st_16x16_uv_s30', 'gesvd_rows_d_st_24x24_uv_s30', 'gesvd_rows_d_st_32x32_uv_s30',
  'gesvd_rows_s_st_24x24_uv_s30', 'gesvd_rows_s_st_32x32_uv_s30', 'gesvd_rows_d_st_32x32_nn_s30']);

test('gesvd rows kernels compile for sm_90: no spills at the large sizes, at most the slow-path saves elsewhere', { skip: NVCC_SKIP, timeout: 900_000 }, async () => {
  const all: KernelSource[] = [];
  for (const dtype of ['float64', 'float32'] as const) {
    for (const n of SIZES) all.push(gesvdRowsSource({ ...base, dtype, m: n, n }));
    for (const [m, n] of [[32, 9], [9, 32], [31, 17]] as const) all.push(gesvdRowsSource({ ...base, dtype, m, n }));
  }
  all.push(gesvdRowsSource({ ...base, m: 32, n: 32, wantU: false, wantVt: false }));
  const picked = FULL_COMPILE ? all : all.filter((s) => ['gesvd_rows_d_st_32x32_uv_s30', 'gesvd_rows_s_st_17x17_uv_s30'].includes(s.entry));
  const results = await compileForSm90(picked);
  for (const r of results) if ('report' in r) console.log(`${r.src.entry}: ${r.report.registers} registers, ${r.report.spillStores} bytes spill stores`);
  const failures = compileFailures(results, (r) => {
    if (!Number.isFinite(r.spillStores)) return 'no ptxas report';
    return r.spillStores > 48 ? `${r.spillStores} bytes spill stores` : undefined;
  });
  for (const r of results) if ('report' in r && NO_SPILL.has(r.src.entry) && r.report.spillStores !== 0) failures.push(`${r.src.entry}: ${r.report.spillStores} bytes spill stores`);
  assert.deepEqual(failures, [], failures.join('\n'));
});
