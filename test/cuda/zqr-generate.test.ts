/**
 * The complex QR family (kernels/zqr/) without a GPU: the generators pure (every parameter changes
 * the source and the name), the planners' choices (warp and block scopes, the shared-memory limit,
 * the blocked driver's panel and tail, zunmqr's shapes), `covers`, the router's complex routes, and,
 * where nvcc is installed, representative kernels compile for sm_90 without spills. The numerics:
 * test/cuda/zqr-host-emulation.test.ts (opt-in) and test/gpu/zqr.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { strided } from '../../src/core/batch.js';
import { COMPLEX_ROUTES } from '../../src/cuda/router.js';
import {
  ZORMQR_MAX_THREADS, ZPANEL_MIN, zconjTransposeSource, zgelsCheckSource, zgelsFinishSource, zgelsCovers, ZQR_BLOCKED_FROM, ZWARP_MAX, planZormqr, planZqr, planZqrBlocked, planZqrDesign, zforwardOrder, zgeqrfSharedSource,
  zlasetSource, zorgqrSharedSource, zormqrBlocked, zormqrSlotPairs, zormqrSource, zpackedPairs, zqrCovers, zqrFits, zqrSharedBytes, zwySource,
  type ZormqrParams, type ZqrSharedParams, type ZwyParams,
} from '../../src/cuda/kernels/zqr/index.js';
import { FakeDevice } from '../helpers/fake-gpus.js';
import { NVCC_SKIP, compileFailures, compileForSm90, compileSet } from '../helpers/nvcc.js';

const LIMIT = 227 * 1024 - 1024;

test('the shared kernels are pure and every parameter changes them', () => {
  const base: ZqrSharedParams = { op: 'geqrf', dtype: 'float64', m: 9, n: 7, k: 7, kind: 'strided', scope: 'warp', threads: 16, rowLanes: 4, perBlock: 2 };
  assert.equal(zgeqrfSharedSource(base).source, zgeqrfSharedSource({ ...base }).source);
  const variants: ZqrSharedParams[] = [base, { ...base, dtype: 'float32' }, { ...base, m: 10 }, { ...base, n: 8, k: 8 }, { ...base, kind: 'pointer' },
    { ...base, threads: 8, rowLanes: 4, perBlock: 4 }, { ...base, rowLanes: 8 }, { ...base, perBlock: 4 }, { ...base, scope: 'block', threads: 64, perBlock: 1 }];
  const sources = variants.map(zgeqrfSharedSource);
  assert.equal(new Set(sources.map((s) => s.entry)).size, sources.length, 'entry names are distinct');
  assert.equal(new Set(sources.map((s) => s.source)).size, sources.length, 'sources are distinct');
  const org = zorgqrSharedSource({ ...base, op: 'orgqr', k: 5 });
  assert.notEqual(org.source, zorgqrSharedSource({ ...base, op: 'orgqr', k: 4 }).source);
  // geqrf applies H^H (conj(tau)); orgqr H.
  assert.match(zgeqrfSharedSource(base).source, /conjReal2\(tau\[j\]\)/);
  assert.doesNotMatch(org.source, /conjReal2\(tau\[j\]\)/);
  // v: x times Smith's reciprocal of alpha - beta, or x and alpha - beta scaled up by 2^64 first where both its parts are subnormal.
  assert.match(zgeqrfSharedSource(base).source, /if \(absReal\(den\.x\) >= SAFMIN \|\| absReal\(den\.y\) >= SAFMIN\) \{[^]*recipReal2\(den\);[^]*\} else \{[^]*recipReal2\(scaleReal2\(UP, den\)\);[^]*mulReal2\(scaleReal2\(UP, a\[p \+ j \* LDS\]\), rden\)/);
  assert.doesNotMatch(org.source, /SAFMIN/);
  assert.throws(() => zgeqrfSharedSource({ ...base, k: 6 }), /k = min/);
  assert.throws(() => zorgqrSharedSource({ ...base, op: 'orgqr', m: 5, n: 7, k: 3 }), /m >= n >= k/);
  assert.throws(() => zgeqrfSharedSource({ ...base, threads: 12 }), /powers of two/);
  assert.throws(() => zgeqrfSharedSource({ ...base, scope: 'block', threads: 64 }), /one matrix/);
});

test('zunm2r, the WY factor and zlaset: pure, every parameter changes the kernel, the reflectors in zunm2r order', () => {
  const all: ZormqrParams[] = (['float64', 'float32'] as const).flatMap((dtype) => (['left', 'right'] as const).flatMap((side) =>
    (['N', 'C'] as const).flatMap((trans) => (['strided', 'pointer'] as const).map((kind) => ({ dtype, side, trans, kind })))));
  const sources = all.map(zormqrSource);
  assert.equal(new Set(sources.map((s) => s.entry)).size, all.length);
  assert.equal(new Set(sources.map((s) => s.source)).size, all.length);
  for (const s of sources) assert.match(s.source, new RegExp(`__launch_bounds__\\(${ZORMQR_MAX_THREADS}\\) ${s.entry}\\(`));
  assert.equal(zforwardOrder({ side: 'left', trans: 'C' }), true);
  assert.equal(zforwardOrder({ side: 'right', trans: 'N' }), true);
  assert.equal(zforwardOrder({ side: 'left', trans: 'N' }), false);
  assert.equal(zforwardOrder({ side: 'right', trans: 'C' }), false);
  assert.match(zormqrSource(all[0]!).source, /CONJ_TAU = false/);
  assert.match(zormqrSource({ ...all[0]!, trans: 'C' }).source, /CONJ_TAU = true/);
  assert.equal(zpackedPairs(9, 4), 8 + 7 + 6 + 5);
  assert.equal(zormqrSlotPairs(9, 4, 17), zpackedPairs(9, 4) + 4 + 9 * 17);
  const wy: ZwyParams = { dtype: 'float64', kind: 'strided', nb: 32, conjT: false };
  const wys = [wy, { ...wy, dtype: 'float32' }, { ...wy, kind: 'pointer' }, { ...wy, nb: 16 }, { ...wy, conjT: true }] as ZwyParams[];
  assert.equal(new Set(wys.map((p) => zwySource(p).source)).size, wys.length);
  assert.equal(new Set(wys.map((p) => zwySource(p).entry)).size, wys.length);
  assert.throws(() => zwySource({ ...wy, nb: 33 }), /nb 33/);
  assert.notEqual(zlasetSource({ dtype: 'float64', kind: 'strided' }).source, zlasetSource({ dtype: 'float64', kind: 'pointer' }).source);
  assert.notEqual(zlasetSource({ dtype: 'float64', kind: 'strided' }).source, zlasetSource({ dtype: 'float32', kind: 'strided' }).source);
});

test('the shared kernel plan: the warp scope to 32, the block scope while the tile fits, within the limits', () => {
  for (const dtype of ['float64', 'float32'] as const) {
    for (const [m, n] of [[1, 1], [5, 3], [3, 7], [32, 32], [33, 20], [47, 47], [64, 64], [100, 100], [120, 64]] as const) {
      const pr = { op: 'geqrf' as const, dtype, m, n, k: Math.min(m, n), kind: 'strided' as const, sharedLimit: LIMIT };
      const plan = planZqr(pr);
      const p = plan.params;
      assert.equal(p.scope, Math.max(m, n) <= ZWARP_MAX ? 'warp' : 'block', `${m}x${n}`);
      assert.ok(plan.blockThreads <= 256 && plan.sharedBytes <= LIMIT && plan.sharedBytes === zqrSharedBytes(p));
      assert.ok(p.threads % p.rowLanes === 0 && p.rowLanes <= 32);
      if (p.scope === 'warp') assert.ok(p.threads >= Math.max(m, n) && p.threads < 2 * Math.max(m, n, 1) && plan.blockThreads % 32 === 0);
      assert.equal(planZqrDesign(pr).design, 'shared');
    }
  }
  // complex128 128 x 128 pairs (256 KiB) does not fit: blocked with 32-column panels; complex64 fits, and from 128 reflectors goes blocked.
  const big = { op: 'geqrf' as const, dtype: 'float64' as const, m: 128, n: 128, k: 128, kind: 'strided' as const, sharedLimit: LIMIT };
  assert.ok(!zqrFits(big));
  assert.throws(() => planZqr(big), /shared bytes/);
  const d = planZqrDesign(big);
  assert.equal(d.design, 'blocked');
  if (d.design === 'blocked') assert.deepEqual([d.nb, d.tail, d.tailKernel], [32, 64, true]);
  assert.ok(zqrFits({ ...big, dtype: 'float32' }));
  assert.equal(planZqrDesign({ ...big, dtype: 'float32' }).design, 'blocked');
  assert.equal(planZqrDesign({ ...big, dtype: 'float32', n: ZQR_BLOCKED_FROM - 1, k: ZQR_BLOCKED_FROM - 1 }).design, 'shared');
  // Tall panels narrow down to ZPANEL_MIN; beyond, nothing fits.
  const tall = planZqrBlocked({ ...big, m: 1000, n: 64, k: 64 });
  assert.ok(tall.nb < 32 && tall.nb >= ZPANEL_MIN, `nb ${tall.nb}`);
  assert.throws(() => planZqrBlocked({ ...big, m: 4000, n: 64, k: 64 }), /does not fit/);
  // Forced: the panel, no tail.
  const forced = planZqrBlocked({ ...big, m: 70, n: 40, k: 40 }, { panel: 16, tailMax: 0 });
  assert.deepEqual([forced.nb, forced.tail, forced.tailKernel], [16, 40, false]);
  assert.throws(() => planZqrBlocked(big, { panel: 40 }), /1\.\.32/);
  const org = planZqrBlocked({ ...big, op: 'orgqr', m: 64, n: 50, k: 37 }, { panel: 16, tailMax: 20 });
  assert.deepEqual([org.tail, org.tailKernel], [32, true]);
});

test('zunmqr plans: threads follow the vectors of C within the limits; the blocked driver from 64 reflectors or where nothing fits', () => {
  for (const dtype of ['float64', 'float32'] as const) {
    for (const [r, k, nvec] of [[1, 1, 1], [5, 5, 5], [33, 20, 7], [64, 64, 64], [100, 37, 1]] as const) {
      const { params, shape } = planZormqr({ dtype, side: 'left', trans: 'C', kind: 'strided', r, k, nvec, sharedLimit: LIMIT });
      assert.deepEqual(params, { dtype, side: 'left', trans: 'C', kind: 'strided' });
      assert.ok(shape.threads * shape.matrices <= ZORMQR_MAX_THREADS && shape.matrices * shape.bytesPerMatrix <= LIMIT);
      assert.equal(shape.bytesPerMatrix, zormqrSlotPairs(r, k, shape.ldt) * (dtype === 'float64' ? 16 : 8));
    }
  }
  assert.throws(() => planZormqr({ dtype: 'float64', side: 'left', trans: 'N', kind: 'strided', r: 9, k: 4, nvec: 8, sharedLimit: LIMIT }, { threads: 6 }), /power of two/);
  assert.ok(!zormqrBlocked('float64', 63, 63, 10, LIMIT));
  assert.ok(zormqrBlocked('float64', 64, 64, 10, LIMIT));
  assert.ok(zormqrBlocked('float64', 300, 63, 300, 8 * 1024), 'a slot that does not fit');
  assert.ok(zormqrBlocked('float64', 5, 5, 5, LIMIT, { design: 'blocked' }));
});

test('gels\'s own kernels: pure, every parameter changes them; covers leaves empty systems to the CPU', () => {
  const checks = (['float64', 'float32'] as const).flatMap((dtype) => [true, false].flatMap((tall) => (['strided', 'pointer'] as const).flatMap((factor) =>
    (['strided', 'pointer'] as const).map((b) => zgelsCheckSource({ dtype, tall, factor, b })))));
  assert.equal(new Set(checks.map((s) => s.entry)).size, checks.length);
  assert.equal(new Set(checks.map((s) => s.source)).size, checks.length);
  const finishes = (['float64', 'float32'] as const).flatMap((dtype) => [true, false].flatMap((tall) => (['strided', 'pointer'] as const).map((b) => zgelsFinishSource({ dtype, tall, b }))));
  assert.equal(new Set(finishes.map((s) => s.source)).size, finishes.length);
  assert.equal(new Set(finishes.map((s) => s.entry)).size, finishes.length);
  const moves = (['float64', 'float32'] as const).flatMap((dtype) => (['strided', 'pointer'] as const).flatMap((a) => (['strided', 'pointer'] as const).map((b) => zconjTransposeSource({ dtype, a, b }))));
  assert.equal(new Set(moves.map((s) => s.source)).size, moves.length);
  assert.match(moves[0]!.source, /makeReal2\(x\.x, -x\.y\)/, 'the transpose conjugates');
  // The check's zero test reads both parts of R's diagonal.
  assert.match(checks[0]!.source, /d\.x == real\(0\) && d\.y == real\(0\)/);
  const dev = new FakeDevice(0, []);
  const z = (m: number, n: number) => strided(dev.alloc('float64', Math.max(2, 2 * m * n)), { rows: m, cols: n, count: 1, dtype: 'complex128' });
  assert.ok(zgelsCovers({ a: z(40, 33), b: z(40, 2) }, dev));
  assert.ok(zgelsCovers({ a: z(20, 47), b: z(47, 2) }, dev));
  assert.ok(!zgelsCovers({ a: z(0, 3), b: z(3, 2) }, dev), 'an empty system: the CPU reference');
  assert.ok(!zgelsCovers({ a: z(3, 3), b: z(3, 0) }, dev), 'no right-hand side: the CPU reference');
  assert.deepEqual(COMPLEX_ROUTES.gels.map((c) => c.name), ['gels', 'cpu']);
});

test('covers, and the router: geqrf, orgqr and ormqr on complex data have GPU routes named as the real ones', () => {
  const dev = new FakeDevice(0, []);
  const a = (m: number, n: number) => strided(dev.alloc('float64', 2 * m * n), { rows: m, cols: n, count: 1, dtype: 'complex128' });
  assert.throws(() => zqrCovers(strided(dev.alloc('float64', 4), { rows: 2, cols: 2, count: 1 }), dev), /complex batch/);
  assert.ok(zqrCovers(a(100, 100), dev));
  assert.ok(zqrCovers(a(1000, 300), dev));
  assert.ok(!zqrCovers(a(4000, 64), dev), 'the narrowest panel does not fit');
  assert.deepEqual(COMPLEX_ROUTES.geqrf.map((c) => c.name), ['qr', 'cpu']);
  assert.deepEqual(COMPLEX_ROUTES.orgqr.map((c) => c.name), ['qr', 'cpu']);
  assert.deepEqual(COMPLEX_ROUTES.ormqr.map((c) => c.name), ['ormqr', 'cpu']);
});

test('the complex QR kernels compile for sm_90 without spills', { skip: NVCC_SKIP, timeout: 900_000 }, async () => {
  const shared: ZqrSharedParams[] = [
    { op: 'geqrf', dtype: 'float64', m: 32, n: 32, k: 32, kind: 'strided', scope: 'warp', threads: 32, rowLanes: 32, perBlock: 1 },
    { op: 'orgqr', dtype: 'float32', m: 20, n: 9, k: 9, kind: 'pointer', scope: 'warp', threads: 32, rowLanes: 8, perBlock: 2 },
    planZqr({ op: 'geqrf', dtype: 'float64', m: 100, n: 100, k: 100, kind: 'pointer', sharedLimit: LIMIT }).params,
    planZqr({ op: 'orgqr', dtype: 'float64', m: 128, n: 32, k: 32, kind: 'strided', sharedLimit: LIMIT }).params,
  ];
  const sources = [
    ...shared.map((p) => (p.op === 'geqrf' ? zgeqrfSharedSource(p) : zorgqrSharedSource(p))),
    ...(['left', 'right'] as const).flatMap((side) => (['N', 'C'] as const).map((trans) => zormqrSource({ dtype: 'float64', side, trans, kind: 'strided' }))),
    zwySource({ dtype: 'float64', kind: 'pointer', nb: 32, conjT: true }), zwySource({ dtype: 'float32', kind: 'strided', nb: 32, conjT: false }),
    zlasetSource({ dtype: 'float64', kind: 'strided' }),
  ];
  // The default check: one kernel of each generator (the block-scope geqrf, the warp orgqr, zunm2r, the WY factor); all under MYRIAD_FULL_COMPILE=1.
  const representative = new Set([sources[1]!.entry, sources[2]!.entry, sources[7]!.entry, sources[8]!.entry]);
  const results = await compileForSm90(compileSet(sources, (e) => representative.has(e)), 2);
  // No kernel spills (the block-scope geqrf of a large tile too: 64 registers across its division and hypot slow-path calls).
  const failures = compileFailures(results, (r) => (!Number.isFinite(r.spillStores) ? 'no ptxas report'
    : r.spillStores > 0 ? `${r.spillStores} bytes of spill stores` : undefined));
  assert.deepEqual(failures, []);
});
