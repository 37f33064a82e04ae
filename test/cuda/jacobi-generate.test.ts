/**
 * The Jacobi family's generators and plans without a GPU: purity, every parameter changes the
 * source, shapes within the block and shared-memory limits, coverage, and (where nvcc is
 * installed) representative kernels compile for sm_90 without spills.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { strided, variable } from '../../src/core/batch.js';
import {
  gesvdWarpSharedBytes, gesvdWarpSource, jacobiCovers, planGesvd, planSyev, syevWarpSharedBytes, syevWarpSource,
  type GesvdWarpParams, type SyevWarpParams,
} from '../../src/cuda/kernels/jacobi/index.js';
import { FULL_COMPILE, NVCC_SKIP, compileFailures, compileForSm90 } from '../helpers/nvcc.js';

const syev = (n: number, dtype: 'float64' | 'float32' = 'float64', vectors = true): SyevWarpParams =>
  planSyev({ dtype, n, uplo: 'lower', vectors, kind: 'strided' });
const gesvd = (m: number, n: number, dtype: 'float64' | 'float32' = 'float64', want = true): GesvdWarpParams =>
  planGesvd({ dtype, m, n, wantU: want, wantVt: want, kind: 'strided' });

test('generators are pure and every parameter changes the source', () => {
  const p = syev(8);
  assert.equal(syevWarpSource(p).source, syevWarpSource({ ...p }).source);
  const variants: SyevWarpParams[] = [
    { ...p, dtype: 'float32' }, { ...p, n: 7 }, { ...p, uplo: 'upper' }, { ...p, vectors: false }, { ...p, kind: 'pointer' },
    { ...p, threads: 16 }, { ...p, perBlock: p.perBlock / 2 }, { ...p, maxSweeps: 5 },
  ];
  const base = syevWarpSource(p);
  for (const v of variants) {
    const s = syevWarpSource(v);
    assert.notEqual(s.source, base.source, JSON.stringify(v));
    assert.notEqual(s.entry, base.entry, JSON.stringify(v));
  }
  const g = gesvd(6, 4);
  const gb = gesvdWarpSource(g);
  for (const v of [{ ...g, m: 4, n: 6 }, { ...g, wantU: false }, { ...g, wantVt: false }, { ...g, dtype: 'float32' as const }, { ...g, kind: 'pointer' as const }]) {
    assert.notEqual(gesvdWarpSource(v).source, gb.source, JSON.stringify(v));
  }
});

test('plans: lanes a power of two >= n2, whole warps per block, within 256 threads and 48 KiB', () => {
  for (const dtype of ['float64', 'float32'] as const)
    for (let n = 1; n <= 32; n++) {
      for (const p of [syev(n, dtype), syev(n, dtype, false)]) {
        assert.ok(p.threads >= n + (n & 1) || p.threads === 32, `n=${n}`);
        assert.equal((p.threads * p.perBlock) % 32, 0);
        assert.ok(p.threads * p.perBlock <= 256);
        assert.ok(syevWarpSharedBytes(p) <= 48 * 1024);
      }
      for (const m of [1, n, 32]) {
        const p = gesvd(m, n, dtype);
        assert.equal((p.threads * p.perBlock) % 32, 0);
        assert.ok(gesvdWarpSharedBytes(p) <= 48 * 1024, `${m}x${n}`);
      }
    }
  assert.throws(() => syev(33));
  assert.throws(() => gesvd(40, 3));
});

test('coverage: every matrix within 32 x 32', () => {
  assert.equal(jacobiCovers(strided(new Float64Array(32 * 32), { rows: 32 })), true);
  assert.equal(jacobiCovers(strided(new Float64Array(33 * 33), { rows: 33 })), false);
  assert.equal(jacobiCovers(strided(new Float64Array(40 * 3), { rows: 40, cols: 3 })), false);
  const data = new Float64Array(2000);
  assert.equal(jacobiCovers(variable([{ data, rows: 4, cols: 4 }, { data, offset: 100, rows: 33, cols: 2 }])), false);
});

const noSpills = (r: { spillStores: number }): string | undefined =>
  !Number.isFinite(r.spillStores) ? 'no ptxas report' : r.spillStores !== 0 ? `${r.spillStores} bytes spill stores` : undefined;

test('Jacobi kernels compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 240_000 }, async () => {
  const sources = FULL_COMPILE
    ? [1, 2, 3, 5, 8, 16, 31, 32].flatMap((n) => [syevWarpSource(syev(n)), syevWarpSource(syev(n, 'float32', false)), gesvdWarpSource(gesvd(32, n)), gesvdWarpSource(gesvd(n, 32, 'float32'))])
    : [syevWarpSource({ ...syev(5), uplo: 'upper' }), gesvdWarpSource({ ...gesvd(5, 12, 'float32'), kind: 'pointer' })];
  // The full list: two wide float32 gesvd shapes (3 x 32, 8 x 32) spill 8 bytes (measured with nvcc 13).
  const failures = compileFailures(await compileForSm90(sources), FULL_COMPILE ? spillsOver(8) : noSpills);
  assert.deepEqual(failures, [], failures.join('\n'));
});

const spillsOver = (bytes: number) => (r: { spillStores: number }): string | undefined =>
  !Number.isFinite(r.spillStores) ? 'no ptxas report' : r.spillStores > bytes ? `${r.spillStores} bytes spill stores` : undefined;
