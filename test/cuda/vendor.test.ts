/**
 * The vendor routes without a GPU:
 * - the crossover tables: a rule takes exactly its ranges, dtype, route and job; every rule's
 *   measured points lie inside it and are below VENDOR_RATIO_MAX; a card without a table gets none;
 * - `covers` on a device with the H200's name: false where the library does not load (here it is
 *   pointed at a path that does not exist), with nothing thrown; false on devices that are not
 *   CUDA devices; the own routes then, as the router shows;
 * - a capture passes over the vendor candidates, and a forced vendor route inside one is an error;
 * - the rule the potrf scan and info kernels implement, checked against the CPU reference on
 *   matrices holding NaN and infinities wherever the vendor's own result agrees with the reference
 *   on the finite leading block (which is all the rule assumes of it); the complex scan's rule
 *   likewise against the complex reference (NaN and infinities in either part, every position);
 * - complex potrf's cuSOLVER candidate (z/cpotrfBatched): first in the complex list, asking the
 *   table with the complex type, false without the library, planned when forced;
 * - the kernels around the vendor calls compile (nvcc, where it is on PATH);
 * - the sweep: its grid, the rules its rows give (the solves' by right-hand sides and side) and the
 *   table's source. The solves' vendor routes are tested in vendor-solves.test.ts.
 */
// run-tests: process no-vendor-libraries (vendor, vendor-dense and vendor-solves point the two libraries at the same missing paths)
import assert from 'node:assert/strict';
import { test } from 'node:test';

process.env['MYRIAD_LIBCUBLAS'] = '/nonexistent/libcublas.so';
process.env['MYRIAD_LIBCUSOLVER'] = '/nonexistent/libcusolver.so';

const { strided, variable } = await import('../../src/core/batch.js');
const { cpuPotrf } = await import('../../src/cpu/lapack/index.js');
const { cpuPotrfComplex } = await import('../../src/cpu/complex/zpotrf.js');
const { choose, chooseComplex, COMPLEX_ROUTES, ownRoute, ROUTES } = await import('../../src/cuda/router.js');
const { PlanningDevice } = await import('../../src/cuda/runtime/planning-device.js');
const { VENDOR_RATIO_MAX, routedOp, vendorRuleFor, vendorTableFor, vendorTables } = await import('../../src/cuda/model/tuning/vendor-tables.js');
const vendor = await import('../../src/cuda/vendor/index.js');
const { vendorCard } = await import('../../src/cuda/vendor/rules.js');
const { SCAN_SENTINEL, getrfKeepSource, getrfScatterSource, tinyDiagonalSource, potrfInfoSource, potrfScanSource, syevPackSource, syevUnpackSource } = await import('../../src/cuda/vendor/kernels.js');
const { H100 } = await import('../helpers/devices.js');
const { recordingDevice } = await import('../helpers/fake-gpus.js');
const { Rng } = await import('../helpers/random.js');
const { NVCC_SKIP, compileForSm90 } = await import('../helpers/nvcc.js');

import type { VendorTable } from '../../src/cuda/model/tuning/vendor-tables.js';
import type { Uplo } from '../../src/core/enums.js';

const H200 = { ...H100, name: 'NVIDIA H200', totalMemoryBytes: 150e9 };

const TABLE: VendorTable = {
  card: 'Test card', provenance: 'made up',
  rules: [
    { op: 'potrf', route: 'cusolver', dtype: 'float64', n: [100, 200], count: [1, 4], measured: [{ n: 100, count: 1, ratio: 0.5 }] },
    { op: 'syev', route: 'cusolver', dtype: 'float64', jobz: 'vectors', n: [64, Infinity], count: [10, Infinity], measured: [{ n: 64, count: 10, ratio: 0.5 }] },
  ],
};

test('a rule takes its ranges (inclusive), its dtype, route and job, and nothing else', () => {
  const q = { op: 'potrf', route: 'cusolver', dtype: 'float64', n: 100, count: 1 } as const;
  assert.ok(vendorRuleFor(TABLE, q));
  assert.ok(vendorRuleFor(TABLE, { ...q, n: 200, count: 4 }));
  assert.equal(vendorRuleFor(TABLE, { ...q, n: 99 }), undefined);
  assert.equal(vendorRuleFor(TABLE, { ...q, n: 201 }), undefined);
  assert.equal(vendorRuleFor(TABLE, { ...q, count: 5 }), undefined);
  assert.equal(vendorRuleFor(TABLE, { ...q, dtype: 'float32' }), undefined);
  assert.equal(vendorRuleFor(TABLE, { ...q, route: 'cublas' }), undefined);
  assert.equal(vendorRuleFor(undefined, q), undefined);
  const s = { op: 'syev', route: 'cusolver', dtype: 'float64', n: 4096, count: 10, jobz: 'vectors' } as const;
  assert.ok(vendorRuleFor(TABLE, s));
  assert.equal(vendorRuleFor(TABLE, { ...s, jobz: 'values' }), undefined);
});

test('the tables: one per card, every measured point inside its rule and below the ratio bound', () => {
  assert.ok(vendorTableFor('NVIDIA H200'));
  assert.equal(vendorTableFor(H100.name), undefined);
  assert.equal(vendorCard(new PlanningDevice(H100)), false, 'a card without a table: covers stop at the first question');
  assert.equal(vendorCard(new PlanningDevice(H200)), true);
  const cards = vendorTables().map((t) => t.card);
  assert.equal(new Set(cards).size, cards.length);
  for (const t of vendorTables()) {
    assert.ok(t.provenance.length > 0);
    for (const r of t.rules) {
      const what = `${t.card} ${r.op} ${r.route} ${r.dtype} [${r.n.join(', ')}]`;
      assert.ok(r.n[0] <= r.n[1] && r.count[0] <= r.count[1] && r.n[0] >= 1 && r.count[0] >= 1, what);
      assert.ok(r.measured.length > 0, what);
      // The sweep and its probe time trsm on the left side only: a rule without its side would send the right side unmeasured.
      if (r.op === 'trsm') assert.equal(r.side, 'left', `${what}: trsm rules name the side measured`);
      for (const p of r.measured) {
        assert.ok(p.ratio < VENDOR_RATIO_MAX, `${what}: ratio ${p.ratio}`);
        assert.ok(p.n >= r.n[0] && p.n <= r.n[1] && p.count >= r.count[0] && p.count <= r.count[1], `${what}: point ${p.n} x ${p.count} outside`);
      }
      assert.ok(ROUTES[routedOp(r.op)].some((c) => c.name === r.route), `${what}: no such route`);
    }
  }
});

/** Device requests on a device that runs nothing (PlanningDevice: what warm and prefetch use). */
function requests(dev: InstanceType<typeof PlanningDevice>) {
  const square = (dtype: 'float64' | 'float32', n: number, count: number) => strided(dev.alloc(dtype, n * n * count), { rows: n, count });
  return {
    potrf: (n: number) => ({ uplo: 'lower' as const, a: square('float64', n, 1), info: dev.alloc('int32', 1) }),
    getrf: (n: number, count: number) => ({ a: square('float64', n, count), ipiv: dev.alloc('int32', n * count), pivotStride: n, info: dev.alloc('int32', count) }),
    gemm: (n: number, count: number) => ({ transA: 'N' as const, transB: 'N' as const, alpha: 1, beta: 0, a: square('float64', n, count), b: square('float64', n, count), c: square('float64', n, count) }),
    syev: (n: number, count: number) => ({ jobz: 'vectors' as const, uplo: 'lower' as const, a: square('float64', n, count),
      w: strided(dev.alloc('float64', n * count), { rows: n, cols: 1, count }), info: dev.alloc('int32', count) }),
  };
}

test('a missing library costs its routes alone: covers is false, nothing throws, the own routes run', () => {
  const dev = new PlanningDevice(H200);
  const r = requests(dev);
  const table = vendorTableFor(H200.name);
  // Inside the H200's rules ...
  assert.ok(vendorRuleFor(table, { op: 'potrf', route: 'cusolver', dtype: 'float64', n: 8192, count: 1 }));
  assert.ok(vendorRuleFor(table, { op: 'gemm', route: 'cublas', dtype: 'float64', n: 512, count: 1000, betaZero: true }));
  // ... but the libraries do not load here.
  assert.equal(vendor.vendorUsable(dev, 'cublas'), false);
  assert.equal(vendor.vendorUsable(dev, 'cusolver'), false);
  assert.equal(vendor.vendorUsable(dev, 'syevBatched'), false);
  assert.equal(vendor.cusolverPotrfCovers(r.potrf(8192) as never, dev), false);
  assert.equal(vendor.cublasGemmCovers(r.gemm(512, 1000) as never, dev), false);
  assert.equal(choose('potrf', r.potrf(8192), dev).name, 'potrf');
  assert.equal(choose('getrf', r.getrf(128, 10000), dev).name, 'getrf');
  assert.equal(choose('gemm', r.gemm(512, 1000), dev).name, 'gemm');
  assert.equal(choose('syev', r.syev(128, 500), dev).name, 'tridiag');
});

test('devices that are not CUDA devices (the fakes) never take a vendor route', () => {
  const { dev } = recordingDevice();
  assert.equal(vendor.vendorUsable(dev, 'cublas'), false);
  assert.equal(vendor.vendorUsable({ ...dev, info: H200 } as typeof dev, 'cusolver'), false);
});

test('inside a capture the router passes over the vendor candidates; a forced one is an error there', () => {
  const dev = new PlanningDevice(H200);
  const r = requests(dev);
  for (const op of ['gemm', 'potrf', 'getrf', 'syev'] as const) {
    const vendors = ROUTES[op].filter((c) => c.capturable === false).map((c) => c.name);
    assert.ok(vendors.length > 0, op);
    // The table's routes, and syev's capability route beyond the own designs with its split (vendor-dense.test.ts).
    for (const name of vendors) assert.ok(name === 'cublas' || name === 'cusolver' || name === 'cusolver-syevd' || name === 'split', name);
  }
  assert.equal(ownRoute('potrf', r.potrf(8192), dev).name, 'potrf');
  assert.equal(choose('potrf', r.potrf(8192), dev, 'cusolver').name, 'cusolver');
  assert.throws(() => choose('potrf', r.potrf(8192), dev, 'cusolver', true), /cannot be recorded in ctx.capture\(\)/);
  assert.equal(choose('potrf', r.potrf(8192), dev, 'potrf', true).name, 'potrf');
});

test('forced on a device that runs nothing, the vendor routes plan their kernels and call no library', () => {
  const dev = new PlanningDevice(H200);
  const r = requests(dev);
  vendor.cusolverPotrf(dev, r.potrf(64) as never);
  vendor.cusolverGetrf(dev, r.getrf(64, 2) as never);
  // A variable batch with an empty member after a 1 x 1 one (its group keeps nothing).
  const mixed = variable([{ data: dev.alloc('float64', 1), rows: 1, cols: 1 }, { data: dev.alloc('float64', 1), rows: 0, cols: 0 }]);
  assert.deepEqual(vendor.cusolverGetrf(dev, { a: mixed, ipiv: dev.alloc('int32', 2), pivotStride: 1, info: dev.alloc('int32', 2) } as never), []);
  vendor.cusolverSyev(dev, r.syev(16, 3) as never);
  vendor.cublasGemm(dev, r.gemm(16, 3) as never);
  assert.deepEqual(dev.sources.map((s) => s.entry).sort(), [
    'vendor_getrf_keep_d_pa', 'vendor_getrf_keep_d_st', 'vendor_getrf_scatter', 'vendor_potrf_info',
    'vendor_potrf_scan_d_l_st', 'vendor_syev_pack_d_l_st', 'vendor_syev_unpack_d_st_st', 'vendor_tiny_diagonal_d_pa', 'vendor_tiny_diagonal_d_st',
  ]);
});

// ---------------------------------------------------------------------------------------------
// The potrf info rule (kernels.ts: potrf_scan, then potrf_info), in JavaScript.

/** potrf_scan: the first row (lower; column for upper) of the triangle with NaN, an infinity off the diagonal, or -Inf on it. */
function firstStop(a: Float64Array, n: number, uplo: Uplo): number {
  let best = SCAN_SENTINEL;
  for (let j = 0; j < n; j++) for (let i = uplo === 'lower' ? j : 0; i < (uplo === 'lower' ? n : j + 1); i++) {
    const v = a[i + j * n]!;
    if (!Number.isFinite(v) && !(i === j && v === Infinity)) best = Math.min(best, uplo === 'lower' ? i : j);
  }
  return best;
}
/** potrf_info: the vendor's info where it failed before that row, else that row's order. */
const combine = (v: number, r: number): number => (r !== SCAN_SENTINEL && !(v > 0 && v <= r) ? r + 1 : v);

test('the potrf info rule gives the CPU reference\'s info for NaN and infinities, whatever the vendor does past them', () => {
  const rng = new Rng(7);
  const specials = [NaN, Infinity, -Infinity];
  let checked = 0, nonFinite = 0;
  for (let trial = 0; trial < 3000; trial++) {
    const n = rng.int(1, 9);
    const uplo: Uplo = rng.next() < 0.5 ? 'lower' : 'upper';
    const a = new Float64Array(n * n);
    for (let j = 0; j < n; j++) for (let i = 0; i <= j; i++) { const v = rng.uniform(); a[i + j * n] = v; a[j + i * n] = v; }
    for (let j = 0; j < n; j++) a[j + j * n] = rng.next() < 0.15 ? -rng.uniform(0, 1) : n + rng.uniform(0, 1);
    for (let s = rng.int(0, 2); s > 0; s--) {
      const i = rng.int(0, n - 1), j = rng.int(0, n - 1), v = specials[rng.int(0, 2)]!;
      a[i + j * n] = v; a[j + i * n] = v;
    }
    const want = new Int32Array(1);
    cpuPotrf({ uplo, a: strided(a.slice(), { rows: n }), info: want });
    const r = firstStop(a, n, uplo);
    // A vendor that agrees with the reference before row r: the reference's info on the matrix with
    // every entry from row r on made finite, then anything at all past row r.
    const repaired = a.slice();
    for (let e = 0; e < repaired.length; e++) if (!Number.isFinite(repaired[e]!) && !(e % (n + 1) === 0 && repaired[e] === Infinity)) repaired[e] = 0.5;
    const clean = new Int32Array(1);
    cpuPotrf({ uplo, a: strided(repaired, { rows: n }), info: clean });
    const agreeing = clean[0]! > 0 && clean[0]! <= r ? [clean[0]!] : [0, r + 1, r + 2, n, clean[0]!].filter((k) => r === SCAN_SENTINEL ? k === clean[0] : true);
    for (const v of agreeing) if (combine(v, r) !== want[0]) assert.equal(combine(v, r), want[0], `n ${n} ${uplo} [${[...a].join(', ')}] vendor ${v}: info`);
    checked++;
    if (r !== SCAN_SENTINEL) nonFinite++;
  }
  assert.ok(nonFinite > 500, `only ${nonFinite} of ${checked} matrices held NaN or an infinity in the triangle`);
});

// The complex rule (kernels.ts: zpotrf_scan, then the same potrf_info), in JavaScript. A is n x n
// pairs, interleaved, ld n.

/** zpotrf_scan: the first row (lower; column for upper) of the triangle with NaN or an infinity in either part off the diagonal, NaN or -Inf in the real part on it. */
function firstStopComplex(a: Float64Array, n: number, uplo: Uplo): number {
  let best = SCAN_SENTINEL;
  for (let j = 0; j < n; j++) for (let i = uplo === 'lower' ? j : 0; i < (uplo === 'lower' ? n : j + 1); i++) {
    const re = a[2 * (i + j * n)]!, im = a[2 * (i + j * n) + 1]!;
    const stops = i === j ? !Number.isFinite(re) && re !== Infinity : !Number.isFinite(re) || !Number.isFinite(im);
    if (stops) best = Math.min(best, uplo === 'lower' ? i : j);
  }
  return best;
}

/** The complex reference's info of one matrix (a copy is factored). */
function zpotrfInfo(a: Float64Array, n: number, uplo: Uplo): number {
  const info = new Int32Array(1);
  cpuPotrfComplex({ uplo, a: strided(a.slice(), { rows: n, dtype: 'complex128' }), info });
  return info[0]!;
}

/**
 * Checks combine(vendor, scan) against the reference's info for every vendor result that agrees with
 * the reference before row r: the vendor factors the matrix the scan leaves (the diagonal's imaginary
 * parts zeroed), modelled as the reference on it with every stopping value made finite, then
 * anything at all past row r.
 */
function checkComplexRule(a: Float64Array, n: number, uplo: Uplo, what: string): boolean {
  const want = zpotrfInfo(a, n, uplo);
  const r = firstStopComplex(a, n, uplo);
  const repaired = a.slice();
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
    const e = 2 * (i + j * n);
    if (i === j) {
      repaired[e + 1] = 0;
      if (!Number.isFinite(repaired[e]!) && repaired[e] !== Infinity) repaired[e] = 0.5;
    } else for (const p of [e, e + 1]) if (!Number.isFinite(repaired[p]!)) repaired[p] = 0.5;
  }
  const clean = zpotrfInfo(repaired, n, uplo);
  const agreeing = clean > 0 && clean <= r ? [clean] : [0, r + 1, r + 2, n, clean].filter((k) => r === SCAN_SENTINEL ? k === clean : true);
  // the message (the whole matrix) built only for a failure
  for (const v of agreeing) if (combine(v, r) !== want) assert.equal(combine(v, r), want, `${what}: n ${n} ${uplo} [${[...a].join(', ')}] vendor ${v}: info`);
  return r !== SCAN_SENTINEL;
}

/** A random n x n Hermitian matrix (pairs), diagonally dominant but where `fail` makes a diagonal entry negative; the diagonal's imaginary parts random (read by no one). */
function hermitian(rng: InstanceType<typeof Rng>, n: number, fail: number): Float64Array {
  const a = new Float64Array(2 * n * n);
  for (let j = 0; j < n; j++) for (let i = j + 1; i < n; i++) {
    const [re, im] = [rng.uniform(), rng.uniform()];
    a.set([re, im], 2 * (i + j * n));
    a.set([re, -im], 2 * (j + i * n));
  }
  for (let j = 0; j < n; j++) a.set([rng.next() < fail ? -rng.uniform(0, 1) : 2 * n + rng.uniform(0, 1), rng.uniform()], 2 * j * (n + 1));
  return a;
}

test('the complex potrf info rule gives the complex reference\'s info for NaN and infinities in either part, whatever the vendor does past them', () => {
  const rng = new Rng(11);
  const specials = [NaN, Infinity, -Infinity];
  let checked = 0, nonFinite = 0;
  // Every position of the referenced triangle (and its mirror), either part, each special, both uplo, on a
  // positive definite matrix and on one that fails at a known minor (before or after the special).
  for (let n = 1; n <= 5; n++) for (const uplo of ['lower', 'upper'] as const) for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
    for (const part of [0, 1]) for (const v of specials) for (const failAt of [-1, 0, n - 1]) {
      const a = hermitian(rng, n, 0);
      if (failAt >= 0) a[2 * failAt * (n + 1)] = -0.5;
      a[2 * (i + j * n) + part] = v;
      if (i !== j) a[2 * (j + i * n) + part] = part === 1 ? -v : v;
      if (checkComplexRule(a, n, uplo, `(${i}, ${j}) part ${part} = ${v}, fail at ${failAt}`)) nonFinite++;
      checked++;
    }
  }
  // Random matrices: up to three specials anywhere (either triangle), some failing diagonals.
  for (let trial = 0; trial < 3000; trial++) {
    const n = rng.int(1, 9);
    const uplo: Uplo = rng.next() < 0.5 ? 'lower' : 'upper';
    const a = hermitian(rng, n, 0.15);
    for (let s = rng.int(0, 3); s > 0; s--) a[2 * (rng.int(0, n - 1) + rng.int(0, n - 1) * n) + rng.int(0, 1)] = specials[rng.int(0, 2)]!;
    if (checkComplexRule(a, n, uplo, `trial ${trial}`)) nonFinite++;
    checked++;
  }
  assert.ok(nonFinite > 2000, `only ${nonFinite} of ${checked} matrices held a stopping value in the triangle`);
});

test('the complex scan: the diagonal\'s imaginary parts are never read as a stop (the reference ignores them) and its real +Inf is not one', () => {
  for (const uplo of ['lower', 'upper'] as const) {
    const a = new Float64Array(2 * 9).fill(0);
    for (let j = 0; j < 3; j++) a[2 * j * 4] = 4;
    a[2 * 4 + 1] = NaN; // (1, 1)'s imaginary part
    a[2 * 8] = Infinity; // (2, 2)'s real part
    assert.equal(firstStopComplex(a, 3, uplo), SCAN_SENTINEL);
    assert.equal(zpotrfInfo(a, 3, uplo), 0);
    a[2 * 8] = -Infinity;
    assert.equal(firstStopComplex(a, 3, uplo), 2);
    assert.equal(zpotrfInfo(a, 3, uplo), 3);
  }
  // The kernel text: the real part alone on the diagonal, whose imaginary part it zeroes; both parts off it.
  const src = potrfScanSource('float64', 'lower', 'pointer', 'complex').source;
  assert.match(src, /if \(i == j\) \{ stops = !finiteReal\(v\.x\) && !\(v\.x > MAXR\); a\[i \+ \(long long\)j \* ldA\]\.y = 0; \}/);
  assert.match(src, /else stops = !finiteReal\(v\.x\) \|\| !finiteReal\(v\.y\);/);
  assert.match(src, /real2\* const\* __restrict__ A/);
  assert.notEqual(potrfScanSource('float64', 'lower', 'pointer').entry, potrfScanSource('float64', 'lower', 'pointer', 'complex').entry);
  // The real scan's text is the real one still: no pair, read only.
  assert.doesNotMatch(potrfScanSource('float64', 'upper', 'strided').source, /real2|\.y = 0/);
});

test('complex potrf: cuSOLVER\'s z/cpotrfBatched first, asked with the complex type; false without the library; planned when forced', () => {
  assert.deepEqual(COMPLEX_ROUTES.potrf.map((c) => c.name), ['cusolver', 'potrf', 'cpu']);
  assert.equal(COMPLEX_ROUTES.potrf[0]!.capturable, false);
  const dev = new PlanningDevice(H200);
  const request = (dtype: 'complex128' | 'complex64', n: number, count: number, uplo: Uplo = 'lower') => ({
    uplo, a: strided(dev.alloc(dtype === 'complex128' ? 'float64' : 'float32', 2 * n * n * count), { rows: n, count, dtype }), info: dev.alloc('int32', count),
  });
  assert.deepEqual(vendor.complexPotrfQuery(request('complex128', 256, 512) as never), { op: 'potrf', route: 'cusolver', dtype: 'complex128', n: 256, count: 512 });
  assert.equal(vendor.complexPotrfQuery(request('complex64', 0, 4) as never), undefined);
  // 'upper' never asks the table (cuSOLVER's batched Cholesky wrote the lower triangle of the upper case), and forced it is refused.
  assert.equal(vendor.complexPotrfQuery(request('complex128', 256, 512, 'upper') as never), undefined);
  assert.throws(() => vendor.cusolverComplexPotrf(dev, request('complex128', 40, 3, 'upper') as never), (e: unknown) => (e as { code?: string }).code === 'UNSUPPORTED');
  const table = vendorTableFor(H200.name);
  // The card's complex rules: complex128 from 128 (count >= 128), complex64 from 256 (count >= 1024); n = 64 stays with the own kernels.
  for (const [dtype, n, count, inside] of [['complex128', 128, 2048, true], ['complex128', 512, 128, true], ['complex128', 64, 8192, false], ['complex128', 256, 64, false],
    ['complex64', 256, 1024, true], ['complex64', 128, 4096, false], ['complex64', 64, 16384, false]] as const) {
    const q = vendor.complexPotrfQuery(request(dtype, n, count) as never)!;
    assert.equal(vendorRuleFor(table, q) !== undefined, inside, `${dtype} n ${n} x ${count}`);
    // A real rule never answers the complex query (the real potrf's are single-matrix ones, float64 from 128).
    assert.equal(vendorRuleFor(table, { ...q, dtype: dtype === 'complex128' ? 'float64' : 'float32', count: 1 }) !== undefined, dtype === 'complex128' ? n >= 128 : n >= 256);
    assert.equal(vendorRuleFor(table, { ...q, count: 1 }), undefined, 'the complex rules are batched ones');
  }
  // The library does not load here: covers false, nothing thrown, the own kernels chosen; outside a capture a forced cusolver runs.
  const big = request('complex128', 256, 512);
  assert.equal(vendor.cusolverComplexPotrfCovers(big as never, dev), false);
  assert.equal(chooseComplex('potrf', big, dev).taken.route, 'potrf');
  assert.equal(chooseComplex('potrf', big, dev, 'cusolver').taken.route, 'cusolver');
  assert.throws(() => chooseComplex('potrf', big, dev, 'cusolver', true), /cannot be recorded in ctx.capture\(\)/);
  // Fakes never take it.
  const { dev: fake } = recordingDevice();
  assert.equal(vendor.cusolverComplexPotrfCovers(big as never, { ...fake, info: H200 } as typeof fake), false);
  // Forced on a device that runs nothing: the pointer table, the complex scan and the info kernel planned, no library called.
  vendor.cusolverComplexPotrf(dev, request('complex128', 40, 3) as never);
  vendor.cusolverComplexPotrf(dev, request('complex64', 128, 2) as never);
  assert.deepEqual([...new Set(dev.sources.map((s) => s.entry))].sort(), ['vendor_potrf_info', 'vendor_strided_pointers', 'vendor_zpotrf_scan_d_l_pa', 'vendor_zpotrf_scan_s_l_pa']);
});

test('complexPotrfPointersAt: the arguments checked, z or c by the parts\' type, calls of at most VENDOR_BATCH_MAX with the info array advanced', async () => {
  const { VendorSolver, VENDOR_BATCH_MAX } = await import('../../src/cuda/vendor/native.js');
  const calls: unknown[][] = [];
  const self = { callComplex: (...args: unknown[]) => { calls.push(args); } } as unknown as InstanceType<typeof VendorSolver>;
  const run = (...args: Parameters<InstanceType<typeof VendorSolver>['complexPotrfPointersAt']>) => VendorSolver.prototype.complexPotrfPointersAt.apply(self, args);
  const max = VENDOR_BATCH_MAX;
  run('float64', 'upper', 40, 1000n, 41, 8000n, max + 5);
  run('float32', 'lower', 128, 16n, 128, 32n, 3);
  assert.deepEqual(calls, [
    ['cusolverDnZpotrfBatched', 1, 40, 1000n, 41, 8000n, max],
    ['cusolverDnZpotrfBatched', 1, 40, 1000n + 8n * BigInt(max), 41, 8000n + 4n * BigInt(max), 5],
    ['cusolverDnCpotrfBatched', 0, 128, 16n, 128, 32n, 3],
  ]);
  for (const bad of [() => run('float64', 'lower', 40, 1000n, 39, 8000n, 1), () => run('float64', 'lower', 40, 0n, 40, 8000n, 1),
    () => run('float64', 'lower', 40, 1000n, 40, 0n, 1), () => run('float64', 'lower', 0, 1000n, 1, 8000n, 1), () => run('float64', 'lower', 4, 1000n, 4, 8000n, 0)]) {
    assert.throws(bad, (e: unknown) => (e as { code?: string }).code === 'LAYOUT' || (e as { code?: string }).code === 'INVALID_ARGUMENT');
  }
  assert.equal(calls.length, 3, 'nothing called for a refused argument');
});

test('the kernels around the vendor calls compile for sm_90', { skip: NVCC_SKIP }, async () => {
  const sources = [potrfScanSource('float64', 'lower', 'strided'), potrfScanSource('float32', 'upper', 'pointer'), potrfInfoSource(), getrfScatterSource(),
    potrfScanSource('float64', 'upper', 'pointer', 'complex'), potrfScanSource('float32', 'lower', 'strided', 'complex'),
    potrfScanSource('float64', 'lower', 'pointer', 'complex'), potrfScanSource('float32', 'upper', 'strided', 'complex'),
    syevPackSource('float64', 'upper', 'pointer'), syevPackSource('float32', 'lower', 'strided'), syevUnpackSource('float64', 'pointer', 'strided'),
    syevUnpackSource('float32', 'strided', 'pointer'), syevPackSource('float64', 'lower', 'pointer', 'complex'), syevPackSource('float32', 'upper', 'strided', 'complex'),
    syevUnpackSource('float64', 'strided', 'pointer', 'complex'), syevUnpackSource('float32', 'pointer', 'strided', 'complex'),
    getrfKeepSource('float64', 'strided', false), getrfKeepSource('float32', 'pointer', true), tinyDiagonalSource('float64', 'strided'), tinyDiagonalSource('float32', 'pointer'), tinyDiagonalSource('float64', 'pointer', 'complex'), tinyDiagonalSource('float32', 'strided', 'complex')];
  for (const r of await compileForSm90(sources)) assert.ok('report' in r, `${r.src.entry}: ${'error' in r ? r.error : ''}`);
});

test('the sweep: its grid, the rules its rows imply, and the table source (which compiles and reads back)', async () => {
  const { vendorGrid, rulesFromRows, tableSource, tableNames } = await import('../../src/bench/vendor-sweep.js');
  const ts = (await import('typescript')).default;
  const grid = vendorGrid(['gemm', 'potrf', 'getrf', 'syev'], ['float64', 'float32']);
  assert.ok(grid.length > 200 && grid.length < 260, `${grid.length} cases`);
  // gemm both ways in the real types: C = A B and C = A B + C, the same orders.
  const gemmOf = (betaZero: boolean) => grid.filter((c) => c.op === 'gemm' && c.dtype === 'float64' && c.betaZero === betaZero).map((c) => `${c.series} ${c.n}`);
  assert.ok(gemmOf(true).length > 30);
  assert.deepEqual(gemmOf(false), gemmOf(true));
  // Batched gemm just past the kernels' tile edges, where the padding is largest, and between the powers of two.
  const batchedGemm = grid.filter((c) => c.op === 'gemm' && c.series === 'batched' && c.dtype === 'float64' && c.betaZero === true).map((c) => c.n);
  for (const n of [33, 40, 48, 56, 63, 65, 72, 80, 144, 160, 288, 448]) assert.ok(batchedGemm.includes(n), `batched gemm at ${n}`);
  assert.ok(grid.every((c) => ROUTES[routedOp(c.op)].some((r) => r.name === c.route) && c.count >= 1));
  const row = (n: number, count: number, ratio: number, series: 'single' | 'batched') =>
    ({ op: 'gemm' as const, route: 'cublas' as const, dtype: 'float64' as const, series, n, count, own: 'gemm', ownMs: 1, vendorMs: ratio, ratio });
  const rules = rulesFromRows([
    row(16, 90000, 1.05, 'batched'), row(32, 40000, 0.84, 'batched'), row(64, 9000, 0.9, 'batched'), row(128, 2000, 0.83, 'batched'),
    row(256, 500, 0.87, 'batched'), row(512, 100, 1.1, 'batched'),
    row(1024, 1, 1.0, 'single'), row(2048, 1, 0.9, 'single'), row(4096, 1, 0.7, 'single'), row(8192, 1, 0.8, 'single'),
    { ...row(16, 1, NaN, 'single'), op: 'potrf' as const, route: 'cusolver' as const, error: 'failed' },
  ]);
  assert.deepEqual(rules.map((r) => [r.n, r.count, r.measured.length]), [[[32, 256], [500, Infinity], 4], [[2048, Infinity], [1, 1], 3]]);
  // The two ways of gemm are series of their own: their rules say which, and a query of the other never meets them.
  const ways = rulesFromRows([{ ...row(64, 9000, 0.9, 'batched'), betaZero: true }, { ...row(64, 9000, 1.1, 'batched'), betaZero: false },
    { ...row(128, 2000, 1.2, 'batched'), betaZero: true }, { ...row(128, 2000, 0.8, 'batched'), betaZero: false }]);
  assert.deepEqual(ways.map((r) => [r.n, r.betaZero]), [[[64, 64], true], [[128, Infinity], false]]);
  const waysTable: VendorTable = { card: 'x', provenance: 'test', rules: ways };
  const q = { op: 'gemm', route: 'cublas', dtype: 'float64', count: 9000 } as const;
  assert.ok(vendorRuleFor(waysTable, { ...q, n: 64, betaZero: true }));
  assert.equal(vendorRuleFor(waysTable, { ...q, n: 64, betaZero: false }), undefined);
  assert.equal(vendorRuleFor(waysTable, { ...q, n: 128, betaZero: true }), undefined);
  assert.ok(vendorRuleFor(waysTable, { ...q, n: 128, betaZero: false }));
  assert.equal(vendorRuleFor(waysTable, { ...q, n: 128 }), undefined, 'a query that does not say meets no rule that does');
  // A point just under the bound is written cut to three decimals, never rounded up onto it.
  const edge = rulesFromRows([row(64, 9000, 0.96996, 'batched')]);
  assert.equal(edge[0]!.measured[0]!.ratio, 0.969);
  assert.deepEqual(tableNames('NVIDIA H200'), { constant: 'h200VendorTable', file: 'vendor-h200.ts' });
  const source = tableSource('NVIDIA H200', 'test', 'node dist/scripts/vendor-sweep.js', rules);
  const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  const table = (await import(`data:text/javascript,${encodeURIComponent(js)}`) as { h200VendorTable: VendorTable }).h200VendorTable;
  assert.equal(table.card, 'NVIDIA H200');
  assert.deepEqual(table.rules, rules);
  const waysSource = tableSource('NVIDIA H200', 'test', 'node dist/scripts/vendor-sweep.js', ways);
  const waysJs = ts.transpileModule(waysSource, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  assert.deepEqual((await import(`data:text/javascript,${encodeURIComponent(waysJs)}`) as { h200VendorTable: VendorTable }).h200VendorTable.rules, ways);
});

test('the sweep at two counts: the solves\' large counts where they differ enough, and rules that route every measured row as it was measured', async () => {
  const { vendorGrid, rulesFromRows, SOLVE_LARGE_PER_SM } = await import('../../src/bench/vendor-sweep.js');
  const sms = 132, large = SOLVE_LARGE_PER_SM * sms;
  const grid = vendorGrid(['trsm', 'getrs', 'gesv'], ['float64', 'float32'], sms);
  const base = grid.filter((c) => c.level === undefined), big = grid.filter((c) => c.level === 'large');
  assert.deepEqual(base, vendorGrid(['trsm', 'getrs', 'gesv'], ['float64', 'float32']), 'the base cases as without the SMs');
  assert.ok(big.length > 0 && big.every((c) => c.count === large));
  for (const c of base) {
    const twin = big.find((b) => b.op === c.op && b.dtype === c.dtype && b.n === c.n && b.nrhs === c.nrhs);
    assert.equal(twin !== undefined, large >= 2 * c.count, `${c.op} ${c.dtype} ${c.n} x ${c.count}`);
  }
  assert.deepEqual(vendorGrid(['gemm', 'potrf'], ['float64'], sms), vendorGrid(['gemm', 'potrf'], ['float64']), 'only the solves');
  // Random verdicts on the grid's orders and counts: each measured row goes where it was faster.
  const rng = new Rng(31);
  for (let trial = 0; trial < 200; trial++) {
    const series = grid.filter((c) => c.op === 'getrs' && c.dtype === 'float64' && c.nrhs === 1);
    const rows = series.map((c) => {
      const ratio = rng.next() < 0.5 ? 0.5 + rng.next() * 0.46 : 0.98 + rng.next();
      return { ...c, own: 'getrs', ownMs: 1, vendorMs: ratio, ratio };
    });
    const table: VendorTable = { card: 'test', provenance: 'test', rules: rulesFromRows(rows) };
    for (const r of rows) {
      const rule = vendorRuleFor(table, { op: 'getrs', route: 'cublas', dtype: 'float64', n: r.n, count: r.count, nrhs: 1 });
      assert.equal(rule !== undefined, r.ratio < VENDOR_RATIO_MAX, `trial ${trial}: ${r.n} x ${r.count} at ${r.ratio.toFixed(2)}`);
      if (rule) assert.ok(rule.measured.some((p) => p.n === r.n && p.count === r.count), 'its rule names it');
    }
    for (const rule of table.rules) for (const p of rule.measured) assert.ok(p.ratio < VENDOR_RATIO_MAX && p.count >= rule.count[0] && p.count <= rule.count[1]);
  }
  // The three kinds of rule, on two orders measured at both counts.
  const row = (n: number, count: number, ratio: number, level?: 'large') => ({
    op: 'getrs' as const, route: 'cublas' as const, dtype: 'float64' as const, series: 'batched' as const, n, count, nrhs: 1, ...(level ? { level } : {}),
    own: 'getrs', ownMs: 1, vendorMs: ratio, ratio,
  });
  const kinds = (a: number, b: number) => rulesFromRows([row(128, 512, a), row(128, 2112, b, 'large'), row(256, 128, a), row(256, 2112, b, 'large')]).map((r) => [r.n, r.count]);
  assert.deepEqual(kinds(0.9, 0.9), [[[128, Infinity], [128, Infinity]]]);
  assert.deepEqual(kinds(0.9, 1.1), [[[128, Infinity], [128, 2111]]]);
  assert.deepEqual(kinds(1.1, 0.9), [[[128, Infinity], [2112, Infinity]]]);
  assert.deepEqual(kinds(1.1, 1.1), []);
});

test('the sweep: the solves\' cases, and the rules and source their rows give', async () => {
  const { vendorGrid, rulesFromRows, tableSource, rowsMarkdown, SOLVE_MANY, SOLVE_NRHS, solveNrhsRange } = await import('../../src/bench/vendor-sweep.js');
  const ts = (await import('typescript')).default;
  const grid = vendorGrid(['trsm', 'getrs', 'gesv'], ['float64', 'float32']);
  assert.equal(grid.length, 360);
  assert.ok(grid.every((c) => ROUTES[routedOp(c.op)].some((r) => r.name === c.route) && c.count >= 1 && c.nrhs !== undefined && c.n >= 8 && c.n <= 512));
  assert.deepEqual([...new Set(grid.filter((c) => c.op === 'trsm').map((c) => `${c.nrhs} ${c.side}`))], SOLVE_NRHS.map((k) => `${k} left`));
  assert.ok(vendorGrid(['gemm', 'potrf', 'getrf', 'syev', 'trsm', 'getrs', 'gesv'], ['float64', 'float32']).length <= 620, 'the whole sweep stays near 600 cases');
  // The series' ranges of right-hand sides cover every nrhs once: 1, 2-3, 4-7, 8-15, SOLVE_MANY and more.
  assert.deepEqual(SOLVE_NRHS.map(solveNrhsRange), [[1, 1], [2, 3], [4, 7], [8, SOLVE_MANY - 1], [SOLVE_MANY, Infinity]]);
  for (let k = 1; k <= 40; k++) assert.equal(SOLVE_NRHS.map(solveNrhsRange).filter(([lo, hi]) => k >= lo && k <= hi).length, 1, `nrhs ${k}`);
  assert.throws(() => solveNrhsRange(3), /no solve series of 3/);
  const row = (op: 'trsm' | 'getrs', n: number, nrhs: number, ratio: number) => ({
    op, route: 'cublas' as const, dtype: 'float64' as const, series: 'batched' as const, n, count: 1000, nrhs,
    ...(op === 'trsm' ? { side: 'left' as const } : {}), own: op, ownMs: 1, vendorMs: ratio, ratio,
  });
  const rows = [row('trsm', 8, 1, 1.2), row('trsm', 64, 1, 0.9), row('trsm', 512, 1, 0.8), row('trsm', 8, 16, 0.5), row('trsm', 512, 16, 1.5), row('getrs', 8, 16, 0.9),
    row('getrs', 128, 4, 0.9), row('getrs', 256, 4, 1.1)];
  const rules = rulesFromRows(rows);
  assert.deepEqual(rules.map((r) => [r.op, r.side, r.n, r.nrhs]), [
    ['trsm', 'left', [64, Infinity], [1, 1]], ['trsm', 'left', [8, 8], [16, Infinity]], ['getrs', undefined, [8, Infinity], [16, Infinity]],
    ['getrs', undefined, [128, 128], [4, 7]],
  ]);
  assert.match(rowsMarkdown(rows), /\| trsm \(nrhs 16, left\) \|/);
  const source = tableSource('NVIDIA H200', 'test', 'node dist/scripts/vendor-sweep.js', rules);
  const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  const table = (await import(`data:text/javascript,${encodeURIComponent(js)}`) as { h200VendorTable: VendorTable }).h200VendorTable;
  assert.deepEqual(table.rules, rules);
});

test('complex gemm: the sweep measures gemm, trsm and batched potrf alone in the complex types, and the card\'s rules route gemm', async () => {
  const { vendorGrid } = await import('../../src/bench/vendor-sweep.js');
  const all = vendorGrid(['gemm', 'potrf', 'getrf', 'syev', 'trsm', 'getrs', 'gesv'], ['complex128', 'complex64']);
  assert.deepEqual(new Set(all.map((c) => `${c.op} ${c.route}`)), new Set(['gemm cublas', 'trsm cublas', 'potrf cusolver']));
  // Complex potrf: cuSOLVER's z/cpotrfBatched at 64 ... 512 with 512 MiB of matrices (the bench's counts, which the table's rules hold).
  assert.deepEqual(vendorGrid(['potrf'], ['complex128', 'complex64']).map((c) => [c.dtype, c.series, c.n, c.count]), [
    ['complex128', 'batched', 64, 8192], ['complex128', 'batched', 128, 2048], ['complex128', 'batched', 256, 512], ['complex128', 'batched', 512, 128],
    ['complex64', 'batched', 64, 16384], ['complex64', 'batched', 128, 4096], ['complex64', 'batched', 256, 1024], ['complex64', 'batched', 512, 256],
  ]);
  // The real potrf series as they were (batched 256 ... 1024, single-matrix), never the complex one's orders.
  const realPotrf = vendorGrid(['potrf'], ['float64']);
  assert.deepEqual(realPotrf.filter((c) => c.series === 'batched').map((c) => c.n), [256, 512, 1024]);
  assert.equal(realPotrf.filter((c) => c.series === 'single').length, 11);
  const complex = all.filter((c) => c.op === 'gemm');
  assert.deepEqual(new Set(complex.map((c) => c.dtype)), new Set(['complex128', 'complex64']));
  // The same sizes as the real gemm series, the counts by the complex element's bytes (twice the real one's).
  const real = vendorGrid(['gemm'], ['float64']).filter((c) => c.betaZero === true);
  assert.deepEqual(complex.filter((c) => c.dtype === 'complex128').map((c) => [c.series, c.n]), real.map((c) => [c.series, c.n]));
  const at = (dtype: 'float64' | 'complex128', n: number) => (dtype === 'float64' ? real : complex).find((c) => c.dtype === dtype && c.n === n && c.series === 'batched')!;
  assert.ok(Math.abs(at('complex128', 64).count - at('float64', 64).count / 2) <= 1);
  const h200 = vendorTableFor('NVIDIA H200');
  const q = { op: 'gemm', route: 'cublas', n: 256, count: 100 } as const;
  for (const dtype of ['complex128', 'complex64'] as const) {
    const rule = vendorRuleFor(h200, { ...q, dtype });
    assert.ok(rule !== undefined && rule.dtype === dtype, `${dtype}: a rule at 256`);
  }
  // A real rule never answers a complex query, nor the reverse.
  assert.ok(h200!.rules.some((r) => r.dtype === 'complex128'), 'the card has complex128 rules');
  assert.ok(h200!.rules.filter((r) => r.dtype === 'complex128').every((r) => vendorRuleFor({ ...h200!, rules: [r] }, { ...q, n: r.n[0], count: r.count[0], dtype: 'float64' }) === undefined));
  // Where the sweep found no gain (complex64 at 128: the own kernel tied), the own route keeps it.
  assert.equal(vendorRuleFor(h200, { ...q, dtype: 'complex64', n: 128, count: 682 }), undefined);
});

test('complex batches: the vendor routes address pairs (ld, offset and bounds in complex elements), and complex trsm asks its own rules', async () => {
  const { matrixAddress } = await import('../../src/cuda/vendor/groups.js');
  const { COMPLEX_ROUTES } = await import('../../src/cuda/router.js');
  // A buffer of 40 doubles: 20 pairs. Matrix 1 of a 3 x 2 complex batch (ld 4, stride 8, offset 2) starts at pair 10 = byte 160.
  const dev = new PlanningDevice(H200);
  const data = { ...dev.alloc('float64', 40), ptr: 1000n };
  const z = strided(data, { rows: 3, cols: 2, ld: 4, stride: 8, offset: 2, count: 2, dtype: 'complex128' });
  assert.deepEqual(matrixAddress(z, 1, 'b'), { address: 1000n + 160n, rows: 3, cols: 2, ld: 4 });
  // The same numbers as a real batch: element 10 = byte 80.
  const x = strided(data, { rows: 3, cols: 2, ld: 4, stride: 8, offset: 2, count: 2 });
  assert.deepEqual(matrixAddress(x, 1, 'b'), { address: 1000n + 80n, rows: 3, cols: 2, ld: 4 });
  // A complex matrix ending past the 20 pairs is refused (as a real one would not be: 40 doubles).
  const past = { ...z, offset: 9 };
  assert.throws(() => matrixAddress(past, 1, 'b'), (e: unknown) => (e as { code?: string }).code === 'BOUNDS' && /does not fit its 20 elements/.test((e as Error).message));
  assert.equal(matrixAddress({ ...x, offset: 9 }, 1, 'b').address, 1000n + 8n * 17n);
  // The complex trsm list asks cuBLAS first, inside the complex rules only.
  assert.deepEqual(COMPLEX_ROUTES.trsm.map((c) => c.name).slice(0, 2), ['cublas', 'trsm']);
  const query = (await import('../../src/cuda/vendor/trsm.js')).trsmQuery;
  const b = strided(dev.alloc('float64', 2 * 32 * 16 * 4), { rows: 32, cols: 16, count: 4, dtype: 'complex128' });
  const a = strided(dev.alloc('float64', 2 * 32 * 32 * 4), { rows: 32, cols: 32, count: 4, dtype: 'complex128' });
  const req = { a, b, side: 'left', uplo: 'lower', transA: 'C', diag: 'non-unit', alpha: [1, 0] } as const;
  assert.deepEqual(query(req as never), { op: 'trsm', route: 'cublas', dtype: 'complex128', side: 'left', n: 32, nrhs: 16, count: 4 });
  assert.equal(query({ ...req, alpha: [0, 0] } as never), undefined);
  assert.equal(vendor.cublasComplexTrsmCovers(req as never, dev), false, 'the library does not load here');
});

test("complex heev: the H200's rules for 'syev' on the complex type; forced on a device that runs nothing, the heev pack and unpack are planned", () => {
  const dev = new PlanningDevice(H200);
  const table = vendorTableFor(H200.name);
  const q = (dtype: 'complex128' | 'complex64', n: number, count: number, jobz: 'vectors' | 'values' = 'vectors') =>
    vendorRuleFor(table, { op: 'syev', route: 'cusolver', dtype, n, count, jobz }) !== undefined;
  assert.ok(q('complex128', 128, 500) && q('complex128', 1024, 20) && q('complex64', 64, 2000));
  assert.ok(!q('complex128', 64, 2000) && !q('complex128', 33, 30000) && !q('complex64', 33, 60000), 'the own design where it won');
  assert.ok(!q('complex128', 256, 100, 'values'), 'values only: not measured, own');
  assert.ok(!q('complex128', 32, 10000) && !q('complex64', 32, 20000) && !q('complex128', 31, 10000) && !q('complex64', 24, 10000), 'to 32 the own rows design (ahead at every order measured)');
  // The library does not load here: covers is false, the own route runs.
  const n = 128, count = 4;
  const heev = { jobz: 'vectors' as const, uplo: 'upper' as const, a: strided(dev.alloc('float64', 2 * n * n * count), { rows: n, count, dtype: 'complex128' as const }),
    w: strided(dev.alloc('float64', n * count), { rows: n, cols: 1, count }), info: dev.alloc('int32', count) };
  assert.equal(vendor.cusolverHeevCovers(heev as never, dev), false);
  vendor.cusolverHeev(dev, heev as never);
  assert.deepEqual(dev.sources.map((s) => s.entry).sort(), ['vendor_heev_pack_d_u_st', 'vendor_heev_unpack_d_st_st']);
});

test("one product of the TSM2R shape: the H200's rules of op 'tsm2r' on C's columns (float64 n = 8-32, float32 32), asked before the tsm2 route", () => {
  const table = vendorTableFor(H200.name);
  const q = (dtype: 'float64' | 'float32', n: number) => vendorRuleFor(table, { op: 'tsm2r', route: 'cublas', dtype, n, count: 1 }) !== undefined;
  assert.ok(q('float64', 8) && q('float64', 16) && q('float64', 32));
  assert.ok(q('float32', 32));
  assert.ok(!q('float64', 4) && !q('float64', 1) && !q('float32', 31) && !q('float32', 16));
  assert.equal(vendorRuleFor(table, { op: 'tsm2r', route: 'cublas', dtype: 'float64', n: 16, count: 2 }), undefined, 'one product only');
  assert.deepEqual(ROUTES.gemm.slice(0, 2).map((c) => c.name), ['cublas', 'tsm2']);
  assert.equal(routedOp('tsm2r'), 'gemm');
});

test("the cuBLAS gemm candidate's question: 'tsm2r' on C's columns for a TSM2R product, none for a TSM2L one (TSM2L measured ahead), 'gemm' on the cube root otherwise", () => {
  const dev = new PlanningDevice(H200);
  const one = (m: number, n: number, k: number) => ({
    transA: 'N' as const, transB: 'N' as const, alpha: 1, beta: 0,
    a: strided(dev.alloc('float64', m * k), { rows: m, cols: k, count: 1 }), b: strided(dev.alloc('float64', k * n), { rows: k, cols: n, count: 1 }),
    c: strided(dev.alloc('float64', m * n), { rows: m, cols: n, count: 1 }),
  });
  assert.deepEqual(vendor.gemmVendorQuery(one(10240, 16, 10240) as never, dev), { op: 'tsm2r', route: 'cublas', dtype: 'float64', n: 16, count: 1 });
  assert.equal(vendor.gemmVendorQuery(one(1 << 20, 16, 16) as never, dev), undefined, 'TSM2L: the tsm2 route');
  assert.equal(vendor.gemmVendorQuery(one(65536, 8, 32) as never, dev), undefined, 'TSM2L: the tsm2 route');
  assert.deepEqual(vendor.gemmVendorQuery(one(512, 512, 512) as never, dev), { op: 'gemm', route: 'cublas', dtype: 'float64', n: 512, count: 1, betaZero: true });
  assert.deepEqual(vendor.gemmVendorQuery({ ...one(512, 512, 512), beta: -1 } as never, dev), { op: 'gemm', route: 'cublas', dtype: 'float64', n: 512, count: 1, betaZero: false });
});
