/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the recursive LU's generated kernels
 * (the tall panel kernel and the row interchanges) compiled as C++ for the host
 * (test/helpers/getrf-host-harness.cpp: a thread per CUDA thread, warp shuffles from a barrier per
 * warp) and launched as launch.ts launches them, against the CPU reference's getrf (dgetf2):
 * - the panel kernel alone on a tall panel (m x nb, several rows per thread): pivots and info exact,
 *   the factors to rounding;
 * - the swaps kernel (generate-swaps.ts) against dlaswp in JavaScript: more pivots than a chunk,
 *   pivots inside the range, repeated rows, columns of the panel itself left alone;
 * - the wide leaf (generate-wide.ts) alone on m x w panels (sub-blocks of a few columns, several
 *   rows per thread, the last sub-block partial): as the tall panel kernel;
 * - the blocked driver (getrfBlockedSteps) with the wide leaf, the tall leaf and the swaps kernel,
 *   as the recursion below;
 * - the whole recursion of plan.ts (getrfRecursionSteps, tallShape) with the panel and laswp kernels
 *   on the host and the solves and updates by the CPU trsm and gemm on the same sub-blocks: square,
 *   tall and wide matrices, a zero column planted (info as LAPACK), NaN, both precisions.
 * Buffers have odd ld, gaps and offsets; everything outside the matrices must come back bit for bit.
 * A check of the CUDA source and of the driver's steps without a GPU; test/gpu/factor-cases.ts
 * ("getrf on large matrices") is the real one.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

import { strided } from '../../src/core/batch.js';
import { DTYPE_EPS, type DType, type FloatArray } from '../../src/core/dtype.js';
import { cpuGemm } from '../../src/cpu/gemm.js';
import { cpuGetrf } from '../../src/cpu/lapack/index.js';
import { cpuTrsm } from '../../src/cpu/trsm.js';
import { getrfBlockedSteps, getrfLaswpSource, getrfRecursionSteps, getrfSwapsSource, getrfTallSource, getrfWideSource, SWAPS_THREADS, SWAPS_TILE, tallShape } from '../../src/cuda/kernels/getrf/index.js';
import type { GetrfRecursionTuning } from '../../src/cuda/model/tuning/index.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { Rng } from '../helpers/random.js';
import { layoutLength, oddLayout, randomBuffer, type Layout } from '../helpers/trsm-data.js';

const skip = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';
const HARNESS = resolve('test/helpers/getrf-host-harness.cpp');
const LASWP_THREADS = 128;

interface State { a: FloatArray; piv: Int32Array; info: Int32Array }

/** Compiles (once per entry) and runs one kernel launch on the host over the state, in place. */
function launcher(dir: string): (src: KernelSource, define: 'LASWP' | 'SWAPS' | null, launch: number[], s: State) => void {
  return (src, define, launch, s) => {
    const exe = join(dir, src.entry);
    if (!existsSync(exe)) {
      writeFileSync(join(dir, 'kernel.cu'), src.source);
      execFileSync('g++', ['-std=c++20', '-O1', '-pthread', `-DENTRY=${src.entry}`, ...(define !== null ? [`-D${define}`] : []), `-I${dir}`, HARNESS, '-o', exe]);
    }
    const text = (x: ArrayLike<number>): string => Array.from(x, (v) => (Number.isNaN(v) ? 'nan' : String(v))).join('\n');
    const input = `${launch.join(' ')}\n${text(s.a)}\n${text(s.piv)}\n${text(s.info)}\n`;
    const r = spawnSync(exe, { input, maxBuffer: 1 << 28 });
    if (r.status !== 0) throw new Error(`host harness failed (${r.status}): ${r.stderr.toString()}`);
    const lines = r.stdout.toString().trim().split('\n');
    s.a.forEach((_, i) => { s.a[i] = /nan/.test(lines[i]!) ? NaN : Number(lines[i]); });
    s.piv.forEach((_, i) => { s.piv[i] = Number(lines[s.a.length + i]); });
    s.info.forEach((_, i) => { s.info[i] = Number(lines[s.a.length + s.piv.length + i]); });
  };
}

/** launch.ts's getrfRecursion, with the kernels on the host and trsm/gemm by the CPU reference. */
function emulateRecursion(run: ReturnType<typeof launcher>, dtype: DType, l: Layout, s: State, t: GetrfRecursionTuning): void {
  const { rows: m, cols: n, count, ld, stride, offset } = l;
  const k = Math.min(m, n);
  s.info.fill(0);   // zeroInfo
  const sub = (r0: number, c0: number, rows: number, cols: number) => strided(s.a, { rows, cols, count, ld, stride, offset: offset + r0 + c0 * ld });
  const head = (gx: number, gy: number, bx: number, off: number): number[] => [count, gx, gy, bx, s.a.length, s.piv.length, off, stride, ld, k];
  for (const step of getrfRecursionSteps(m, n, (rows) => tallShape(dtype, rows, t).nb)) {
    if (step.kind === 'panel') {
      const sh = tallShape(dtype, m - step.off, t);
      assert.ok(step.width <= sh.nb && sh.threads * sh.rowsPerThread >= m - step.off, 'the leaf fits its kernel');
      run(getrfTallSource({ dtype, kind: 'strided', ...sh }), null,
        [...head(count, 1, sh.threads, offset + step.off + step.off * ld), m - step.off, step.width, step.off], s);
    } else if (step.kind === 'swap') {
      run(getrfLaswpSource({ dtype, kind: 'strided' }), 'LASWP',
        [...head(count, Math.ceil(step.cols / LASWP_THREADS), LASWP_THREADS, offset + step.col * ld), step.from, step.to, step.cols], s);
    } else if (step.kind === 'solve') {
      cpuTrsm({ side: 'left', uplo: 'lower', transA: 'N', diag: 'unit', alpha: 1, a: sub(step.off, step.off, step.top, step.top), b: sub(step.off, step.col, step.top, step.cols) });
    } else {
      const below = m - step.off - step.top;
      if (below > 0) {
        cpuGemm({ transA: 'N', transB: 'N', alpha: -1, beta: 1, a: sub(step.off + step.top, step.off, below, step.top),
          b: sub(step.off, step.col, step.top, step.cols), c: sub(step.off + step.top, step.col, below, step.cols) });
      }
    }
  }
}

/** Fresh data: random entries, padding and gaps random too (they must come back unchanged); plants. */
function makeCase(rng: Rng, dtype: DType, l: Layout, plant: (a: FloatArray, at: (mat: number, i: number, j: number) => number) => void): FloatArray {
  const a = randomBuffer(rng, dtype, layoutLength(l));
  plant(a, (mat, i, j) => l.offset + mat * l.stride + i + j * l.ld);
  return a;
}

function compare(dtype: DType, l: Layout, got: State, want: State, what: string): void {
  assert.deepEqual([...got.info], [...want.info], `${what}: info`);
  assert.deepEqual([...got.piv], [...want.piv], `${what}: pivots`);
  let scale = 1;
  for (const x of want.a) if (Number.isFinite(x)) scale = Math.max(scale, Math.abs(x));
  const tol = 60 * Math.max(l.rows, l.cols) * DTYPE_EPS[dtype] * scale;
  const inside = (e: number): boolean => {
    const q = e - l.offset;
    if (q < 0) return false;
    const mat = Math.floor(q / l.stride), w = q - mat * l.stride;
    return mat < l.count && w % l.ld < l.rows && Math.floor(w / l.ld) < l.cols;
  };
  for (let e = 0; e < got.a.length; e++) {
    const g = got.a[e]!, w = want.a[e]!;
    if (g === w || (Number.isNaN(g) && Number.isNaN(w))) continue;
    // A matrix with NaN: NaN spreads as in the reference, where exactly depends on the order of the sums.
    assert.ok(inside(e), `${what}: element ${e} outside the matrices changed (${w} -> ${g})`);
    const mat = Math.floor((e - l.offset) / l.stride);
    if (want.info[mat] === -1) continue;
    assert.ok(Math.abs(g - w) <= tol, `${what}: element ${e} is ${g}, expected ${w}`);
  }
}

function reference(l: Layout, a: FloatArray): State {
  const k = Math.min(l.rows, l.cols);
  const s: State = { a: a.slice(), piv: new Int32Array(l.count * k), info: new Int32Array(l.count) };
  cpuGetrf({ a: strided(s.a, l), ipiv: s.piv, pivotStride: k, info: s.info });
  return s;
}

test('the tall panel kernel on the host: dgetf2 of m x nb panels, several rows per thread', { skip, timeout: 900_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-getrf-'));
  const run = launcher(dir);
  const rng = new Rng(41);
  try {
    for (const [dtype, m, nb, threads, w] of [['float64', 300, 16, 128, 16], ['float64', 200, 8, 64, 5], ['float32', 257, 32, 128, 32], ['float64', 64, 16, 64, 16]] as const) {
      const rowsPerThread = Math.ceil(m / threads);
      const count = 3;
      const l = oddLayout(m, w, count);
      // Matrix 1: a zero column at 3 (info 4, LAPACK's), matrix 2: a repeated largest value (the
      // first wins) and a NaN below the pivot of column 2.
      const a = makeCase(rng, dtype, l, (x, at) => {
        for (let i = 0; i < m; i++) x[at(1, i, 3)] = 0;
        x[at(2, 5, 0)] = 4; x[at(2, 9, 0)] = -4; x[at(2, m - 1, 2)] = NaN;
      });
      const want = reference(l, a);
      const got: State = { a: a.slice(), piv: new Int32Array(want.piv.length).fill(-7), info: new Int32Array(count) };
      run(getrfTallSource({ dtype, kind: 'strided', nb, threads, rowsPerThread }), null,
        [count, count, 1, threads, got.a.length, got.piv.length, l.offset, l.stride, l.ld, w, m, w, 0], got);
      assert.equal(want.info[1], 4);
      assert.equal(want.piv[2 * w], 5, 'the first of two largest values');
      want.info[2] = -1;   // (NaN: compared where it does not spread)
      got.info[2] = -1;
      compare(dtype, l, got, want, `tall panel ${dtype} ${m}x${w} nb=${nb} T=${threads} R=${rowsPerThread}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the recursion on the host (panel and laswp kernels, CPU trsm and gemm) equals dgetrf', { skip, timeout: 1_800_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-getrf-'));
  const run = launcher(dir);
  const rng = new Rng(42);
  // Few threads and a small register budget: several rows per thread and narrow leaves at the
  // top, wider ones further down (as the H100's table gives at n = 4096, scaled down).
  const t: GetrfRecursionTuning = { minN: { float64: 0, float32: 0 }, minNFew: { float64: 0, float32: 0 }, widest: { float64: 16, float32: 32 }, maxThreads: 64, valueRegisters: 40 };
  try {
    for (const [dtype, m, n, count] of [['float64', 150, 150, 3], ['float64', 130, 70, 2], ['float64', 70, 130, 2], ['float32', 140, 140, 2]] as const) {
      const l = oddLayout(m, n, count);
      const zeroAt = 37;
      const a = makeCase(rng, dtype, l, (x, at) => {
        for (let i = 0; i < m; i++) x[at(count - 1, i, zeroAt)] = 0;   // the last matrix: a zero column
      });
      const want = reference(l, a);
      assert.equal(want.info[count - 1], zeroAt + 1, 'LAPACK: info names the zero column');
      const got: State = { a: a.slice(), piv: new Int32Array(want.piv.length).fill(-7), info: new Int32Array(count).fill(-9) };
      emulateRecursion(run, dtype, l, got, t);
      compare(dtype, l, got, want, `recursive getrf ${dtype} ${m}x${n} count=${count}`);
    }
    // NaN in one matrix of a batch: the good one is exact to rounding, info 0 for both (as dgetrf).
    const l = oddLayout(100, 100, 2);
    const a = makeCase(rng, 'float64', l, (x, at) => { x[at(1, 50, 20)] = NaN; });
    const want = reference(l, a);
    const got: State = { a: a.slice(), piv: new Int32Array(want.piv.length).fill(-7), info: new Int32Array(2) };
    emulateRecursion(run, 'float64', l, got, t);
    assert.deepEqual([...got.info], [...want.info]);
    assert.deepEqual([...got.piv.subarray(0, 100)], [...want.piv.subarray(0, 100)]);
    want.info[1] = -1; got.info[1] = -1;
    const keep = { ...want, piv: want.piv.subarray(0, 100) };
    compare('float64', { ...l, count: 2 }, { ...got, piv: got.piv.subarray(0, 100) }, keep, 'recursive getrf with a NaN matrix');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the wide leaf on the host: dgetrf of m x w panels in register sub-blocks, pivots applied across the panel', { skip, timeout: 900_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-getrf-'));
  const run = launcher(dir);
  const rng = new Rng(45);
  try {
    // [dtype, m, w, width (compile-time), sub-block, threads]
    for (const [dtype, m, w, width, nb, threads] of [['float64', 300, 64, 64, 4, 128], ['float64', 200, 37, 64, 8, 64], ['float32', 257, 48, 64, 16, 128],
      ['float64', 64, 64, 64, 16, 64], ['float64', 150, 20, 32, 8, 64], ['float32', 120, 64, 64, 16, 64],
      ['float64', 300, 40, 64, 16, 256], ['float32', 200, 50, 64, 32, 128]] as const) {
      const rowsPerThread = Math.ceil(m / threads);
      const count = 3;
      const l = oddLayout(m, w, count);
      // Matrix 1: a zero column at 11 (a later sub-block's), matrix 2: a NaN below the pivot of column 2.
      const a = makeCase(rng, dtype, l, (x, at) => {
        for (let i = 0; i < m; i++) x[at(1, i, 11)] = 0;
        x[at(2, m - 1, 2)] = NaN;
      });
      const want = reference(l, a);
      const got: State = { a: a.slice(), piv: new Int32Array(want.piv.length).fill(-7), info: new Int32Array(count) };
      run(getrfWideSource({ dtype, kind: 'strided', width, nb, threads, rowsPerThread }), null,
        [count, count, 1, threads, got.a.length, got.piv.length, l.offset, l.stride, l.ld, w, m, w, 0], got);
      assert.equal(want.info[1], 12);
      want.info[2] = -1;   // (NaN: compared where it does not spread)
      got.info[2] = -1;
      compare(dtype, l, got, want, `wide leaf ${dtype} ${m}x${w} W=${width} nb=${nb} T=${threads} R=${rowsPerThread}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the swaps kernel on the host: dlaswp of a range of pivots on a range of columns, the panel\'s own columns left alone', { skip, timeout: 900_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-getrf-'));
  const run = launcher(dir);
  const rng = new Rng(43);
  try {
    // [dtype, m, n, from, to, col0, cols]: a chunk and a half of pivots; a panel inside the range; a
    // range starting mid-tile; one pivot.
    for (const [dtype, m, n, from, to, col0, cols] of [['float64', 400, 40, 20, 220, 0, 40], ['float64', 150, 60, 32, 64, 0, 60],
      ['float32', 130, 50, 3, 40, 17, 33], ['float64', 90, 20, 89, 90, 0, 20]] as const) {
      const count = 3, k = Math.min(m, n);
      const l = oddLayout(m, n, count);
      const a = randomBuffer(rng, dtype, layoutLength(l));
      const piv = new Int32Array(count * Math.max(k, to));
      const pivotStride = Math.max(k, to);
      for (let mat = 0; mat < count; mat++) for (let q = from; q < to; q++) {
        // Mostly below the range, some inside it, some the row itself, some a row named before.
        const pick = rng.int(0, 9);
        piv[mat * pivotStride + q] = pick === 0 ? q : pick === 1 ? rng.int(q, Math.min(m, to) - 1) : pick === 2 && q > from ? piv[mat * pivotStride + q - 1]! : rng.int(Math.max(q, to), m - 1);
        if (piv[mat * pivotStride + q]! < q) piv[mat * pivotStride + q] = q;
      }
      const want = a.slice();
      for (let mat = 0; mat < count; mat++) for (let c = col0; c < col0 + cols; c++) {
        if (c >= from && c < to) continue;
        const base = l.offset + mat * l.stride + c * l.ld;
        for (let q = from; q < to; q++) {
          const p = piv[mat * pivotStride + q]!, x = want[base + q]!;
          want[base + q] = want[base + p]!; want[base + p] = x;
        }
      }
      const got: State = { a: a.slice(), piv: piv.slice(), info: new Int32Array(count) };
      run(getrfSwapsSource({ dtype, kind: 'strided' }), 'SWAPS',
        [count, count, Math.ceil(cols / SWAPS_TILE), SWAPS_THREADS, got.a.length, got.piv.length, l.offset + col0 * l.ld, l.stride, l.ld, pivotStride,
          from, to, col0, cols, SWAPS_TILE], got);
      const what = `swaps ${dtype} ${m}x${n} pivots ${from}..${to} columns ${col0}..${col0 + cols}`;
      assert.deepEqual([...got.piv], [...piv], `${what}: pivots unchanged`);
      for (let e = 0; e < a.length; e++) assert.equal(got.a[e], want[e], `${what}: element ${e}`);
      assert.ok(want.some((x, e) => x !== a[e]), `${what}: something moved`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the blocked driver on the host (wide and tall leaves, swaps kernel, CPU trsm and gemm) equals dgetrf', { skip, timeout: 1_800_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'myriad-getrf-'));
  const run = launcher(dir);
  const rng = new Rng(44);
  const t: GetrfRecursionTuning = { minN: { float64: 0, float32: 0 }, minNFew: { float64: 0, float32: 0 }, widest: { float64: 16, float32: 32 }, maxThreads: 64, valueRegisters: 40 };
  try {
    for (const [dtype, m, n, count, nb, wide] of [['float64', 150, 150, 3, 32, 0], ['float64', 130, 70, 2, 32, 32], ['float64', 70, 130, 2, 64, 64],
      ['float32', 140, 140, 2, 64, 0], ['float64', 150, 150, 2, 64, 64], ['float64', 160, 150, 2, 64, 32], ['float32', 140, 140, 2, 64, 64]] as const) {
      const l = oddLayout(m, n, count);
      const zeroAt = 37;
      const a = makeCase(rng, dtype, l, (x, at) => { for (let i = 0; i < m; i++) x[at(count - 1, i, zeroAt)] = 0; });
      const want = reference(l, a);
      assert.equal(want.info[count - 1], zeroAt + 1);
      const got: State = { a: a.slice(), piv: new Int32Array(want.piv.length).fill(-7), info: new Int32Array(count).fill(-9) };
      const k = Math.min(m, n);
      got.info.fill(0);
      const sub = (r0: number, c0: number, rows: number, cols: number) => strided(got.a, { rows, cols, count, ld: l.ld, stride: l.stride, offset: l.offset + r0 + c0 * l.ld });
      const head = (gx: number, gy: number, bx: number, off: number): number[] => [count, gx, gy, bx, got.a.length, got.piv.length, off, l.stride, l.ld, k];
      const swaps = (from: number, to: number, col: number, cols: number): void =>
        run(getrfSwapsSource({ dtype, kind: 'strided' }), 'SWAPS',
          [...head(count, Math.ceil(cols / SWAPS_TILE), SWAPS_THREADS, l.offset + col * l.ld), from, to, col, cols, SWAPS_TILE], got);
      // Lookahead on: the side's updates run in step order here (the pure test runs them late too).
      // Leaves up to `wide` by the wide leaf where wider than the tall one holds (launch.ts getrfPanels).
      for (const step of getrfBlockedSteps(m, n, nb, (rows) => Math.max(wide, tallShape(dtype, rows, t).nb), true)) {
        if (step.kind === 'panel') {
          const sh = tallShape(dtype, m - step.off, t);
          const src = step.width <= sh.nb ? getrfTallSource({ dtype, kind: 'strided', ...sh }) : getrfWideSource({ dtype, kind: 'strided', width: wide, ...sh });
          run(src, null, [...head(count, 1, sh.threads, l.offset + step.off + step.off * l.ld), m - step.off, step.width, step.off], got);
        } else if (step.kind === 'swap') swaps(step.from, step.to, step.col, step.cols);
        else if (step.kind === 'interchange') swaps(step.from, step.to, 0, n);
        else if (step.kind === 'solve') cpuTrsm({ side: 'left', uplo: 'lower', transA: 'N', diag: 'unit', alpha: 1, a: sub(step.off, step.off, step.top, step.top), b: sub(step.off, step.col, step.top, step.cols) });
        else if (step.kind === 'update' && m - step.off - step.top > 0) {
          const below = m - step.off - step.top;
          cpuGemm({ transA: 'N', transB: 'N', alpha: -1, beta: 1, a: sub(step.off + step.top, step.off, below, step.top), b: sub(step.off, step.col, step.top, step.cols), c: sub(step.off + step.top, step.col, below, step.cols) });
        }
      }
      compare(dtype, l, got, want, `blocked getrf ${dtype} ${m}x${n} nb=${nb} wide leaf ${wide} count=${count}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
