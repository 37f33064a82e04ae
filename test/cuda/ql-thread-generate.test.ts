/**
 * The per-thread QL syev's generator, plan and launcher without a GPU: purity, every parameter
 * changes the source and the entry, the `uplo` read, values only never writing A, no array indexed
 * by a runtime value outside the output loops, the table's band, the launch shape on a recording
 * device, and (where nvcc is installed) every kernel compiles for sm_90 without local memory.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { list, strided, type Batch } from '../../src/core/batch.js';
import type { DType } from '../../src/core/dtype.js';
import {
  QL_THREAD_BLOCK, QL_THREAD_LIMIT, QL_THREAD_MAXIT, planQlThread, qlThreadServes, qlThreadSharedBytes, qlThreadSource, syevQlThreadCuda, type QlThreadParams,
} from '../../src/cuda/kernels/ql-thread/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import type { DeviceArray } from '../../src/cuda/runtime/types.js';
import { recordingDevice } from '../helpers/fake-gpus.js';
import { FULL_COMPILE, NVCC_SKIP, compileFailures, compileForSm90 } from '../helpers/nvcc.js';

const TABLE = tuningFor('sm_90', 'qlThread');
const plan = (n: number, dtype: DType = 'float64', vectors = true, arithmetic?: DType): QlThreadParams =>
  planQlThread({ dtype, n, uplo: 'lower', vectors, kind: 'strided' }, TABLE, arithmetic === undefined ? {} : { force: { arithmetic } });

test('the generator is pure and every parameter changes the source and the entry', () => {
  const p = plan(6);
  assert.equal(qlThreadSource(p).source, qlThreadSource({ ...p }).source);
  const variants: QlThreadParams[] = [p, { ...p, dtype: 'float32' }, { ...p, dtype: 'float32', arithmetic: 'float32' }, { ...p, n: 5 }, { ...p, uplo: 'upper' }, { ...p, vectors: false }, { ...p, kind: 'pointer' }, { ...p, maxit: 5 },
    { ...p, staged: true }, { ...p, staged: true, denseA: true }, { ...p, staged: true, denseW: true }];
  const srcs = variants.map(qlThreadSource);
  assert.equal(new Set(srcs.map((s) => s.source)).size, variants.length);
  assert.equal(new Set(srcs.map((s) => s.entry)).size, variants.length);
  // Every size a distinct entry, each named after its size.
  const entries = Array.from({ length: QL_THREAD_LIMIT }, (_, i) => qlThreadSource(plan(i + 1)).entry);
  assert.equal(new Set(entries).size, QL_THREAD_LIMIT);
  assert.equal(entries[7], 'syev_qlthread_d_st_n8_lv_i30');
  assert.equal(qlThreadSource(plan(8, 'float32', true, 'float32')).entry, 'syev_qlthread_s_st_n8_lv_i30_f32');
});

test('float32 arithmetic: float types throughout, its own range constants, the refined rsqrt, the negligible-column rule', () => {
  const wide = qlThreadSource(plan(5, 'float32', true, 'float64')).source;
  const single = qlThreadSource(plan(5, 'float32', true, 'float32')).source;
  assert.match(single, /typedef float real;/);
  assert.match(single, /typedef float io;/);
  assert.doesNotMatch(single, /\bdouble\b|\b(sqrt|rsqrt|fma|fabs|ldexp|ilogb)\(/, 'no double and no double-precision math function');
  for (const [name, value] of [['BIGZ', '1e18f'], ['LOW', '1e-6f'], ['HIGH', '1e16f'], ['SAFE_LO', '1e-30f'], ['SAFE_HI', '1e36f']])
    assert.match(single, new RegExp(`constexpr real ${name} = ${value};`), name);
  assert.match(single, /const real y = rsqrtf\(x\);\n  return fmaReal\(real\(0\.5\) \* y, fmaReal\(-x \* y, y, real\(1\)\), y\);/);
  assert.match(single, /tiny = EPS \* EPS \* EPS \* scaledMax \* scaledMax;/);
  assert.equal((single.match(/\(sigma == real\(0\) \|\| xx <= tiny\)/g) ?? []).length, 2 * 3, 'h and e of each of the n - 2 columns');
  // float64 arithmetic: neither rule (its range holds every column's h u^T p).
  assert.doesNotMatch(wide, /tiny/);
  assert.match(wide, /typedef double real;/);
  assert.match(wide, /return rsqrt\(x\); \}/);
  // n <= 2 has no reflector, so no threshold.
  assert.doesNotMatch(qlThreadSource(plan(2, 'float32', true, 'float32')).source, /tiny/);
});

test('the source: the uplo triangle read, A written only with vectors, float32 data in float64 arithmetic, compile-time register names', () => {
  const p = plan(4);
  assert.match(qlThreadSource(p).source, /real a03 = am\[3 \+ 0 \* \(long long\)ldA\]/);
  assert.match(qlThreadSource({ ...p, uplo: 'upper' }).source, /real a03 = am\[0 \+ 3 \* \(long long\)ldA\]/);
  assert.match(qlThreadSource(p).source, /am\[i \+ \(long long\)rank \* ldA\] = /);
  assert.doesNotMatch(qlThreadSource({ ...p, vectors: false }).source, /am\[[^\]]*\] = /);
  assert.doesNotMatch(qlThreadSource({ ...p, vectors: false }).source, /\bz\d\d\b/);
  const single = qlThreadSource({ ...p, dtype: 'float32' }).source;
  assert.match(single, /typedef double real;/);
  assert.match(single, /typedef float io;/);
  assert.match(single, /io\* __restrict__ A, /);
  // The only arrays (d, zz) are indexed by runtime values in the unrolled output loops alone.
  for (const n of [2, 5, 8]) {
    const src = qlThreadSource(plan(n)).source;
    const indexed = [...src.matchAll(/\b([a-z]+)\[([a-z][^\]]*)\]/g)].map((m) => m[1]).filter((name) => name !== 'am' && name !== 'w' && name !== 'info' && name !== 'index');
    assert.deepEqual([...new Set(indexed)].sort(), ['d', 'zz'], `n = ${n}`);
  }
  // One QL block a row above the last, the 2 x 2 closed form in each, and the iteration cap.
  const src8 = qlThreadSource(plan(8)).source;
  assert.equal((src8.match(/while \(converged\)/g) ?? []).length, 7);
  assert.equal((src8.match(/tangent\(\(d(\d) - d\d\)/g) ?? []).length, 7 + 6);
  assert.match(src8, /constexpr int MAXIT = 30 \* N;/);
});

test('the plan: sizes 1 ... QL_THREAD_LIMIT, the table\'s band', () => {
  assert.deepEqual(plan(8), { dtype: 'float64', n: 8, uplo: 'lower', vectors: true, kind: 'strided', maxit: QL_THREAD_MAXIT, arithmetic: 'float64', staged: false, denseA: false, denseW: false });
  // Staged where vectors are written, A is densely packed and the block's slots fit 48 KiB (float64 8's do not); forced staging where they do not fit is an error.
  const problem = { dtype: 'float64', uplo: 'lower', kind: 'strided', denseA: true, denseW: true } as const;
  assert.deepEqual([4, 6, 8].map((n) => planQlThread({ ...problem, n, vectors: true }, { ...TABLE, stagedVectors: { float64: [4, 8], float32: [] } }).staged), [true, false, false]);
  const all = { ...TABLE, stagedVectors: { float64: [1, 2, 3, 4, 5, 6, 7, 8], float32: [1, 2, 3, 4, 5, 6, 7, 8] } };
  assert.equal(planQlThread({ ...problem, n: 6, vectors: false }, all).staged, false);
  assert.equal(planQlThread({ ...problem, n: 6, vectors: true, denseA: false }, all).staged, false);
  assert.equal(planQlThread({ ...problem, n: 6, vectors: false, denseA: false }, TABLE, { force: { stage: true } }).staged, true);
  assert.throws(() => planQlThread({ ...problem, n: 8, vectors: true }, TABLE, { force: { stage: true } }), /^MyriadError: force.stage: /);
  assert.throws(() => plan(9), /1 <= n <= 8/);
  assert.throws(() => plan(0), /1 <= n <= 8/);
  const t = tuningFor('sm_90', 'qlThread');
  for (const dtype of ['float64', 'float32'] as const) for (const job of ['vectors', 'values'] as const)
    for (let n = 1; n <= 12; n++) assert.equal(qlThreadServes(n, dtype, job === 'vectors', t), n <= QL_THREAD_LIMIT && t.syev[dtype][job].includes(n));
  const narrow = { syev: { float64: { vectors: [5, 6], values: [4, 9] }, float32: { vectors: [], values: [] } }, float32Arithmetic: { vectors: [], values: [] }, stagedVectors: { float64: [], float32: [] } };
  assert.deepEqual([4, 5, 6, 7].map((n) => qlThreadServes(n, 'float64', true, narrow)), [false, true, true, false]);
  assert.deepEqual([4, 5, 9].map((n) => qlThreadServes(n, 'float64', false, narrow)), [true, false, false], 'beyond QL_THREAD_LIMIT never');
  assert.deepEqual([4, 5, 9].map((n) => qlThreadServes(n, 'float32', true, narrow)), [false, false, false]);
});

test('the plan\'s arithmetic: the table\'s float32Arithmetic for float32 data, float64 for float64 data, a force over both', () => {
  const table = { ...TABLE, float32Arithmetic: { vectors: [3, 8], values: [2] } };
  const arith = (dtype: DType, n: number, vectors: boolean, force?: DType): DType =>
    planQlThread({ dtype, n, uplo: 'upper', vectors, kind: 'strided' }, table, force === undefined ? {} : { force: { arithmetic: force } }).arithmetic;
  assert.deepEqual([2, 3, 8].map((n) => arith('float32', n, true)), ['float64', 'float32', 'float32']);
  assert.deepEqual([2, 3, 8].map((n) => arith('float32', n, false)), ['float32', 'float64', 'float64']);
  assert.deepEqual([2, 3, 8].map((n) => arith('float64', n, true)), ['float64', 'float64', 'float64'], 'the list is float32 data\'s');
  assert.equal(arith('float32', 2, true, 'float32'), 'float32');
  assert.equal(arith('float32', 3, true, 'float64'), 'float64');
  assert.equal(arith('float64', 3, true, 'float64'), 'float64');
  assert.throws(() => arith('float64', 3, true, 'float32'), /^MyriadError: force.arithmetic: .*float64 data in float64 arithmetic, not float32/);
});

test('the launcher: a thread per matrix, QL_THREAD_BLOCK a block, strided and list batches', () => {
  const { dev, launches } = recordingDevice();
  const count = 300, n = 7;
  const a = dev.alloc('float32', n * n * count), w = dev.alloc('float32', n * count), info = dev.alloc('int32', count);
  syevQlThreadCuda(dev, { jobz: 'vectors', uplo: 'upper', a: strided(a, { rows: n, count }), w: strided(w, { rows: n, cols: 1, count }), info });
  assert.equal(launches.length, 1);
  // float32 data at 7 with vectors: the table's float32 arithmetic, staged (A and W densely packed) with its slots' shared memory.
  assert.equal(launches[0]!.entry, 'syev_qlthread_s_st_n7_uv_i30_f32_gdd');
  assert.deepEqual([launches[0]!.config.grid, launches[0]!.config.block], [[Math.ceil(count / QL_THREAD_BLOCK), 1, 1], [QL_THREAD_BLOCK, 1, 1]]);
  assert.equal(launches[0]!.config.sharedBytes, qlThreadSharedBytes({ dtype: 'float32', n, staged: true }));
  assert.ok(launches[0]!.config.sharedBytes! > 0);
  launches.length = 0;
  const parts = [0, 1, 2].map(() => dev.alloc('float64', 9));
  const w2 = dev.alloc('float64', 9), info2 = dev.alloc('int32', 3);
  syevQlThreadCuda(dev, { jobz: 'values', uplo: 'lower', a: list(parts, { rows: 3 }) as Batch<DeviceArray>, w: strided(w2, { rows: 3, cols: 1, count: 3 }), info: info2 });
  assert.equal(launches.length, 1);
  assert.equal(launches[0]!.entry, 'syev_qlthread_d_pa_n3_ln_i30');
});

test('per-thread QL syev kernels compile for sm_90 without local memory (no stack frame, no spills)', { skip: NVCC_SKIP, timeout: 300_000 }, async () => {
  const all = Array.from({ length: QL_THREAD_LIMIT - 1 }, (_, i) => i + 2).flatMap((n) => (['float64', 'float32'] as const).flatMap((dtype) => [true, false].map((vectors) => plan(n, dtype, vectors))));
  const single = Array.from({ length: QL_THREAD_LIMIT - 1 }, (_, i) => i + 2).flatMap((n) => [true, false].map((vectors) => plan(n, 'float32', vectors, 'float32')));
  // By default the largest of each arithmetic (n = 8 with vectors: the most registers), a values-only kernel on list batches,
  // and staged kernels (dense spans and the element-by-element copies of list batches, float32 data in either arithmetic).
  const staged = [{ ...plan(6), staged: true, denseA: true, denseW: true }, { ...plan(8, 'float32', true, 'float32'), staged: true, denseA: true, denseW: true },
    { ...plan(5, 'float32', true, 'float64'), kind: 'pointer' as const, staged: true }];
  const params = FULL_COMPILE ? [...all, ...single, ...staged] : [plan(8), plan(8, 'float32', true, 'float32'), { ...plan(4, 'float32', false), kind: 'pointer' as const, uplo: 'upper' as const }, ...staged];
  const results = await compileForSm90(params.map(qlThreadSource));
  const failures = compileFailures(results, (r) =>
    !Number.isFinite(r.spillStores) || !Number.isFinite(r.stackFrame) ? 'no ptxas report'
      : r.spillStores !== 0 || r.stackFrame !== 0 ? `${r.stackFrame} bytes stack frame, ${r.spillStores} bytes spill stores` : undefined);
  assert.deepEqual(failures, [], failures.join('\n'));
});
