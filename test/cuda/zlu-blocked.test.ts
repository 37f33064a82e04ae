/**
 * The blocked complex LU without a GPU (complex-lu/plan-blocked.ts complexLuSteps and
 * complexSolveSteps, as launch-blocked.ts runs them): the steps executed with the CPU's complex
 * routines on sub-blocks (zgetf2 of the reference on the panel, pivots offset to rows of the
 * matrix and info kept from the first failing panel; zlaswp by hand; the reference's ztrsm and
 * zgemm on `block` views) reproduce the reference zgetrf (factors to rounding, pivots and info
 * exactly) for complex128 and complex64, square orders 33 ... 256, rectangular shapes, odd ld, a
 * batch of several matrices, a zero column in the second panel and a NaN; the solve steps reproduce
 * zgetrs 'N', 'T', 'C'. The steps' structure: every column factored once, every pivot once, in
 * order. nvcc compiles the new kernels (the panel, the laswp both ways, the copy).
 */
import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';

import { strided, type StridedBatch } from '../../src/core/batch.js';
import type { FloatArray } from '../../src/core/dtype.js';
import type { ComplexOp } from '../../src/core/op-specs.js';
import { cpuGemmComplex } from '../../src/cpu/complex/zgemm.js';
import { cpuGetrfComplex } from '../../src/cpu/complex/zgetrf.js';
import { cpuGetrsComplex } from '../../src/cpu/complex/zsolve.js';
import { cpuTrsmComplex } from '../../src/cpu/complex/ztrsm.js';
import { block } from '../../src/cuda/kernels/common/sub-blocks.js';
import {
  COMPLEX_PANEL_WIDTH, complexLaswpSource, complexLuSteps, complexPanelSource, complexSolveSteps, planComplexPanel, type ComplexLuStep,
} from '../../src/cuda/kernels/complex-lu/index.js';
import type { KernelSource } from '../../src/cuda/runtime/types.js';
import { NVCC_SKIP, compileFailures, compileForSm90 } from '../helpers/nvcc.js';
import { Rng } from '../helpers/random.js';

type CType = 'complex128' | 'complex64';

/** zlaswp by hand on columns col ... col+cols-1 of every matrix: rows k <-> piv[k], k from ... to-1 (or backward). */
function swapRows(b: StridedBatch<FloatArray>, piv: Int32Array, pivotStride: number, from: number, to: number, col: number, cols: number, reverse: boolean): void {
  for (let p = 0; p < b.count; p++) {
    const base = b.offset + p * b.stride;
    for (let c = col; c < col + cols; c++) for (let s = 0; s < to - from; s++) {
      const k = reverse ? to - 1 - s : from + s;
      const r = piv[p * pivotStride + k]!;
      if (r === k) continue;
      const x = 2 * (base + k + c * b.ld), y = 2 * (base + r + c * b.ld);
      [b.data[x], b.data[x + 1], b.data[y], b.data[y + 1]] = [b.data[y]!, b.data[y + 1]!, b.data[x]!, b.data[x + 1]!];
    }
  }
}

/** The blocked LU's steps run with the CPU on every matrix of `a`; pivots and info as the GPU kernels write them. */
function runBlocked(a: StridedBatch<FloatArray>, steps: readonly ComplexLuStep[], ipiv: Int32Array, pivotStride: number, info: Int32Array): void {
  info.fill(0);
  for (const s of steps) {
    switch (s.kind) {
      case 'panel': {
        // zgetf2 on the panel alone (the reference on a block view), its pivots and info moved to the matrix's rows.
        const local = new Int32Array(a.count * s.width), li = new Int32Array(a.count);
        cpuGetrfComplex({ a: block(a, s.off, s.off, a.rows - s.off, s.width), ipiv: local, pivotStride: s.width, info: li });
        for (let p = 0; p < a.count; p++) {
          for (let j = 0; j < s.width; j++) ipiv[p * pivotStride + s.off + j] = s.off + local[p * s.width + j]!;
          if (info[p] === 0 && li[p]! > 0) info[p] = s.off + li[p]!;
        }
        break;
      }
      case 'swap': swapRows(a, ipiv, pivotStride, s.from, s.to, s.col, s.cols, false); break;
      case 'solve':
        cpuTrsmComplex({ side: 'left', uplo: 'lower', transA: 'N', diag: 'unit', alpha: [1, 0], a: block(a, s.off, s.off, s.width, s.width), b: block(a, s.off, s.col, s.width, s.cols) });
        break;
      case 'update':
        cpuGemmComplex({ transA: 'N', transB: 'N', alpha: [-1, 0], beta: [1, 0],
          a: block(a, s.off + s.width, s.off, s.rows, s.width), b: block(a, s.off, s.col, s.width, s.cols), c: block(a, s.off + s.width, s.col, s.rows, s.cols) });
        break;
    }
  }
}

interface Made { batch: StridedBatch<FloatArray>; ld: number }

/** `count` m x n matrices with ld = m + 3 (odd where m is even) and gaps, entries in the unit square. */
function make(rng: Rng, dtype: CType, m: number, n: number, count: number): Made {
  const ld = m + (m % 2 === 0 ? 3 : 2);
  const stride = ld * n + 5;
  const data = dtype === 'complex128' ? new Float64Array(2 * (7 + stride * count)) : new Float32Array(2 * (7 + stride * count));
  for (let e = 0; e < data.length; e++) data[e] = rng.uniform(-1, 1);
  return { batch: strided(data, { rows: m, cols: n, ld, stride, offset: 7, count, dtype }), ld };
}
const copyOf = (b: StridedBatch<FloatArray>): StridedBatch<FloatArray> => ({ ...b, data: b.data.slice() });
const at = (b: StridedBatch<FloatArray>, p: number, i: number, j: number): number => 2 * (b.offset + p * b.stride + i + j * b.ld);

/** Runs the blocked steps and the reference on copies; compares factors (to rounding, NaN where it has NaN), pivots and info. */
function check(label: string, dtype: CType, a: StridedBatch<FloatArray>, nb = COMPLEX_PANEL_WIDTH): { info: Int32Array; ipiv: Int32Array } {
  const k = Math.min(a.rows, a.cols);
  const want = copyOf(a), got = copyOf(a);
  const refPiv = new Int32Array(a.count * k), refInfo = new Int32Array(a.count);
  cpuGetrfComplex({ a: want, ipiv: refPiv, pivotStride: k, info: refInfo });
  const piv = new Int32Array(a.count * k).fill(-9), info = new Int32Array(a.count).fill(-9);
  runBlocked(got, complexLuSteps(a.rows, a.cols, nb), piv, k, info);
  assert.deepEqual([...info], [...refInfo], `${label}: info`);
  assert.deepEqual([...piv], [...refPiv], `${label}: pivots`);
  const eps = dtype === 'complex128' ? 2 ** -53 : 2 ** -24;
  for (let p = 0; p < a.count; p++) {
    let scale = 1;
    for (let j = 0; j < a.cols; j++) for (let i = 0; i < a.rows; i++) for (const d of [0, 1]) {
      const w = want.data[at(a, p, i, j) + d]!;
      if (!Number.isNaN(w)) scale = Math.max(scale, Math.abs(w));
    }
    const tol = 64 * Math.max(a.rows, a.cols) * eps * scale;
    for (let j = 0; j < a.cols; j++) for (let i = 0; i < a.rows; i++) for (const d of [0, 1]) {
      const e = at(a, p, i, j) + d;
      const w = want.data[e]!, g = got.data[e]!;
      if (!(Number.isNaN(w) ? Number.isNaN(g) : Math.abs(g - w) <= tol)) assert.fail(`${label}: matrix ${p} (${i}, ${j}) part ${d}: ${g}, want ${w}`);
    }
  }
  // Nothing outside the matrices moved.
  const inside = new Uint8Array(a.data.length / 2);
  for (let p = 0; p < a.count; p++) for (let j = 0; j < a.cols; j++) for (let i = 0; i < a.rows; i++) inside[at(a, p, i, j) / 2] = 1;
  for (let e = 0; e < inside.length; e++) if (inside[e] === 0 && !(Object.is(got.data[2 * e], a.data[2 * e]) && Object.is(got.data[2 * e + 1], a.data[2 * e + 1]))) assert.fail(`${label}: pair ${e} outside the matrices`);
  return { info, ipiv: piv };
}

describe('the blocked complex LU steps, run with the CPU, are zgetrf', () => {
  for (const dtype of ['complex128', 'complex64'] as const) {
    // 256 in complex128 alone (CI time; the GPU tests reach 512 in both).
    for (const n of dtype === 'complex128' ? [33, 47, 64, 100, 129, 256] : [33, 47, 64, 100, 129]) {
      it(`${dtype} n = ${n}`, () => {
        const rng = new Rng(n + (dtype === 'complex64' ? 1000 : 0));
        check(`${dtype} ${n}`, dtype, make(rng, dtype, n, n, n > 128 ? 1 : 3).batch);
      });
    }
    for (const [m, n] of [[70, 40], [40, 70], [100, 33], [33, 100], [65, 64]] as const) {
      it(`${dtype} ${m} x ${n}`, () => void check(`${dtype} ${m}x${n}`, dtype, make(new Rng(m * n), dtype, m, n, 2).batch));
    }
    it(`${dtype}: panel widths other than 32 give the same`, () => {
      for (const nb of [1, 7, 16, 64]) check(`${dtype} nb ${nb}`, dtype, make(new Rng(nb), dtype, 77, 77, 2).batch, nb);
    });
    it(`${dtype}: a zero column in the second panel: info is its 1-based index, the others unaffected`, () => {
      const { batch } = make(new Rng(5), dtype, 100, 100, 3);
      const zero = 40;
      for (let i = 0; i < batch.rows; i++) batch.data.fill(0, at(batch, 1, i, zero), at(batch, 1, i, zero) + 2);
      const { info } = check(`${dtype} singular`, dtype, batch);
      assert.deepEqual([...info], [0, zero + 1, 0]);
    });
    it(`${dtype}: NaN stays in its matrix; its pivots and info are the reference's`, () => {
      const { batch } = make(new Rng(6), dtype, 80, 80, 3);
      batch.data[at(batch, 1, 50, 3) + 1] = Number.NaN;
      batch.data[at(batch, 2, 7, 45)] = Number.NaN;
      check(`${dtype} NaN`, dtype, batch);
    });
  }
});

describe('the blocked solve steps, run with the CPU, are zgetrs', () => {
  for (const dtype of ['complex128', 'complex64'] as const) for (const trans of ['N', 'T', 'C'] as const) {
    it(`${dtype} '${trans}' n = 70, 5 right-hand sides`, () => {
      const rng = new Rng(70 + trans.charCodeAt(0));
      const n = 70, nrhs = 5, count = 2;
      const a = make(rng, dtype, n, n, count).batch;
      const ipiv = new Int32Array(count * n), info = new Int32Array(count);
      cpuGetrfComplex({ a, ipiv, pivotStride: n, info });
      const b = make(rng, dtype, n, nrhs, count).batch;
      const want = copyOf(b), got = copyOf(b);
      cpuGetrsComplex({ trans, a, b: want, ipiv, pivotStride: n, info: new Int32Array(count) });
      for (const s of complexSolveSteps(trans)) {
        if (s.kind === 'swap') swapRows(got, ipiv, n, 0, n, 0, nrhs, s.reverse);
        else cpuTrsmComplex({ side: 'left', uplo: s.uplo, transA: s.trans as ComplexOp, diag: s.uplo === 'lower' ? 'unit' : 'nonunit', alpha: [1, 0], a, b: got });
      }
      const eps = dtype === 'complex128' ? 2 ** -53 : 2 ** -24;
      for (let e = 0; e < got.data.length; e++) {
        assert.ok(Math.abs(got.data[e]! - want.data[e]!) <= 1e3 * n * eps * Math.max(1, Math.abs(want.data[e]!)), `${dtype} '${trans}': element ${e}: ${got.data[e]}, want ${want.data[e]}`);
      }
    });
  }
});

test('the blocked LU steps: every column factored once, every pivot once in order, updates after their panel', () => {
  for (const [m, n, nb] of [[33, 33, 32], [256, 256, 32], [40, 100, 32], [100, 40, 32], [77, 77, 7], [5, 5, 32]] as const) {
    const steps = complexLuSteps(m, n, nb);
    const k = Math.min(m, n);
    const panels = steps.filter((s): s is Extract<ComplexLuStep, { kind: 'panel' }> => s.kind === 'panel');
    assert.deepEqual(panels.flatMap((s) => Array.from({ length: s.width }, (_, j) => s.off + j)), Array.from({ length: k }, (_, j) => j), `${m}x${n}/${nb}: columns`);
    for (const s of panels) assert.ok(s.width <= nb && s.width >= 1);
    // Each panel's interchanges reach every column outside it exactly once.
    for (const p of panels) {
      const swapped = steps.filter((s) => s.kind === 'swap' && s.from === p.off).flatMap((s) => (s.kind === 'swap' ? Array.from({ length: s.cols }, (_, c) => s.col + c) : []));
      const outside = Array.from({ length: n }, (_, c) => c).filter((c) => c < p.off || c >= p.off + p.width);
      assert.deepEqual(swapped.sort((x, y) => x - y), outside, `${m}x${n}/${nb}: panel ${p.off}'s swaps`);
    }
  }
  assert.deepEqual(complexSolveSteps('N').map((s) => s.kind), ['swap', 'solve', 'solve']);
  assert.deepEqual(complexSolveSteps('C').map((s) => s.kind), ['solve', 'solve', 'swap']);
  assert.throws(() => complexLuSteps(10, 10, 0));
});

test('the panel kernel plan: whole warps, a thread per row to 256', () => {
  assert.equal(planComplexPanel('float64', 33, 'strided').threads, 64);
  assert.equal(planComplexPanel('float64', 1000, 'pointer').threads, 256);
  assert.equal(planComplexPanel('float32', 5, 'strided').threads, 32);
});

test('nvcc compiles the blocked complex LU kernels (panel, laswp both ways)', { skip: NVCC_SKIP }, async () => {
  const sources: KernelSource[] = [];
  for (const dtype of ['float64', 'float32'] as const) for (const kind of ['strided', 'pointer'] as const) {
    sources.push(complexPanelSource(planComplexPanel(dtype, 1000, kind)), complexPanelSource(planComplexPanel(dtype, 40, kind)));
    for (const reverse of [false, true]) sources.push(complexLaswpSource({ dtype, kind, reverse }));
  }
  const failures = compileFailures(await compileForSm90(sources), (r) => (r.spillStores > 0 ? `spills ${r.spillStores} bytes` : r.stackFrame > 0 ? `stack frame ${r.stackFrame} bytes` : undefined));
  assert.deepEqual(failures, []);
});
