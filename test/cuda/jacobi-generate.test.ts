/**
 * The Jacobi family's generators and plans without a GPU: purity, every parameter changes the
 * source, shapes within the block and shared-memory limits, coverage, and (where nvcc is
 * installed) representative kernels compile for sm_90 without spills.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { strided, variable } from '../../src/core/batch.js';
import {
  THREAD_MAX, gesvdWarpSharedBytes, gesvdWarpSource, jacobiCovers, planGesvd, planSyev, selectSyev, syevThreadSource,
  syevWarpSharedBytes, syevWarpSource, type GesvdWarpParams, type SyevThreadParams, type SyevWarpParams,
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

test('syev: one thread per matrix up to THREAD_MAX, the warp design above (or where forced)', () => {
  const pr = { dtype: 'float64', uplo: 'lower', vectors: true, kind: 'strided' } as const;
  for (let n = 1; n <= 8; n++) assert.equal(selectSyev({ ...pr, n }).design, n <= THREAD_MAX ? 'thread' : 'warp', `n = ${n}`);
  assert.equal(selectSyev({ ...pr, n: 3 }, { force: { design: 'warp' } }).design, 'warp');
  assert.throws(() => selectSyev({ ...pr, n: THREAD_MAX + 1 }, { force: { design: 'thread' } }), /n <= 4/);
  const base: SyevThreadParams = { ...pr, n: 4, maxSweeps: 30 };
  assert.equal(syevThreadSource(base).source, syevThreadSource({ ...base }).source);
  const variants = [base, { ...base, n: 3 }, { ...base, dtype: 'float32' as const }, { ...base, uplo: 'upper' as const },
    { ...base, vectors: false }, { ...base, kind: 'pointer' as const }, { ...base, maxSweeps: 5 }].map(syevThreadSource);
  assert.equal(new Set(variants.map((v) => v.source)).size, variants.length, 'every parameter changes the source');
  assert.equal(new Set(variants.map((v) => v.entry)).size, variants.length, 'and the entry name');
  // 'values' never writes A; the upper variant reads only the upper triangle (row index <= column index).
  assert.doesNotMatch(syevThreadSource({ ...base, vectors: false }).source, /g\[i \+/);
  assert.match(syevThreadSource({ ...base, uplo: 'upper' }).source, /real a03 = g\[0 \+ 3 \* \(long long\)ldA\]/);
  assert.match(syevThreadSource(base).source, /real a03 = g\[3 \+ 0 \* \(long long\)ldA\]/);
});

const noSpills = (r: { spillStores: number }): string | undefined =>
  !Number.isFinite(r.spillStores) ? 'no ptxas report' : r.spillStores !== 0 ? `${r.spillStores} bytes spill stores` : undefined;

test('Jacobi kernels compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 240_000 }, async () => {
  const sources = FULL_COMPILE
    ? [1, 2, 3, 5, 8, 16, 31, 32].flatMap((n) => [syevWarpSource(syev(n)), syevWarpSource(syev(n, 'float32', false)), gesvdWarpSource(gesvd(32, n)), gesvdWarpSource(gesvd(n, 32, 'float32'))])
    : [syevWarpSource({ ...syev(5), uplo: 'upper' }), gesvdWarpSource({ ...gesvd(5, 12, 'float32'), kind: 'pointer' }),
      syevThreadSource({ dtype: 'float64', n: 4, uplo: 'lower', vectors: true, kind: 'strided', maxSweeps: 30 }),
      syevThreadSource({ dtype: 'float32', n: 3, uplo: 'upper', vectors: false, kind: 'pointer', maxSweeps: 30 })];
  // The full list: two wide float32 gesvd shapes (3 x 32, 8 x 32) spill 8 bytes (measured with nvcc 13).
  const failures = compileFailures(await compileForSm90(sources), FULL_COMPILE ? spillsOver(8) : noSpills);
  assert.deepEqual(failures, [], failures.join('\n'));
});

const spillsOver = (bytes: number) => (r: { spillStores: number }): string | undefined =>
  !Number.isFinite(r.spillStores) ? 'no ptxas report' : r.spillStores > bytes ? `${r.spillStores} bytes spill stores` : undefined;
