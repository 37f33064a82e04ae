/**
 * The per-thread QR kernels (src/cuda/kernels/qr/generate-thread.ts) without a GPU: purity, every
 * parameter changes the source and the entry, bad parameters refused, the plan (the table's
 * threadMax, force, staging by density, blocks within 48 KiB), the launcher's choice per layout on a
 * recording device (grid, block, shared bytes; list batches unstaged with their index map; the
 * complex family untouched), geqrf's fast variant (generate-thread-fast.ts: its copies, its two dlarfg
 * forms, the table's default and the forces), and (where nvcc is installed) an sm_90 compile without spills: a
 * representative few, n = 1..8 both dtypes and both ops under MYRIAD_FULL_COMPILE=1. Numerics:
 * qr-thread-host-emulation.test.ts (opt-in) and test/gpu/qr-thread.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { list, strided } from '../../src/core/batch.js';
import type { DType } from '../../src/core/dtype.js';
import { defaultQrTuning } from '../../src/cuda/model/tuning/qr-default.js';
import {
  QR_THREAD_LIMIT, geqrfCuda, geqrfThreadFastSource, geqrfThreadSource, orgqrCuda, orgqrThreadSource, planQrDesign, planQrThread, qrThreadFits,
  qrThreadSharedBytes, type QrThreadParams,
} from '../../src/cuda/kernels/qr/index.js';
import { argNumber, recordingDevice } from '../helpers/fake-gpus.js';
import { FULL_COMPILE, NVCC_SKIP, compileFailures, compileForSm90 } from '../helpers/nvcc.js';

const SHARED = 227 * 1024;
const thread = (op: 'geqrf' | 'orgqr', m: number, n: number, dtype: DType = 'float64', dense = true, k = Math.min(m, n)) =>
  planQrThread({ op, dtype, m, n, k, kind: 'strided', denseA: dense, denseT: dense });
const source = (p: QrThreadParams) => (p.op === 'orgqr' ? orgqrThreadSource(p) : p.variant === 'fast' ? geqrfThreadFastSource(p) : geqrfThreadSource(p));
const fast = (m: number, n: number, dtype: DType = 'float64', dense = true, kind: 'strided' | 'pointer' = 'strided') =>
  planQrThread({ op: 'geqrf', dtype, m, n, k: Math.min(m, n), kind, denseA: dense, denseT: dense }, {}, 'fast');

test('generators are pure; every parameter changes the source and the entry; bad parameters are refused', () => {
  const p = thread('geqrf', 6, 4).params;
  assert.equal(geqrfThreadSource(p).source, geqrfThreadSource({ ...p }).source);
  const variants: QrThreadParams[] = [
    p, { ...p, dtype: 'float32' }, { ...p, m: 7 }, { ...p, n: 5, k: 5 }, { ...p, kind: 'pointer', stage: false, denseA: false, denseT: false },
    { ...p, blockThreads: 64 }, { ...p, stage: false, denseA: false, denseT: false }, { ...p, denseA: false }, { ...p, denseT: false },
    { ...p, op: 'orgqr' }, { ...p, op: 'orgqr', k: 2 },
  ];
  const srcs = variants.map(source);
  assert.equal(new Set(srcs.map((s) => s.source)).size, variants.length, 'every parameter changes the source');
  assert.equal(new Set(srcs.map((s) => s.entry)).size, variants.length, 'and the entry name');
  // Staged kernels synchronise the block twice and no more; unstaged ones never.
  assert.equal(source(p).source.match(/__syncthreads\(\)/g)?.length, 2);
  assert.doesNotMatch(source({ ...p, stage: false, denseA: false, denseT: false }).source, /__syncthreads|__shared__/);
  // v by the reciprocal of alpha - beta, x and alpha - beta scaled up by 2^64 first where alpha - beta is subnormal: every reflector.
  assert.equal(source(p).source.match(/if \(absReal\(den\) >= SAFMIN\)/g)?.length, 4);
  assert.match(source(p).source, /a5_0 = \(a5_0 \* UP\) \* rden;/);
  // orgqr reads tau, writes no info.
  const o = source({ ...p, op: 'orgqr' }).source;
  assert.match(o, /const real\* __restrict__ T/);
  assert.doesNotMatch(o, /info/);
  assert.throws(() => geqrfThreadSource({ ...p, k: 3 }), /k = min/);
  assert.throws(() => orgqrThreadSource({ ...p, op: 'orgqr', m: 3, n: 4, k: 3 }), /m >= n >= k/);
  assert.throws(() => geqrfThreadSource({ ...p, m: 9, k: 4 }), /max\(m, n\) <= 8/);
  assert.throws(() => geqrfThreadSource({ ...p, blockThreads: 48 }), /whole warps/);
  assert.throws(() => geqrfThreadSource({ ...p, stage: false }), /dense layouts are for staged/);
  assert.throws(() => geqrfThreadSource({ ...p, kind: 'pointer' }), /only strided/);
  assert.throws(() => orgqrThreadSource(p), /takes op orgqr/);
});

test('plan: the table bounds the design, force pins either, dense batches staged, blocks within 48 KiB', () => {
  const tuning = defaultQrTuning;
  const pr = (m: number, n: number, dtype: DType = 'float64') => ({ op: 'geqrf' as const, dtype, m, n, k: Math.min(m, n), kind: 'strided' as const, sharedLimit: SHARED });
  for (const dtype of ['float64', 'float32'] as const) {
    const max = tuning.threadMax[dtype];
    assert.ok(max <= QR_THREAD_LIMIT);
    for (let n = 1; n <= 10; n++) {
      const want = n <= max ? 'thread' : 'shared';
      assert.equal(planQrDesign(pr(n, n, dtype), tuning).design, want, `${dtype} ${n}`);
    }
    assert.equal(planQrDesign(pr(8, 3, dtype), tuning).design, max >= 8 ? 'thread' : 'shared');
    assert.equal(planQrDesign(pr(9, 3, dtype), tuning).design, 'shared');
  }
  const off = { ...tuning, threadMax: { float64: 0, float32: 0 } };
  assert.equal(planQrDesign(pr(4, 4), off).design, 'shared');
  assert.equal(planQrDesign(pr(4, 4), off, { force: { design: 'thread' } }).design, 'thread');
  assert.equal(planQrDesign(pr(4, 4), tuning, { force: { design: 'shared' } }).design, 'shared');
  assert.equal(planQrDesign(pr(4, 4), tuning, { force: { design: 'blocked', panel: 8 } }).design, 'blocked');
  assert.throws(() => planQrDesign(pr(9, 9), tuning, { force: { design: 'thread' } }), /1 <= m, n <= 8/);
  assert.equal(qrThreadFits({ op: 'orgqr', m: 4, n: 5, k: 4 }), false);
  assert.equal(qrThreadFits({ op: 'orgqr', m: 5, n: 4, k: 0 }), true);
  for (const dtype of ['float64', 'float32'] as const) for (let n = 1; n <= 8; n++) for (const op of ['geqrf', 'orgqr'] as const) {
    const d = thread(op, n, n, dtype);
    assert.equal(d.params.stage && d.params.denseA && d.params.denseT, true);
    assert.ok(d.sharedBytes <= 48 * 1024 && d.sharedBytes === qrThreadSharedBytes(d.params), `${op} ${dtype} ${n}: ${d.sharedBytes}`);
    assert.ok(d.params.blockThreads >= 64);
    const g = thread(op, n, n, dtype, false);
    assert.equal(g.params.stage || g.params.denseA || g.params.denseT, false);
    assert.equal(g.sharedBytes, 0);
  }
  assert.equal(thread('geqrf', 4, 4).params.blockThreads, 128);
  assert.equal(thread('geqrf', 8, 8).params.blockThreads, 64, '8 x 8 float64 staged: 64 threads keep the block within 48 KiB');
  const forced = planQrThread({ op: 'geqrf', dtype: 'float32', m: 5, n: 5, k: 5, kind: 'strided', denseA: false, denseT: false }, { stage: true, blockThreads: 256 });
  assert.deepEqual([forced.params.stage, forced.params.denseA, forced.params.blockThreads], [true, false, 256]);
});

test('launch: the per-thread kernel by layout (staged dense, direct ragged and list with its index map); larger sizes stay shared', () => {
  const { dev, launches } = recordingDevice();
  const count = 300;
  const a = dev.alloc('float64', 4 * 4 * count + 64), tau = dev.alloc('float64', 4 * count + 8), info = dev.alloc('int32', count);
  geqrfCuda(dev, { a: strided(a, { rows: 4, cols: 4, count }), tau: strided(tau, { rows: 4, cols: 1, count }), info });
  const dense = launches.at(-1)!;
  // The table's variant (fast): slots of 9 and 3 double2 chunks.
  assert.match(dense.entry, /^qr_thread_geqrf_d_st_4x4k4_t128fdd$/);
  assert.deepEqual([dense.config.grid[0], dense.config.block[0], dense.config.sharedBytes], [3, 128, 128 * (18 + 6) * 8]);
  assert.equal(argNumber(dense.args.at(-1)), count);
  // The classic variant by force, and by the table.
  geqrfCuda(dev, { a: strided(a, { rows: 4, cols: 4, count }), tau: strided(tau, { rows: 4, cols: 1, count }), info }, { force: { design: 'thread', threadVariant: 'classic' } });
  assert.match(launches.at(-1)!.entry, /^qr_thread_geqrf_d_st_4x4k4_t128sdd$/);
  assert.equal(launches.at(-1)!.config.sharedBytes, 128 * (17 + 5) * 8);
  const classicTable = { ...defaultQrTuning, threadVariant: { float64: 'classic', float32: 'classic' } as const };
  geqrfCuda(dev, { a: strided(a, { rows: 4, cols: 4, count }), tau: strided(tau, { rows: 4, cols: 1, count }), info }, { tuning: classicTable });
  assert.match(launches.at(-1)!.entry, /^qr_thread_geqrf_d_st_4x4k4_t128sdd$/);
  // Ragged ld: staged element by element (fast); direct by the classic variant.
  geqrfCuda(dev, { a: strided(a, { rows: 3, cols: 4, ld: 4, stride: 16, count }), tau: strided(tau, { rows: 3, cols: 1, count }), info });
  assert.match(launches.at(-1)!.entry, /^qr_thread_geqrf_d_st_3x4k3_t128fed$/);
  assert.equal(launches.at(-1)!.config.sharedBytes, 128 * (14 + 3) * 8);
  geqrfCuda(dev, { a: strided(a, { rows: 3, cols: 4, ld: 4, stride: 16, count }), tau: strided(tau, { rows: 3, cols: 1, count }), info }, { tuning: classicTable });
  assert.match(launches.at(-1)!.entry, /^qr_thread_geqrf_d_st_3x4k3_t128g$/);
  assert.equal(launches.at(-1)!.config.sharedBytes, 0);
  // Forced unstaged: the classic variant; the fast one forced unstaged is refused.
  assert.throws(() => geqrfCuda(dev, { a: strided(a, { rows: 4, cols: 4, count }), tau: strided(tau, { rows: 4, cols: 1, count }), info },
    { force: { design: 'thread', stage: false, threadVariant: 'fast' } }), /always staged/);
  // Dense A with a padded tau: A staged as one span, tau element by element.
  orgqrCuda(dev, { a: strided(a, { rows: 4, cols: 4, count }), tau: strided(tau, { rows: 2, cols: 1, stride: 4, count }) });
  assert.match(launches.at(-1)!.entry, /^qr_thread_orgqr_d_st_4x4k2_t128sde$/);
  // Forced onto the shared kernel, and onto the per-thread one unstaged.
  geqrfCuda(dev, { a: strided(a, { rows: 4, cols: 4, count }), tau: strided(tau, { rows: 4, cols: 1, count }), info }, { force: { design: 'shared' } });
  assert.match(launches.at(-1)!.entry, /^qr_geqrf_d_st_4x4k4_w4/);
  geqrfCuda(dev, { a: strided(a, { rows: 4, cols: 4, count }), tau: strided(tau, { rows: 4, cols: 1, count }), info }, { force: { design: 'thread', stage: false } });
  assert.match(launches.at(-1)!.entry, /^qr_thread_geqrf_d_st_4x4k4_t128g$/);
  // 9 x 9: the shared kernel.
  const b = dev.alloc('float32', 81 * 4), tb = dev.alloc('float32', 9 * 4), ib = dev.alloc('int32', 4);
  geqrfCuda(dev, { a: strided(b, { rows: 9, cols: 9, count: 4 }), tau: strided(tb, { rows: 9, cols: 1, count: 4 }), info: ib });
  assert.match(launches.at(-1)!.entry, /^qr_geqrf_s_st_9x9/);
  // A list batch: pointer form, unstaged.
  const mats = [0, 1, 2].map(() => dev.alloc('float32', 36));
  const taus = [0, 1, 2].map(() => dev.alloc('float32', 6));
  const before = launches.length;
  geqrfCuda(dev, { a: list(mats, { rows: 6, cols: 6 }), tau: list(taus, { rows: 6, cols: 1 }), info: ib });
  assert.equal(launches.length, before + 1);
  assert.match(launches.at(-1)!.entry, /^qr_thread_geqrf_s_pa_6x6k6_t128fee$/);
  geqrfCuda(dev, { a: list(mats, { rows: 6, cols: 6 }), tau: list(taus, { rows: 6, cols: 1 }), info: ib }, { tuning: classicTable });
  assert.match(launches.at(-1)!.entry, /^qr_thread_geqrf_s_pa_6x6k6_t128g$/);
});

test('launch: a repeated strided geqrf replays its launch; any change of arrays, layout, count, info or options plans again', () => {
  const { dev, launches } = recordingDevice();
  const count = 300;
  const a = dev.alloc('float32', 16 * count + 64), tau = dev.alloc('float32', 4 * count + 8), info = dev.alloc('int32', count), info2 = dev.alloc('int32', count);
  const A = strided(a, { rows: 4, cols: 4, count }), T = strided(tau, { rows: 4, cols: 1, count });
  const argsOf = (i: number): number[] => launches[i]!.args.map(argNumber);
  geqrfCuda(dev, { a: A, tau: T, info });
  geqrfCuda(dev, { a: A, tau: T, info });
  assert.equal(launches.length, 2);
  assert.deepEqual([launches[1]!.entry, launches[1]!.config, argsOf(1)], [launches[0]!.entry, launches[0]!.config, argsOf(0)]);
  // The same A object changed in place (a new offset and count): planned again, the new arguments.
  const mutable = A as { -readonly [K in keyof typeof A]: (typeof A)[K] };
  mutable.offset = 16;
  mutable.count = count - 1;
  const T2 = strided(tau, { rows: 4, cols: 1, count: count - 1 });
  geqrfCuda(dev, { a: A, tau: T2, info });
  assert.equal(argNumber(launches[2]!.args[1]), 16);
  assert.equal(argNumber(launches[2]!.args.at(-1)), count - 1);
  // Another info array, other options: planned again.
  geqrfCuda(dev, { a: A, tau: T2, info: info2 });
  assert.equal(launches[3]!.args[8]!.value, info2.ptr);
  geqrfCuda(dev, { a: A, tau: T2, info: info2 }, { force: { design: 'thread', threadVariant: 'classic' } });
  assert.match(launches[4]!.entry, /t128sdd$/);
  geqrfCuda(dev, { a: A, tau: T2, info: info2 });
  assert.match(launches[5]!.entry, /t128fdd$/);
  assert.equal(launches.length, 6);
});

test('fast variant: pure, every parameter changes the source, vector copies where dense, the unscaled dlarfg beside the scaled one', () => {
  assert.deepEqual(defaultQrTuning.threadVariant, { float64: 'fast', float32: 'fast' });
  const p = fast(6, 4).params;
  assert.equal(p.variant, 'fast');
  assert.equal(geqrfThreadFastSource(p).source, geqrfThreadFastSource({ ...p }).source);
  const variants: QrThreadParams[] = [
    p, { ...p, dtype: 'float32' }, { ...p, m: 7 }, { ...p, n: 5, k: 5 }, { ...p, kind: 'pointer', denseA: false, denseT: false },
    { ...p, blockThreads: 64 }, { ...p, denseA: false }, { ...p, denseT: false }, { ...p, denseA: false, denseT: false },
  ];
  const srcs = variants.map(source);
  assert.equal(new Set(srcs.map((x) => x.source)).size, variants.length, 'every parameter changes the source');
  assert.equal(new Set(srcs.map((x) => x.entry)).size, variants.length, 'and the entry name');
  assert.notEqual(geqrfThreadFastSource(p).entry, geqrfThreadSource({ ...p, variant: undefined }).entry);
  const src = geqrfThreadFastSource(p).source;
  assert.equal(src.match(/__syncthreads\(\)/g)?.length, 2);
  // 6 x 4 float64: 12 double2 chunks, slots of 13; tau 2 chunks, slots of 3.
  assert.match(src, /constexpr int SA = 26;/);
  assert.match(src, /constexpr int ST = 6;/);
  assert.match(src, /reinterpret_cast<double2\*>\(sA\)\[\(v \/ 12\) \* 13 \+ v % 12\] = reinterpret_cast<const double2\*>\(spanA\)\[v\]/);
  assert.match(src, /reinterpret_cast<double2\*>\(spanT\)\[v\] = reinterpret_cast<const double2\*>\(sT\)\[\(v \/ 2\) \* 3 \+ v % 2\]/);
  assert.match(src, /const double2 x = reinterpret_cast<const double2\*>\(sa\)\[0\]/);
  // Every reflector: the unscaled form in range, the scaled one (hypot) else.
  assert.equal(src.match(/mx >= SAFE_LO && mx <= SAFE_HI/g)?.length, 4);
  assert.equal(src.match(/hypotReal\(alpha, xnorm\)/g)?.length, 4);
  assert.match(src, /constexpr real SAFE_LO = 0x1p-480;/);
  // The scaled form's v: the reciprocal, or x and alpha - beta scaled up first where alpha - beta is subnormal (its reciprocal would overflow);
  // the unscaled form's alpha - beta is at least SAFE_LO and keeps the reciprocal alone.
  assert.equal(src.match(/if \(absReal\(den\) >= SAFMIN\)/g)?.length, 4);
  assert.equal(src.match(/const real rden = real\(1\) \/ \(den \* UP\);/g)?.length, 4);
  assert.equal(src.match(/const real scale = real\(1\) \/ \(alpha - beta\);/g)?.length, 4);
  assert.match(src, /constexpr real SAFMIN = 2\.2250738585072014e-308;/);
  assert.match(geqrfThreadFastSource({ ...p, dtype: 'float32' }).source, /constexpr real SAFMIN = 1\.1754943508222875e-38f;/);
  assert.match(geqrfThreadFastSource({ ...p, dtype: 'float32' }).source, /constexpr real SAFE_HI = 0x1p\+50f;/);
  // Odd element counts: packed slots, a plain memcpy of vectors, scalar slot reads.
  const odd = geqrfThreadFastSource(fast(3, 3, 'float32').params).source;
  assert.match(odd, /constexpr int SA = 9;/);
  assert.match(odd, /reinterpret_cast<float4\*>\(sA\)\[v\] = reinterpret_cast<const float4\*>\(spanA\)\[v\]/);
  assert.match(odd, /a0_0 = sa\[0\];/);
  // Ragged and list operands: element by element through the matrix pointers, no vector span.
  const list1 = geqrfThreadFastSource(fast(5, 3, 'float32', false, 'pointer').params).source;
  assert.doesNotMatch(list1, /spanA/);
  assert.match(list1, /\(A\[first \+ q\] \+ offsetA\)\[w % 5 \+ \(long long\)\(w \/ 5\) \* ldA\]/);
  assert.throws(() => geqrfThreadFastSource({ ...p, variant: undefined }), /variant fast/);
  assert.throws(() => geqrfThreadSource(p), /classic variant/);
  assert.throws(() => geqrfThreadFastSource({ ...p, stage: false, denseA: false, denseT: false }), /staged geqrf/);
  // The plan: fast for geqrf only (orgqr classic), always staged, within 48 KiB.
  for (const dtype of ['float64', 'float32'] as const) for (let n = 1; n <= 8; n++) for (const dense of [true, false]) {
    const d = fast(n, n, dtype, dense);
    assert.equal(d.params.stage, true);
    assert.equal(d.params.denseA, dense);
    assert.ok(d.sharedBytes <= 48 * 1024 && d.sharedBytes === qrThreadSharedBytes(d.params), `${dtype} ${n}: ${d.sharedBytes}`);
  }
  assert.equal(planQrThread({ op: 'orgqr', dtype: 'float64', m: 4, n: 4, k: 4, kind: 'strided', denseA: true, denseT: true }, {}, 'fast').params.variant, undefined);
  assert.equal(planQrThread({ op: 'geqrf', dtype: 'float64', m: 4, n: 4, k: 4, kind: 'strided', denseA: true, denseT: true }, { threadVariant: 'classic' }, 'fast').params.variant, undefined);
  assert.equal(planQrThread({ op: 'geqrf', dtype: 'float64', m: 4, n: 4, k: 4, kind: 'strided', denseA: true, denseT: true }, { stage: false }, 'fast').params.stage, false);
});

const noSpills = (r: { spillStores: number }): string | undefined =>
  !Number.isFinite(r.spillStores) ? 'no ptxas report' : r.spillStores !== 0 ? `${r.spillStores} bytes spill stores` : undefined;

test('per-thread QR kernels compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 600_000 }, async () => {
  const all = FULL_COMPILE
    ? (['float64', 'float32'] as const).flatMap((d) => [1, 2, 3, 4, 5, 6, 7, 8].flatMap((n) => (['geqrf', 'orgqr'] as const)
      .flatMap((op) => [thread(op, n, n, d).params, thread(op, n, n, d, false).params, { ...thread(op, n, n, d, false).params, kind: 'pointer' as const }])))
    : [thread('geqrf', 8, 8).params, thread('orgqr', 8, 8).params, { ...thread('geqrf', 4, 7, 'float32', false).params, kind: 'pointer' as const },
      fast(8, 8).params, fast(4, 4, 'float32').params, fast(5, 3, 'float32', false, 'pointer').params];
  if (FULL_COMPILE) for (const d of ['float64', 'float32'] as const) for (let n = 1; n <= 8; n++) all.push(fast(n, n, d).params, fast(n, n, d, false).params);
  const failures = compileFailures(await compileForSm90(all.map(source)), noSpills);
  assert.deepEqual(failures, [], failures.join('\n'));
});
