/**
 * getrf's blocked large-path driver without a GPU (getrf/plan.ts getrfBlockedSteps, launch.ts
 * getrfPanels): its steps run with the CPU (dgetf2 on the leaves, dlaswp for the swaps and each
 * panel's interchange, trsm, gemm) equal dgetrf (factors, pivots, info; square, tall, wide,
 * singular; the side stream's updates run at once and as late as the join allows); a symbolic run
 * that every column is factored once and gets every pivot exactly once in LAPACK's order, and that
 * the main stream leaves the side's columns alone until it joins; when it applies and its panel
 * width; its launches on a counting device against the recursion's (with the wide leaves: a few a
 * panel); the swaps kernel and the wide leaf compile.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { strided } from '../../src/core/batch.js';
import { cpuGemm } from '../../src/cpu/gemm.js';
import { getrfMatrix } from '../../src/cpu/lapack/index.js';
import { cpuTrsm } from '../../src/cpu/trsm.js';
import { getrfBlocked, getrfBlockedSteps, getrfCuda, getrfMidBand, registerShapeFor, getrfPanelWidth, getrfSpreadSource, getrfWideLeaf, getrfSwapsSource, getrfWideSource, SPREAD_THREADS, SPREAD_WIDTH, spreadShape, spreadSharedBytes, tallShape, wideSharedBytes, wideSubBlock, type GetrfBlockedStep } from '../../src/cuda/kernels/getrf/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { CudaError } from '../../src/cuda/runtime/errors.js';
import type { Kernel, KernelSource } from '../../src/cuda/runtime/types.js';
import { FakeDevice } from '../helpers/fake-gpus.js';
import { FULL_COMPILE, NVCC_SKIP, compileFailures, compileForSm90 } from '../helpers/nvcc.js';
import { Rng } from '../helpers/random.js';

const T = tuningFor('sm_90', 'getrf');

/** dlaswp of pivots from ... to-1 on the columns `cols` (0-based rows in piv). */
function swapRows(a: Float64Array, ld: number, piv: Int32Array, from: number, to: number, cols: Iterable<number>): void {
  for (const c of cols) for (let k = from; k < to; k++) {
    const p = piv[k]!, x = a[k + c * ld]!;
    a[k + c * ld] = a[p + c * ld]!; a[p + c * ld] = x;
  }
}
/** lo, lo + 1, ..., hi - 1 (a plain loop: the symbolic test asks for some millions). */
function range(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let i = lo; i < hi; i++) out.push(i);
  return out;
}

/** The blocked steps run with the CPU; `late`: side updates wait for their join (else they run at once). */
function runBlocked(a: Float64Array, m: number, n: number, ld: number, piv: Int32Array, steps: readonly GetrfBlockedStep[], late: boolean): number {
  let info = 0;
  const sub = (r0: number, c0: number, rows: number, cols: number) => strided(a, { rows, cols, count: 1, ld, stride: 0, offset: r0 + c0 * ld });
  const update = (s: Extract<GetrfBlockedStep, { kind: 'update' }>): void => {
    const below = m - s.off - s.top;
    if (below > 0) cpuGemm({ transA: 'N', transB: 'N', alpha: -1, beta: 1, a: sub(s.off + s.top, s.off, below, s.top), b: sub(s.off, s.col, s.top, s.cols), c: sub(s.off + s.top, s.col, below, s.cols) });
  };
  const pending: Extract<GetrfBlockedStep, { kind: 'update' }>[] = [];
  for (const s of steps) {
    switch (s.kind) {
      case 'panel': {
        const local = new Int32Array(s.width);
        const i = getrfMatrix(a, s.off + s.off * ld, ld, m - s.off, s.width, local, 0);
        local.forEach((p, j) => { piv[s.off + j] = s.off + p; });
        if (info === 0 && i > 0) info = s.off + i;
        break;
      }
      case 'swap': swapRows(a, ld, piv, s.from, s.to, range(s.col, s.col + s.cols)); break;
      case 'interchange': swapRows(a, ld, piv, s.from, s.to, [...range(0, s.from), ...range(s.to, n)]); break;
      case 'solve': cpuTrsm({ side: 'left', uplo: 'lower', transA: 'N', diag: 'unit', alpha: 1, a: sub(s.off, s.off, s.top, s.top), b: sub(s.off, s.col, s.top, s.cols) }); break;
      case 'update': if (s.side && late) pending.push(s); else update(s); break;
      case 'join': pending.splice(0).forEach(update); break;
    }
  }
  assert.equal(pending.length, 0, 'every side update joined');
  return info;
}

const leafRules: readonly [string, (rows: number) => number][] = [
  ['16', () => 16], ['4/8/16 by rows', (rows) => (rows > 100 ? 4 : rows > 50 ? 8 : 16)], ['1', () => 1], ['table f64', (rows) => tallShape('float64', rows, T.recursion).nb],
];

test('the blocked LU\'s steps give dgetrf\'s factors, pivots and info (square, tall, wide, singular; lookahead in either schedule)', () => {
  const rng = new Rng(1301);
  for (const [m, n] of [[1, 1], [5, 3], [3, 5], [64, 64], [100, 100], [257, 257], [300, 130], [130, 300], [200, 201], [97, 250]] as const) {
    const big = m * n > 20_000;   // the larger shapes: one leaf rule and one zero column per panel width (CI time)
    // (the table's leaf is 16 wide below 512 rows: the '16' rule there)
    const rules = leafRules.filter((r) => r[0] !== 'table f64' && (r[0] !== '1' || Math.max(m, n) <= 100));
    // (128 on the small shapes: one panel holding every column, as the batch band's, where no interchange follows it)
    for (const nb of big ? [32, 64] : [32, 64, 128]) for (const [leafName, leaf] of big ? leafRules.filter((r) => r[0] === (nb === 32 ? 'table f64' : '4/8/16 by rows')) : rules) {
      const zeros = big ? [nb === 32 ? -1 : Math.floor(Math.min(m, n) / 3)] : [-1, Math.floor(Math.min(m, n) / 3), Math.min(m, n) - 1];
      for (const zero of zeros) for (const [lookahead, late] of zero < 0 ? [[false, false], [true, false], [true, true]] as const : [[false, false], [true, true]] as const) {
        const ld = m + 3;
        const a = new Float64Array(ld * n + 2);
        for (let e = 0; e < a.length; e++) a[e] = rng.uniform();
        if (zero >= 0) for (let i = 0; i < m; i++) a[i + zero * ld] = 0;
        const want = a.slice(), wantPiv = new Int32Array(Math.min(m, n));
        const wantInfo = getrfMatrix(want, 0, ld, m, n, wantPiv, 0);
        const piv = new Int32Array(Math.min(m, n)).fill(-1);
        const info = runBlocked(a, m, n, ld, piv, getrfBlockedSteps(m, n, nb, leaf, lookahead), late);
        const what = `${m}x${n} nb=${nb} leaf ${leafName} zero column ${zero} lookahead ${lookahead}${late ? ' (side late)' : ''}`;
        assert.equal(info, wantInfo, `${what}: info`);
        if (zero >= 0 && Math.min(m, n) > 1) assert.equal(info, zero + 1, `${what}: info names the zero column`);
        assert.deepEqual([...piv], [...wantPiv], `${what}: pivots`);
        // The first element beyond the bound, if any (its message built only then: one per element cost seconds).
        const bad = a.findIndex((x, e) => !(Math.abs(x - want[e]!) <= 1e-11 * Math.max(m, n)));
        assert.equal(bad, -1, `${what}: element ${bad} ${a[bad]} vs ${want[bad]}`);
      }
    }
  }
  assert.deepEqual(getrfBlockedSteps(0, 5, 32, () => 16), []);
  assert.throws(() => getrfBlockedSteps(10, 10, 0, () => 16), /panelWidth/);
});

test('symbolically: every column factored once, every pivot applied to every column once in order, the side left alone until joined', () => {
  // Sizes that cover several panels, a short last panel, tall and wide (CI time: the check is quadratic a step).
  for (const [m, n] of [[1025, 1025], [600, 300], [300, 600], [130, 300], [100, 100], [200, 96], [96, 200]] as const) for (const nb of [32, 128]) {
    for (const lookahead of [false, true]) {
      const steps = getrfBlockedSteps(m, n, nb, (rows) => tallShape('float64', rows, T.recursion).nb, lookahead);
      const k = Math.min(m, n);
      const what = `${m}x${n} nb=${nb} lookahead ${lookahead}`;
      const applied: number[][] = Array.from({ length: n }, () => []);
      const factored = new Int32Array(k);
      // Columns the side stream writes (update targets) and reads (A21's columns) until the next join.
      let sideWrites = new Set<number>(), sideReads = new Set<number>();
      const mainTouches = (cols: Iterable<number>, why: string): void => {
        for (const c of cols) if (sideWrites.has(c) || sideReads.has(c)) assert.fail(`${what}: ${why} touches column ${c} while the side uses it`);
      };
      let panels = 0, perPanel = 0, mostPerPanel = 0;
      for (const s of steps) {
        if (s.kind !== 'join') perPanel++;
        switch (s.kind) {
          case 'panel':
            mainTouches(range(s.off, s.off + s.width), 'a leaf');
            for (const c of range(s.off, s.off + s.width)) { factored[c]!++; applied[c]!.push(...range(s.off, s.off + s.width)); }
            break;
          case 'swap':
            mainTouches(range(s.col, s.col + s.cols), 'a swap');
            for (const c of range(s.col, s.col + s.cols)) applied[c]!.push(...range(s.from, s.to));
            break;
          case 'interchange': {
            const outside = [...range(0, s.from), ...range(s.to, n)];
            mainTouches(outside, 'an interchange');
            for (const c of outside) applied[c]!.push(...range(s.from, s.to));
            panels++;
            mostPerPanel = Math.max(mostPerPanel, perPanel);
            perPanel = 0;
            break;
          }
          case 'solve': mainTouches(range(s.col, s.col + s.cols), 'a solve'); break;
          case 'update':
            if (s.side) {
              for (const c of range(s.col, s.col + s.cols)) sideWrites.add(c);
              for (const c of range(s.off, s.off + s.top)) sideReads.add(c);
            } else {
              mainTouches(range(s.col, s.col + s.cols), 'an update');
            }
            break;
          case 'join': sideWrites = new Set(); sideReads = new Set(); break;
        }
      }
      assert.equal(sideWrites.size, 0, `${what}: joined at the end`);
      assert.deepEqual([...factored], new Array<number>(k).fill(1), `${what}: every column in one leaf`);
      for (let c = 0; c < n; c++) {
        const got = applied[c]!;
        // deepEqual only where the plain comparison fails (n deep comparisons of k pivots cost seconds)
        if (got.length !== k || got.some((p, i) => p !== i)) assert.deepEqual(got, range(0, k), `${what}: column ${c} gets pivots 0 ... ${k - 1} in order, once each`);
      }
      // (a panel holding every column has nothing to interchange)
      const allInOne = k <= nb && n === k;
      assert.equal(panels, allInOne ? 0 : Math.ceil(k / nb), `${what}: one interchange a panel`);
      const interchanges = steps.filter((s) => s.kind === 'interchange');
      interchanges.forEach((s, i) => assert.deepEqual([s.from, s.to], [i * nb, Math.min(k, (i + 1) * nb)]));
      assert.equal(steps.some((s) => s.kind === 'update' && s.side), lookahead && n > 2 * nb && m > nb, `${what}: the side stream used`);
      if (m === 1025 && !lookahead) console.log(`  1025 float64, nb = ${nb}: ${steps.length} steps, ${panels} panels, at most ${mostPerPanel} a panel`);
    }
  }
});

test('when the blocked driver applies, its panel width and lookahead: the table, force overrides', () => {
  assert.equal(getrfBlocked('float64', 4096, 4096, T.blocked), 4096 >= T.blocked.minN.float64);
  assert.equal(getrfBlocked('float64', 4096, 4096, T.blocked, false), false);
  assert.equal(getrfBlocked('float32', 10, 10, { ...T.blocked, minN: { float64: 0, float32: 2048 } }), false, 'per dtype');
  assert.equal(getrfBlocked('float32', 10, 3000, { ...T.blocked, minN: { float64: 0, float32: 2048 } }), true, 'by max(rows, cols)');
  for (const n of [256, 1000, 2048, 4096, 10_000]) for (const dtype of ['float64', 'float32'] as const) for (const count of [1, 2, 8]) {
    const nb = getrfPanelWidth(dtype, n, n, count, T.blocked);
    assert.ok(nb >= 32 && nb % 32 === 0, `${dtype} ${n} x ${count}: panel ${nb}`);
  }
  const bands = { float64: [{ maxN: 100, nb: 32 }, { maxN: Infinity, nb: 64 }], float32: [{ maxN: Infinity, nb: 96 }] };
  const batch = { float64: [{ maxN: Infinity, nb: 256 }], float32: [{ maxN: Infinity, nb: 128 }] };
  const t = { ...T.blocked, panel: bands, panelBatch: batch };
  assert.equal(getrfPanelWidth('float64', 50, 100, 1, t), 32, 'one matrix: the panel table, by max(rows, cols)');
  assert.equal(getrfPanelWidth('float64', 101, 5, 1, t), 64);
  assert.equal(getrfPanelWidth('float64', 50, 100, 2, t), 256, 'two or more: the batch table');
  assert.equal(getrfPanelWidth('float32', 50, 100, 1, t), 96, 'per dtype');
  assert.equal(getrfPanelWidth('float32', 50, 100, 3, t), 128);
  // A batch band's wideLeaf replaces the table's for its batches only.
  const leafBands = { float64: [{ maxN: 256, nb: 128, wideLeaf: 0 }, { maxN: Infinity, nb: 64 }], float32: [{ maxN: Infinity, nb: 64, wideLeaf: 32 }] };
  const tl = { ...T.blocked, panelBatch: leafBands, wideLeaf: { float64: 64, float32: 64 } };
  assert.equal(getrfWideLeaf('float64', 96, 96, 2, tl), 0, "the batch band's");
  assert.equal(getrfWideLeaf('float64', 96, 256, 7000, tl), 0, 'by max(rows, cols)');
  assert.equal(getrfWideLeaf('float64', 257, 257, 7000, tl), 64, "a band without one: the table's");
  assert.equal(getrfWideLeaf('float64', 96, 96, 1, tl), 64, "one matrix: the table's");
  assert.equal(getrfWideLeaf('float32', 96, 96, 3, tl), 32, 'per dtype');
});

class LaunchCounter extends FakeDevice {
  launches = 0;
  readonly names = new Map<string, number>();
  sides = 0;
  joins = 0;
  override kernel(src?: KernelSource): Kernel {
    const entry = src!.entry.replace(/_t\d+_r\d+|_nb\d+/g, '');
    return { name: entry, registers: 32, staticSharedBytes: 0, localBytes: 0, maxThreadsPerBlock: 1024,
      launch: () => { this.launches++; this.names.set(entry, (this.names.get(entry) ?? 0) + 1); } };
  }
  side(fn: () => void): void { this.sides++; fn(); }
  joinSide(): void { this.joins++; }
}

test('on a device: fewer launches than the recursion, one interchange launch a panel, the side stream forked and joined', () => {
  const dev = new LaunchCounter(0, []);
  for (const n of [1024, 4096]) {
    const a = strided(dev.alloc('float64', n * n), { rows: n, count: 1 });
    const ipiv = dev.alloc('int32', n), info = dev.alloc('int32', 1);
    const run = (force: NonNullable<Parameters<typeof getrfCuda>[2]>['force']): number => {
      dev.launches = 0; dev.names.clear(); dev.sides = 0; dev.joins = 0;
      getrfCuda(dev, { a, ipiv, pivotStride: n, info }, { force });
      return dev.launches;
    };
    const recursion = run({ recursive: true, panels: false });
    assert.equal(dev.names.has('getrf_swaps_d_st'), false, 'the recursion keeps its laswp');
    const laswp = dev.names.get('getrf_laswp_d_st')!;
    const leaves = dev.names.get('getrf_tall_d_st')!;
    // The table's wide leaves: one leaf launch a panel of 64, a few launches a panel in all.
    for (const nb of [64, 128]) {
      const blocked = run({ recursive: true, panels: true, panelWidth: nb, lookahead: false });
      const panels = Math.ceil(n / nb);
      assert.equal(dev.names.get('getrf_wide_d_w64_st'), n / 64, `n = ${n} nb = ${nb}: one wide leaf a 64 columns`);
      assert.equal(dev.names.has('getrf_tall_d_st'), false, 'no tall leaf');
      // A panel of 64: its leaf, the interchange, trsm, GEMM; of 128: two leaves and the split's four between them.
      assert.ok(blocked <= (nb === 64 ? 8 : 18) * panels, `n = ${n} nb = ${nb}: ${blocked} launches for ${panels} panels`);
      console.log(`  n = ${n}: recursion ${recursion} launches, blocked nb = ${nb} with wide leaves ${blocked} (${(blocked / panels).toFixed(1)} a panel: ${JSON.stringify([...dev.names])})`);
    }
    for (const nb of [64, 128]) {
      const blocked = run({ recursive: true, panels: true, panelWidth: nb, lookahead: false, wideLeaf: 0 });
      assert.ok(blocked < recursion, `n = ${n} nb = ${nb}: blocked ${blocked} launches against the recursion's ${recursion}`);
      assert.equal(dev.names.has('getrf_laswp_d_st'), false);
      assert.equal(dev.names.get('getrf_tall_d_st'), leaves, 'the same leaves');
      // Swaps: the recursion's inside the panels, and one a panel for all the other columns.
      assert.ok(dev.names.get('getrf_swaps_d_st')! < laswp, `${dev.names.get('getrf_swaps_d_st')} swaps launches against ${laswp} laswp`);
      console.log(`  n = ${n}: recursion ${recursion} launches (${laswp} laswp), blocked nb = ${nb} with tall leaves ${blocked} (${dev.names.get('getrf_swaps_d_st')} swaps, ${leaves} leaves)`);
      const withSide = run({ recursive: true, panels: true, panelWidth: nb, lookahead: true, wideLeaf: 0 });
      assert.equal(dev.sides, Math.ceil(n / nb) - 2, 'a side update for every panel with more than one panel after it');
      assert.equal(dev.joins, dev.sides, 'each joined once');
      assert.equal(withSide, blocked + dev.sides, 'one more GEMM a fork');
    }
    assert.throws(() => run({ recursive: true, panels: true, panelWidth: 48 }), /panelWidth/);
    assert.throws(() => run({ recursive: true, panels: true, wideLeaf: 65 }), /wideLeaf/);
  }
});

test('a batch of mid-size matrices: one panel of 128 with tall leaves from the batch band (float64 96), wide leaves of 32 (float32 160)', () => {
  const dev = new LaunchCounter(0, []);
  const run = (dtype: 'float64' | 'float32', n: number, count: number): Map<string, number> => {
    const a = strided(dev.alloc(dtype, n * n * count), { rows: n, count });
    const ipiv = dev.alloc('int32', n * count), info = dev.alloc('int32', count);
    dev.launches = 0; dev.names.clear();
    getrfCuda(dev, { a, ipiv, pivotStride: n, info });
    return new Map(dev.names);
  };
  const perSm = (dtype: 'float64' | 'float32', n: number): number => getrfMidBand(T.recursion, dtype, n)!.perSm;
  const f64 = run('float64', 96, perSm('float64', 96) * dev.info.smCount);
  assert.ok(f64.get('getrf_tall_d_st')! >= 96 / 16, `tall leaves of at most 16 columns: ${JSON.stringify([...f64])}`);
  assert.ok(![...f64.keys()].some((k) => k.startsWith('getrf_wide') || k.startsWith('getrf_reg')), 'no wide leaf, no register kernel');
  assert.equal(f64.get('getrf_swaps_d_st'), (f64.get('getrf_tall_d_st')! - 1) * 2, 'one panel: the recursion\'s swaps alone (two a split), no interchange after it');
  assert.equal(f64.get('getrf_tall_d_st'), 6, 'leaves of 16');
  const few = run('float64', 96, perSm('float64', 96) * dev.info.smCount - 1);
  assert.deepEqual([...few.keys()].filter((k) => k.startsWith('getrf_reg')).length, 1, `fewer an SM: the register design (${JSON.stringify([...few])})`);
  const f32 = run('float32', 160, perSm('float32', 160) * dev.info.smCount);
  assert.equal(f32.get('getrf_wide_s_w32_st'), 5, `a wide leaf a 32 columns: ${JSON.stringify([...f32])}`);
});

test('a register band\'s few shape: batches of at most maxPerSm matrices an SM take it (float64 72 on the sm_90 table)', () => {
  const band = { maxN: 80, shape: { warps: 4, nb: 2, minBlocks: 4 }, few: { maxPerSm: 2, shape: { warps: 8, nb: 2, minBlocks: 2 } } };
  assert.equal(registerShapeFor(band, 264, 132), band.few.shape);
  assert.equal(registerShapeFor(band, 265, 132), band.shape);
  assert.equal(registerShapeFor(band), band.shape, 'no count: the band\'s shape');
  assert.equal(registerShapeFor({ maxN: 80, shape: band.shape }, 1, 132), band.shape, 'no few shape');
  const dev = new LaunchCounter(0, []);
  const few = T.registerShapes.float64.find((b) => 72 <= b.maxN)!.few!;
  const launched = (count: number): string[] => {
    const a = strided(dev.alloc('float64', 72 * 72 * count), { rows: 72, count });
    dev.names.clear();
    getrfCuda(dev, { a, ipiv: dev.alloc('int32', 72 * count), pivotStride: 72, info: dev.alloc('int32', count) });
    return [...dev.names.keys()].filter((k) => k.startsWith('getrf_reg'));
  };
  const name = `getrf_reg_d_72x72_st_w${few.shape.warps}_b${few.shape.minBlocks}`;   // (the counter drops _nb)
  assert.deepEqual(launched(few.maxPerSm * dev.info.smCount), [name]);
  const more = launched(few.maxPerSm * dev.info.smCount + 1);
  assert.equal(more.length, 1);
  assert.notEqual(more[0], name);
});

test('the blocked driver\'s leaves take the blocked table\'s register sub-block, not the recursion\'s; force.tallWidest overrides', () => {
  const entries: string[] = [];
  class Recorder extends FakeDevice {
    override kernel(src?: KernelSource): Kernel {
      entries.push(src!.entry);
      return { name: src!.entry, registers: 32, staticSharedBytes: 0, localBytes: 0, maxThreadsPerBlock: 1024, launch: () => {} };
    }
  }
  const dev = new Recorder(0, []);
  const n = 1100;
  const a = strided(dev.alloc('float32', n * n), { rows: n, count: 1 });
  const ipiv = dev.alloc('int32', n), info = dev.alloc('int32', 1);
  const leafBlocks = (force: NonNullable<Parameters<typeof getrfCuda>[2]>['force']): Set<string> => {
    entries.length = 0;
    getrfCuda(dev, { a, ipiv, pivotStride: n, info }, { force });
    return new Set(entries.filter((e) => e.startsWith('getrf_wide') || e.startsWith('getrf_tall')).map((e) => /_nb(\d+)_/.exec(e)![1]!));
  };
  const blocked = { recursive: true, panels: true, lookahead: false, spreadLeaf: false } as const;
  assert.notEqual(T.blocked.widest.float32, T.recursion.widest.float32, 'the table\'s float32 sub-blocks differ (else this test proves nothing)');
  assert.deepEqual(leafBlocks(blocked), new Set([String(T.blocked.widest.float32)]));
  assert.deepEqual(leafBlocks({ ...blocked, tallWidest: 8 }), new Set(['8']));
  assert.ok(leafBlocks({ recursive: true, panels: false }).has(String(T.recursion.widest.float32)), 'the recursion by halves keeps its own');
});

test('the swaps kernel and the wide leaf: pure, every parameter changes the source, they compile (swaps without spills)', { skip: NVCC_SKIP, timeout: 180_000 }, async () => {
  const all = (['float64', 'float32'] as const).flatMap((dtype) => (['strided', 'pointer'] as const).map((kind) => getrfSwapsSource({ dtype, kind })));
  assert.equal(new Set(all.map((k) => k.source)).size, all.length);
  assert.equal(getrfSwapsSource({ dtype: 'float64', kind: 'strided' }).source, getrfSwapsSource({ dtype: 'float64', kind: 'strided' }).source);

  const base = { dtype: 'float64', kind: 'strided', width: 64, ...tallShape('float64', 4096, T.recursion) } as const;
  const wides = [base, { ...base, dtype: 'float32' as const }, { ...base, kind: 'pointer' as const }, { ...base, width: 32 }, { ...base, nb: 8 },
    { ...base, threads: 512 }, { ...base, rowsPerThread: 2 }].map(getrfWideSource);
  assert.equal(new Set(wides.map((k) => k.source)).size, wides.length);
  // The column steps: rolled (one copy of the step, a dispatch to columnUpdate<kk>) for 16-column sub-blocks or
  // wider in float32 and in float64 up to 512 threads; unrolled at float64 1024 threads and for narrower sub-blocks.
  const rolled = (p: Parameters<typeof getrfWideSource>[0]): boolean => {
    const src = getrfWideSource(p).source;
    const yes = /#pragma unroll 1\n\s*for \(int kk = 0; kk < gw; \+\+kk\)/.test(src);
    assert.equal(yes, src.includes(`case ${p.nb - 1}: columnUpdate<${p.nb - 1}>`), 'a case for every column where rolled');
    return yes;
  };
  const d16 = { dtype: 'float64', kind: 'strided', width: 64, nb: 16, rowsPerThread: 1 } as const;
  assert.deepEqual([64, 128, 256, 512, 1024].map((threads) => rolled({ ...d16, threads })), [true, true, true, true, false]);
  assert.deepEqual([1024, 64].map((threads) => rolled({ ...d16, dtype: 'float32', nb: 32, threads })), [true, true]);
  assert.equal(rolled({ ...d16, dtype: 'float32', threads: 1024, rowsPerThread: 2 }), true);
  assert.equal(rolled({ ...d16, nb: 8, threads: 1024, rowsPerThread: 2 }), false);
  assert.equal(rolled({ ...d16, dtype: 'float32', nb: 4, threads: 1024, rowsPerThread: 6 }), false);
  // Static shared memory within 48 KiB: the table's shapes keep their sub-block, a forced 32-wide float64 one halves.
  for (const m of [8192, 4096, 2048, 1024, 512, 100]) for (const dtype of ['float64', 'float32'] as const) {
    const s = tallShape(dtype, m, T.recursion);
    assert.equal(wideSubBlock({ dtype, width: 64, nb: s.nb, threads: s.threads }), s.nb, `${dtype} ${m} rows`);
  }
  assert.equal(wideSubBlock({ dtype: 'float64', width: 64, nb: 32, threads: 512 }), 16);
  assert.ok(wideSharedBytes({ dtype: 'float64', width: 64, nb: 16, threads: 1024 }) <= 48 * 1024);
  // The table's shape at 4096 rows (MYRIAD_FULL_COMPILE=1: and at 1024, where 16 bytes spill at 1024
  // threads' cap of 64 registers); ptxas's spills reported.
  const shapes = [wides[0]!, getrfWideSource({ ...base, ...tallShape('float64', 1024, T.recursion) })];
  const results = await compileForSm90([all[0]!, ...(FULL_COMPILE ? [all[2]!, ...shapes] : shapes.slice(0, 1))]);
  for (const r of results) if ('report' in r) console.log(`  ${r.src.entry}: ${r.report.registers} registers, ${r.report.spillStores} bytes spilled`);
  const failures = compileFailures(results, (r) => (r.spillStores > (r.log.includes('getrf_swaps') ? 0 : 64) ? `${r.spillStores} bytes spilled` : undefined));
  assert.deepEqual(failures, [], failures.join('\n'));
});

// A driver that refuses the cluster launch (a MIG slice, a part without 16 SMs free in a GPC).
class ClusterRefuser extends LaunchCounter {
  attempts = 0;
  constructor(private readonly status: string) {
    super(0, []);
    (this as { info: FakeDevice['info'] }).info = { ...this.info, smCount: 132 };
  }
  override kernel(src?: KernelSource): Kernel {
    const k = super.kernel(src);
    if (!src!.entry.includes('_c16')) return k;
    return { ...k, launch: () => { this.attempts++; throw new CudaError(this.status, 912, 'cuLaunchKernel', src!.entry); } };
  }
}

test('a refused cluster launch: the wide leaf for that leaf and every later one on the device; other errors thrown', () => {
  const n = 2048;
  const dev = new ClusterRefuser('CUDA_ERROR_INVALID_CLUSTER_SIZE');
  const a = strided(dev.alloc('float64', n * n), { rows: n, count: 1 });
  const req = { a, ipiv: dev.alloc('int32', n), pivotStride: n, info: dev.alloc('int32', 1) };
  getrfCuda(dev, req);
  assert.equal(dev.attempts, 1, 'one refusal');
  assert.equal(dev.names.get('getrf_wide_d_w64_st'), n / 64, 'every leaf on the wide kernel');
  dev.names.clear();
  getrfCuda(dev, req);
  assert.equal(dev.attempts, 1, 'not asked again');
  assert.equal(dev.names.get('getrf_wide_d_w64_st'), n / 64);
  // A call whose leaves mix the forms (4200 rows: the grid form for the first two leaves, taller than
  // a cluster holds; the cluster form below 4096): the refusal leaves the grid-form leaves as planned.
  const mixed = new ClusterRefuser('CUDA_ERROR_INVALID_CLUSTER_SIZE');
  const tall = { a: strided(mixed.alloc('float64', 4200 * 256), { rows: 4200, cols: 256, count: 1 }), ipiv: mixed.alloc('int32', 256), pivotStride: 256, info: mixed.alloc('int32', 1) };
  getrfCuda(mixed, tall);
  assert.equal(mixed.attempts, 1);
  assert.deepEqual([...mixed.names].filter(([k]) => k.startsWith('getrf_spread') || k.startsWith('getrf_wide')).sort(),
    [['getrf_spread_d_w64_rb256_t256_g32', 2], ['getrf_wide_d_w64_st', 2]], 'two grid-form leaves, then the wide leaf where the cluster was refused');
  const broken = new ClusterRefuser('CUDA_ERROR_ILLEGAL_ADDRESS');
  const b = { ...req, a: strided(broken.alloc('float64', n * n), { rows: n, count: 1 }), ipiv: broken.alloc('int32', n), info: broken.alloc('int32', 1) };
  assert.throws(() => getrfCuda(broken, b), /CUDA_ERROR_ILLEGAL_ADDRESS/);
});

test('the spread leaves\' options reach their kernels: the exchange and the fused search, by force or table; the defaults keep the verified kernels', () => {
  const n = 4200;   // the first two leaves taller than a cluster holds (the grid form), the rest the cluster form
  const spreads = (force: NonNullable<Parameters<typeof getrfCuda>[2]>['force'], tuning?: typeof T): string[] => {
    const dev = new ClusterRefuser('unused');
    const entries: string[] = [];
    dev.kernel = (src?: KernelSource): Kernel => {
      entries.push(src!.entry);
      return { name: src!.entry, registers: 32, staticSharedBytes: 0, localBytes: 0, maxThreadsPerBlock: 1024, launch: () => {} };
    };
    (dev as { info: FakeDevice['info'] }).info = { ...dev.info, major: 9 };
    const a = strided(dev.alloc('float64', n * 256), { rows: n, cols: 256, count: 1 });
    getrfCuda(dev, { a, ipiv: dev.alloc('int32', 256), pivotStride: 256, info: dev.alloc('int32', 1) }, { force, ...(tuning ? { tuning } : {}) });
    return [...new Set(entries.filter((e) => e.startsWith('getrf_spread')))].sort();
  };
  assert.deepEqual(spreads({}), ['getrf_spread_d_w64_rb256_t256_g32', 'getrf_spread_d_w64_rb256_t512_c16_push'], 'the table (float64): the cluster form pushes, no fusion');
  assert.deepEqual(spreads({ spreadExchange: 'signal', spreadFusedSearch: true }), ['getrf_spread_d_w64_rb256_t256_g32_fs', 'getrf_spread_d_w64_rb256_t512_c16_signal_fs']);
  const sl = T.blocked.spreadLeaf;
  const table = { ...T, blocked: { ...T.blocked, spreadLeaf: { ...sl, fusedSearch: { float64: true, float32: true }, cluster: { ...sl.cluster, exchange: 'push' as const } } } };
  assert.deepEqual(spreads({}, table), ['getrf_spread_d_w64_rb256_t256_g32_fs', 'getrf_spread_d_w64_rb256_t512_c16_push_fs']);
  assert.deepEqual(spreads({ spreadFusedSearch: false, spreadExchange: 'pull' }, table), ['getrf_spread_d_w64_rb256_t256_g32', 'getrf_spread_d_w64_rb256_t512_c16'], 'force over table');
});

// The spread leaf (generate-spread.ts): which panels take it, its shape, and its source.
test('the spread leaf: batches up to the table\'s count from its rows, blocks within the SMs, rows within shared memory', () => {
  const t = T.blocked.spreadLeaf;
  const h100 = { smCount: 132, sharedLimit: 227 * 1024 - 1024, clusters: false };   // sharedPerBlockOptin less operands.ts's reserve
  assert.equal(spreadShape('float64', 2559, 1, h100, t), null, 'below the table\'s rows: the wide leaf');
  assert.equal(spreadShape('float64', 4096, t.maxCount + 1, h100, t), null, 'more matrices than the table takes');
  assert.deepEqual(spreadShape('float64', 4096, t.maxCount, h100, t), { rowsPerBlock: 128, blocks: 32, cluster: 0 }, 'as many as it takes: the same blocks a matrix');
  assert.deepEqual(spreadShape('float64', 4096, 1, h100, t), { rowsPerBlock: 128, blocks: 32, cluster: 0 });
  assert.deepEqual(spreadShape('float64', 1000, 3, h100, t, { spread: true }), { rowsPerBlock: 32, blocks: 32, cluster: 0 }, 'forced: any rows and count');
  assert.equal(spreadShape('float64', 4096, 1, h100, t, { spread: false }), null, 'forced off');
  assert.deepEqual(spreadShape('float64', 4096, 1, h100, t, { cluster: true }), { rowsPerBlock: 128, blocks: 32, cluster: 0 }, 'no clusters on the device: the grid form whatever is forced');
  // Blocks never above the SMs (a matrix's blocks wait for each other); rows a block within the
  // device's shared bytes (float64: 256 rows of 64 columns), so the largest panels need more than maxBlocks.
  for (const dtype of ['float64', 'float32'] as const) for (const m of [2560, 4097, 10240, 30720, 33000, 40000]) {
    const s = spreadShape(dtype, m, 1, h100, t);
    if (s === null) { assert.ok(dtype === 'float64' && m > 132 * 256, `${dtype} ${m}: the wide leaf only beyond 132 blocks of 256 rows`); continue; }
    assert.ok(s.blocks <= 132 && s.blocks * s.rowsPerBlock >= m && (s.blocks - 1) * s.rowsPerBlock < m, `${dtype} ${m}: ${JSON.stringify(s)}`);
    assert.ok(spreadSharedBytes({ dtype, width: SPREAD_WIDTH, rowsPerBlock: s.rowsPerBlock }) <= h100.sharedLimit);
    assert.ok(s.blocks <= t.maxBlocks || s.rowsPerBlock * 2 * SPREAD_WIDTH * (dtype === 'float64' ? 8 : 4) + 2048 > h100.sharedLimit, `${dtype} ${m}: more blocks only where rows would not fit`);
  }
  assert.equal(spreadShape('float64', 4096, 1, { ...h100, smCount: 4 }, t), null, 'a GPU of 4 SMs: 16 blocks of 256 rows do not fit at once');
  assert.deepEqual(spreadShape('float64', 4096, 1, { ...h100, sharedLimit: 99 * 1024 - 1024 }, t, { spread: true }), { rowsPerBlock: 128, blocks: 32, cluster: 0 }, 'an sm_89-sized shared memory: 64 KiB rows still fit');
  assert.deepEqual(spreadShape('float64', 16384, 1, { ...h100, sharedLimit: 99 * 1024 - 1024 }, t, { spread: true }), { rowsPerBlock: 128, blocks: 128, cluster: 0 }, 'and 256 rows do not: more blocks');
});

test('the spread leaf\'s cluster form: where the device has clusters and the cluster holds the rows, any count; else the grid form', () => {
  const t = { ...T.blocked.spreadLeaf, minRows: { float64: 2560, float32: 2560 }, maxCount: 4, cluster: { blocks: 16, minRows: { float64: 1024, float32: 1536 }, threads: 256 } };
  const h100 = { smCount: 132, sharedLimit: 227 * 1024 - 1024, clusters: true };
  assert.deepEqual(spreadShape('float64', 4096, 1, h100, t), { rowsPerBlock: 256, blocks: 16, cluster: 16, exchange: 'pull' }, '16 blocks of 256 rows (128 KiB each)');
  assert.deepEqual(spreadShape('float64', 4096, 4, h100, t), { rowsPerBlock: 256, blocks: 16, cluster: 16, exchange: 'pull' }, 'batches up to the table\'s count');
  assert.equal(spreadShape('float64', 4096, 5, h100, t), null, 'larger batches: the wide leaf (a block a matrix fills the GPU)');
  assert.deepEqual(spreadShape('float64', 4096, 100, h100, t, { cluster: true }), { rowsPerBlock: 256, blocks: 16, cluster: 16, exchange: 'pull' }, 'forced: any count (a cluster runs whole)');
  assert.deepEqual(spreadShape('float64', 1024, 1, h100, t), { rowsPerBlock: 64, blocks: 16, cluster: 16, exchange: 'pull' }, 'from its own rows');
  assert.deepEqual(spreadShape('float64', 1100, 1, h100, t), { rowsPerBlock: 128, blocks: 16, cluster: 16, exchange: 'pull' }, 'blocks past the rows hold none');
  assert.equal(spreadShape('float64', 1023, 1, h100, t), null, 'below its rows and the grid form\'s: the wide leaf');
  assert.equal(spreadShape('float32', 1100, 1, h100, t), null, 'per dtype');
  assert.deepEqual(spreadShape('float32', 8192, 1, h100, t), { rowsPerBlock: 512, blocks: 16, cluster: 16, exchange: 'pull' }, 'float32: 512 rows a block fit');
  assert.deepEqual(spreadShape('float64', 4097, 1, h100, t), { rowsPerBlock: 256, blocks: 17, cluster: 0 }, 'taller than 16 blocks of 256 float64 rows: the grid form');
  assert.equal(spreadShape('float64', 4097, 5, h100, t), null, 'and there the grid form\'s count');
  assert.deepEqual(spreadShape('float64', 4096, 1, h100, t, { cluster: false }), { rowsPerBlock: 128, blocks: 32, cluster: 0 }, 'forced off: the grid form by its table');
  assert.equal(spreadShape('float64', 2000, 1, h100, t, { cluster: false }), null, 'forced off below the grid form\'s rows: the wide leaf');
  assert.deepEqual(spreadShape('float64', 40, 1, h100, t, { cluster: true }), { rowsPerBlock: 32, blocks: 16, cluster: 16, exchange: 'pull' }, 'forced: any rows it holds');
  assert.deepEqual(spreadShape('float64', 40, 1, h100, t, { spread: true }), { rowsPerBlock: 32, blocks: 16, cluster: 16, exchange: 'pull' }, 'the spread leaf forced: its cluster form first');
  assert.deepEqual(spreadShape('float64', 40, 1, h100, t, { spread: true, cluster: false }), { rowsPerBlock: 32, blocks: 2, cluster: 0 });
  assert.equal(spreadShape('float64', 4096, 1, h100, { ...t, cluster: { ...t.cluster, blocks: 0 } }, { cluster: true })?.cluster, 0, 'a table without the form');
  assert.equal(spreadShape('float64', 4096, 1, { ...h100, smCount: 8 }, t, { cluster: true }), null, 'more blocks a cluster than SMs: neither form');
  const noFloat32 = { ...t, cluster: { ...t.cluster, minRows: { float64: 1024, float32: Infinity } } };
  assert.deepEqual(spreadShape('float32', 4096, 1, h100, noFloat32, { cluster: true }), { rowsPerBlock: 128, blocks: 32, cluster: 0 }, 'a dtype the table keeps off the form: the grid form even forced');
  assert.equal(spreadShape('float64', 4096, 1, h100, noFloat32)?.cluster, 16);
  // The pushing exchanges: from the table or forced; their buffers (every block's candidate row by
  // parity: 2 x 16 x 64 float64 = 16 KiB) count against the shared memory beside the rows.
  const pushing = { ...t, cluster: { ...t.cluster, exchange: 'signal' as const } };
  assert.equal(spreadShape('float64', 4096, 1, h100, pushing)?.exchange, 'signal');
  assert.equal(spreadShape('float64', 4096, 1, h100, t, { exchange: 'push' })?.exchange, 'push');
  const tight = { ...h100, sharedLimit: 256 * 64 * 8 + 8192 };
  assert.equal(spreadShape('float64', 4096, 1, tight, t)?.cluster, 16, 'the pulling exchange fits beside 128 KiB of rows');
  assert.equal(spreadShape('float64', 4096, 1, tight, pushing)?.cluster, 0, 'the pushing one does not: the grid form');
});

test('the spread leaf: pure, every parameter changes the source, bad shapes refused, compiles without spills', { skip: NVCC_SKIP, timeout: 180_000 }, async () => {
  const base = { dtype: 'float64', width: SPREAD_WIDTH, rowsPerBlock: 128, threads: SPREAD_THREADS, maxBlocks: 32, cluster: 0 } as const;
  const all = [base, { ...base, dtype: 'float32' as const }, { ...base, rowsPerBlock: 32 }, { ...base, threads: 128 }, { ...base, maxBlocks: 64 }].map(getrfSpreadSource);
  assert.equal(new Set(all.map((k) => k.source)).size, all.length);
  assert.equal(getrfSpreadSource(base).source, all[0]!.source);
  assert.throws(() => getrfSpreadSource({ ...base, rowsPerBlock: 48 }), /not a supported shape/);
  assert.throws(() => getrfSpreadSource({ ...base, threads: 16 }), /not a supported shape/);
  assert.notEqual(getrfSpreadSource({ ...base, cluster: 16 }).source, getrfSpreadSource({ ...base, cluster: 8 }).source);
  assert.equal(getrfSpreadSource({ ...base, cluster: 16 }).source, getrfSpreadSource({ ...base, cluster: 16, maxBlocks: 64 }).source, 'the cluster form has no polled words');
  assert.throws(() => getrfSpreadSource({ ...base, cluster: 17 }), /cluster of 17/);
  // The cluster form's exchanges: 'pull' is the default (the same source), each other its own.
  const clustered = { ...base, cluster: 16 };
  assert.equal(getrfSpreadSource({ ...clustered, exchange: 'pull' }).source, getrfSpreadSource(clustered).source);
  const exchanges = (['pull', 'push', 'signal'] as const).map((exchange) => getrfSpreadSource({ ...clustered, exchange }));
  assert.equal(new Set(exchanges.map((k) => k.source)).size, 3);
  assert.equal(new Set(exchanges.map((k) => k.entry)).size, 3);
  assert.match(exchanges[1]!.source, /\*peer\(&xRows/);
  assert.doesNotMatch(exchanges[1]!.source, /mbarrier/, 'push: the cluster barrier');
  assert.match(exchanges[2]!.source, /mbarrierWait/);
  assert.throws(() => getrfSpreadSource({ ...base, exchange: 'push' }), /cluster form/);
  // The fused search: off is the default (the same source), on its own source and entry in either form.
  assert.equal(getrfSpreadSource({ ...base, fusedSearch: false }).source, all[0]!.source);
  for (const form of [base, clustered, { ...clustered, exchange: 'signal' as const }]) {
    const fused = getrfSpreadSource({ ...form, fusedSearch: true });
    assert.notEqual(fused.source, getrfSpreadSource(form).source);
    assert.match(fused.entry, /_fs$/);
    assert.match(fused.source, /blockCandidate\(sA, k \+ 1/);
  }
  const shapes = [all[0]!, getrfSpreadSource({ ...base, rowsPerBlock: 256, maxBlocks: 160 }), getrfSpreadSource({ ...base, dtype: 'float32', rowsPerBlock: 512 }),
    getrfSpreadSource({ ...base, rowsPerBlock: 256, cluster: 16, threads: T.blocked.spreadLeaf.cluster.threads }), getrfSpreadSource({ ...base, dtype: 'float32', rowsPerBlock: 512, cluster: 16 }),
    ...(['push', 'signal'] as const).flatMap((exchange) => [getrfSpreadSource({ ...base, rowsPerBlock: 256, cluster: 16, threads: 512, exchange }), getrfSpreadSource({ ...base, dtype: 'float32', rowsPerBlock: 512, cluster: 16, threads: 512, exchange })]),
    getrfSpreadSource({ ...base, rowsPerBlock: 256, cluster: 16, threads: 512, fusedSearch: true }), getrfSpreadSource({ ...base, rowsPerBlock: 256, maxBlocks: 160, fusedSearch: true })];
  const results = await compileForSm90(FULL_COMPILE ? shapes : [shapes[0]!, shapes[shapes.length - 3]!]);
  for (const r of results) if ('report' in r) console.log(`  ${r.src.entry}: ${r.report.registers} registers, ${r.report.spillStores} bytes spilled`);
  const failures = compileFailures(results, (r) => (r.spillStores > 0 ? `${r.spillStores} bytes spilled` : undefined));
  assert.deepEqual(failures, [], failures.join('\n'));
});
