/**
 * The QR family's generators and plans without a GPU: purity, every parameter changes the source,
 * the planner's scopes and shapes (within 256 threads, shared memory, conflict-free leading
 * dimensions), coverage against the device's shared memory, and (where nvcc is installed)
 * representative kernels compile for sm_90 without spills. The kernels' numerics:
 * qr-host-emulation.test.ts (opt-in) and test/gpu/qr.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { strided, variable } from '../../src/core/batch.js';
import type { DType } from '../../src/core/dtype.js';
import {
  WARP_SHARED, geqrfSharedSource, orgqrSharedSource, planQr, qrCovers, qrFits, qrSharedBytes, sharedLd, type QrSharedParams,
} from '../../src/cuda/kernels/qr/index.js';
import { FakeDevice } from '../helpers/fake-gpus.js';
import { FULL_COMPILE, NVCC_SKIP, compileFailures, compileForSm90 } from '../helpers/nvcc.js';

const H100_SHARED = 232448 - 1024;
const plan = (op: 'geqrf' | 'orgqr', m: number, n: number, dtype: DType = 'float64', k = Math.min(m, n), sharedLimit = H100_SHARED) =>
  planQr({ op, dtype, m, n, k, kind: 'strided', sharedLimit });
const source = (p: QrSharedParams): string => (p.op === 'geqrf' ? geqrfSharedSource(p) : orgqrSharedSource(p)).source;

test('generators are pure and every parameter changes the source and the entry', () => {
  const p = plan('geqrf', 12, 8).params;
  assert.equal(geqrfSharedSource(p).source, geqrfSharedSource({ ...p }).source);
  const variants: QrSharedParams[] = [
    p, { ...p, dtype: 'float32' }, { ...p, m: 13 }, { ...p, n: 7, k: 7 }, { ...p, kind: 'pointer' }, { ...p, threads: 32, rowLanes: 4, perBlock: 8 },
    { ...p, rowLanes: p.rowLanes * 2 }, { ...p, perBlock: p.perBlock * 2 }, { ...p, scope: 'block', threads: 64, perBlock: 1 },
    { ...p, op: 'orgqr' }, { ...p, op: 'orgqr', k: 5 },
  ];
  const srcs = variants.map((v) => (v.op === 'geqrf' ? geqrfSharedSource(v) : orgqrSharedSource(v)));
  assert.equal(new Set(srcs.map((s) => s.source)).size, variants.length, 'every parameter changes the source');
  assert.equal(new Set(srcs.map((s) => s.entry)).size, variants.length, 'and the entry name');
  // The scope is the barrier; orgqr reads only the k reflector columns and writes no tau or info.
  assert.match(source({ ...p, scope: 'block', threads: 64, perBlock: 1 }), /#define SYNC\(\) __syncthreads\(\)/);
  assert.match(source(p), /#define SYNC\(\) __syncwarp\(\)/);
  // v: x times the reciprocal of alpha - beta, or x and alpha - beta scaled up by 2^64 first where alpha - beta is subnormal.
  assert.match(source(p), /if \(absReal\(den\) >= SAFMIN\) \{[^]*a\[p \+ j \* LDS\] = a\[p \+ j \* LDS\] \* rden;[^]*\} else \{[^]*real\(1\) \/ \(den \* UP\);[^]*a\[p \+ j \* LDS\] = \(a\[p \+ j \* LDS\] \* UP\) \* rden;/);
  const o = source({ ...p, op: 'orgqr', k: 5 });
  assert.doesNotMatch(o, /SAFMIN/);
  assert.match(o, /idx < M \* K;/);
  assert.doesNotMatch(o, /info/);
  assert.match(o, /const real\* __restrict__ T/);
  assert.throws(() => geqrfSharedSource({ ...p, k: 3 }), /k = min/);
  assert.throws(() => orgqrSharedSource({ ...p, op: 'orgqr', m: 4, n: 8, k: 4 }), /m >= n >= k/);
  assert.throws(() => geqrfSharedSource({ ...p, rowLanes: 3 }), /powers of two/);
  assert.throws(() => geqrfSharedSource({ ...p, scope: 'block', threads: 64, perBlock: 2 }), /one matrix/);
});

test('shared leading dimension: >= m, congruent to rowLanes modulo 32, so column groups of a warp hit distinct banks', () => {
  for (const m of [1, 5, 32, 33, 100, 512]) for (const tr of [1, 2, 4, 8, 16, 32]) {
    const ld = sharedLd(m, tr);
    assert.ok(ld >= m && ld < m + 32);
    if (tr < 32) {
      assert.equal(ld % 32, tr % 32);
      const banks = new Set<number>();
      for (let g = 0; g < 32 / tr; g++) for (let r = 0; r < tr; r++) banks.add((r + g * ld) % 32);
      assert.equal(banks.size, 32, `m=${m} rowLanes=${tr}`);
    }
  }
});

test('plans: warp scope up to 32 (whole warps, <= 256 threads, <= 48 KiB), block scope above while the tile fits', () => {
  for (const dtype of ['float64', 'float32'] as const) {
    for (let m = 1; m <= 32; m += 3) for (const n of [1, 2, 7, 16, 32]) {
      for (const op of ['geqrf', 'orgqr'] as const) {
        if (op === 'orgqr' && m < n) continue;
        const { params: p, blockThreads, sharedBytes } = plan(op, m, n, dtype);
        const at = `${op} ${dtype} ${m}x${n}`;
        assert.equal(p.scope, 'warp', at);
        assert.ok(p.threads >= Math.max(m, n) && p.threads <= 32 && p.threads < 2 * Math.max(m, n, 1), at);
        assert.equal(blockThreads % 32, 0, at);
        assert.ok(blockThreads <= 256 && sharedBytes <= WARP_SHARED, at);
        assert.equal(sharedBytes, qrSharedBytes(p));
        assert.ok(p.rowLanes <= p.threads && p.threads % p.rowLanes === 0, at);
      }
    }
    for (const [m, n] of [[33, 33], [64, 64], [100, 100], [128, 128], [200, 50], [512, 32], [40, 120]]) {
      const { params: p, blockThreads, sharedBytes } = plan('geqrf', m!, n!, dtype);
      assert.equal(p.scope, 'block');
      assert.equal(p.perBlock, 1);
      assert.ok(blockThreads >= 64 && blockThreads <= 256 && p.rowLanes <= 32);
      assert.ok(sharedBytes <= H100_SHARED);
    }
  }
  // Tall columns get more row lanes than wide ones.
  assert.ok(plan('geqrf', 512, 32).params.rowLanes > plan('geqrf', 40, 120).params.rowLanes);
  assert.throws(() => plan('geqrf', 256, 256), /shared bytes/);
  assert.throws(() => planQr({ op: 'geqrf', dtype: 'float64', m: 40, n: 40, k: 40, kind: 'strided', sharedLimit: H100_SHARED }, { force: { scope: 'warp' } }), /max\(m, n\) <= 32/);
  assert.equal(planQr({ op: 'geqrf', dtype: 'float64', m: 9, n: 9, k: 9, kind: 'strided', sharedLimit: H100_SHARED }, { force: { scope: 'block', threads: 64 } }).params.scope, 'block');
  // f64 128 x 128 fits an H100 (227 KiB) but not a 64 KiB card.
  assert.equal(qrFits({ op: 'geqrf', dtype: 'float64', m: 128, n: 128, k: 128, kind: 'strided', sharedLimit: H100_SHARED }), true);
  assert.equal(qrFits({ op: 'geqrf', dtype: 'float64', m: 128, n: 128, k: 128, kind: 'strided', sharedLimit: 65536 - 1024 }), false);
  assert.equal(qrFits({ op: 'geqrf', dtype: 'float32', m: 1, n: 1, k: 1, kind: 'strided', sharedLimit: 0 }), true);
});

test('coverage: every matrix of the batch must fit the device', () => {
  const dev = new FakeDevice(0, []);
  const a = (rows: number, cols: number) => strided(dev.alloc('float64', rows * cols), { rows, cols });
  assert.equal(qrCovers(a(32, 32), dev), true);
  assert.equal(qrCovers(a(128, 128), dev), true);
  assert.equal(qrCovers(a(512, 32), dev), true);
  assert.equal(qrCovers(a(300, 300), dev), true, 'the blocked driver');
  const small = new FakeDevice(1, []);
  Object.assign(small, { info: { ...small.info, sharedPerBlockOptin: 65536 } });
  assert.equal(qrCovers(strided(small.alloc('float64', 128 * 128), { rows: 128, cols: 128 }), small), true, 'blocked, 128 x 32 panels');
  Object.assign(small, { info: { ...small.info, sharedPerBlockOptin: 4096 } });
  assert.equal(qrCovers(strided(small.alloc('float64', 128 * 128), { rows: 128, cols: 128 }), small), false, 'not even 128 x 8 panels');
  assert.equal(qrCovers(strided(small.alloc('float32', 64 * 64), { rows: 64, cols: 64 }), small), true);
  const data = dev.alloc('float64', 201 * 200);
  assert.equal(qrCovers(variable([{ data, rows: 4, cols: 4 }, { data, offset: 100, rows: 200, cols: 200 }]), dev), true);
  assert.equal(qrCovers(variable([{ data, rows: 4, cols: 4 }, { data, offset: 100, rows: 100, cols: 20 }]), dev), true);
});

const noSpills = (r: { spillStores: number }): string | undefined =>
  !Number.isFinite(r.spillStores) ? 'no ptxas report' : r.spillStores !== 0 ? `${r.spillStores} bytes spill stores` : undefined;

test('QR kernels compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 240_000 }, async () => {
  const all = FULL_COMPILE
    ? ['float64', 'float32'].flatMap((d) => [[1, 1], [3, 2], [8, 8], [17, 5], [32, 32], [64, 64], [128, 128], [200, 50], [512, 32], [40, 120]]
      .flatMap(([m, n]) => [plan('geqrf', m!, n!, d as DType).params, ...(m! >= n! ? [plan('orgqr', m!, n!, d as DType).params] : [])]))
    : [plan('geqrf', 32, 32).params, { ...plan('orgqr', 13, 5, 'float32', 3).params, kind: 'pointer' as const }, plan('geqrf', 128, 128).params, plan('orgqr', 512, 32, 'float32').params];
  const failures = compileFailures(await compileForSm90(all.map((p) => (p.op === 'geqrf' ? geqrfSharedSource(p) : orgqrSharedSource(p)))), noSpills);
  assert.deepEqual(failures, [], failures.join('\n'));
});
