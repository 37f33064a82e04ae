/**
 * TSM2R and TSM2L on a real GPU (skipped where none is usable) against a CPU triple loop (f64
 * accumulation) on fresh random data: both precisions, all four transposes, n and k sampled in
 * 1..33, m a multiple of no tile, odd leading dimensions and offsets, beta = 0 over a C poisoned
 * with NaN, forced parameter sets that reach every code path (cluster split 1/2/8, vec 1/2/4,
 * several passes over n, opt1/opt2, odd tcf). Padding around C must come back untouched.
 * Error bound per element: |C - Cref| <= (k + 2) eps (|alpha| (|A||B|)_ij + |beta| |C_ij|).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { strided } from '../../src/core/batch.js';
import { DTYPE_EPS, type DType, type FloatArray } from '../../src/core/dtype.js';
import type { GemmRequest, Op } from '../../src/core/ops.js';
import { cpuGemm } from '../../src/cpu/blas3.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/index.js';
import { isTallSkinny, tsm2Cuda, type Tsm2Kind, type Tsm2lOverrides, type Tsm2rOverrides } from '../../src/cuda/kernels/tsm2/index.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';

const skip = gpuSkipReason();
const SENTINEL = 12345.5;

interface Case {
  op: Tsm2Kind; dtype: DType; transA: Op; transB: Op;
  m: number; n: number; k: number; alpha: number; beta: number;
  padA: number; padB: number; padC: number; offA: number; offB: number; offC: number;
  r?: Tsm2rOverrides; l?: Tsm2lOverrides;
}

const alloc = (dtype: DType, n: number): FloatArray => (dtype === 'float64' ? new Float64Array(n) : new Float32Array(n));

function describe(c: Case): string {
  const force = c.r ? ` r=${JSON.stringify(c.r)}` : c.l ? ` l=${JSON.stringify(c.l)}` : '';
  return `${c.op} ${c.dtype} ${c.transA}${c.transB} m=${c.m} n=${c.n} k=${c.k} alpha=${c.alpha} beta=${c.beta} pads=${c.padA},${c.padB},${c.padC} offs=${c.offA},${c.offB},${c.offC}${force}`;
}

/** Runs one case on the device and checks every element of C and the padding around it. */
function check(dev: GpuDevice, rng: Rng, c: Case): void {
  const [aRows, aCols] = c.transA === 'N' ? [c.m, c.k] : [c.k, c.m];
  const [bRows, bCols] = c.transB === 'N' ? [c.k, c.n] : [c.n, c.k];
  const lda = aRows + c.padA, ldb = bRows + c.padB, ldc = c.m + c.padC;
  const A = alloc(c.dtype, c.offA + lda * aCols);
  const B = alloc(c.dtype, c.offB + ldb * bCols);
  const C = alloc(c.dtype, c.offC + ldc * c.n + 5);
  for (let i = 0; i < A.length; i++) A[i] = rng.uniform();
  for (let i = 0; i < B.length; i++) B[i] = rng.uniform();
  C.fill(SENTINEL);
  for (let j = 0; j < c.n; j++)
    for (let i = 0; i < c.m; i++) C[c.offC + i + j * ldc] = c.beta === 0 ? NaN : rng.uniform();

  // Reference and |A||B| in float64.
  const ref = new Float64Array(c.m * c.n);
  const absRef = new Float64Array(c.m * c.n);
  const opA = (i: number, l: number): number => (c.transA === 'N' ? A[c.offA + i + l * lda]! : A[c.offA + l + i * lda]!);
  const opB = (l: number, j: number): number => (c.transB === 'N' ? B[c.offB + l + j * ldb]! : B[c.offB + j + l * ldb]!);
  for (let j = 0; j < c.n; j++) {
    for (let l = 0; l < c.k; l++) {
      const b = opB(l, j);
      if (c.transA === 'N') {
        const col = c.offA + l * lda;
        for (let i = 0; i < c.m; i++) { const a = A[col + i]!; ref[i + j * c.m] += a * b; absRef[i + j * c.m] += Math.abs(a * b); }
      } else {
        for (let i = 0; i < c.m; i++) { const a = opA(i, l); ref[i + j * c.m] += a * b; absRef[i + j * c.m] += Math.abs(a * b); }
      }
    }
  }

  const dA = dev.upload(A) as DeviceArray, dB = dev.upload(B) as DeviceArray, dC = dev.upload(C) as DeviceArray;
  try {
    const req: GemmRequest<DeviceArray> = {
      transA: c.transA, transB: c.transB, alpha: c.alpha, beta: c.beta,
      a: strided(dA, { rows: aRows, cols: aCols, ld: lda, offset: c.offA, count: 1 }),
      b: strided(dB, { rows: bRows, cols: bCols, ld: ldb, offset: c.offB, count: 1 }),
      c: strided(dC, { rows: c.m, cols: c.n, ld: ldc, offset: c.offC, count: 1 }),
    };
    assert.equal(tsm2Cuda(dev, req, { force: c.op, r: c.r, l: c.l }), true, describe(c));
    const out = dev.download(dC) as FloatArray;
    const eps = DTYPE_EPS[c.dtype];
    let worst = 0;
    let where = '';
    for (let idx = 0; idx < out.length; idx++) {
      const rel = idx - c.offC;
      const j = Math.floor(rel / ldc), i = rel - j * ldc;
      const inside = rel >= 0 && j < c.n && i < c.m;
      if (!inside) {
        if (out[idx] !== SENTINEL) assert.fail(`${describe(c)}: element ${idx} outside C changed to ${out[idx]}`);
        continue;
      }
      const c0 = c.beta === 0 ? 0 : C[idx]!;
      const want = c.alpha * ref[i + j * c.m]! + c.beta * c0;
      const bound = (c.k + 2) * eps * (Math.abs(c.alpha) * absRef[i + j * c.m]! + Math.abs(c.beta * c0)) + 1e-300;
      const ratio = Math.abs(out[idx]! - want) / bound;
      const err = Number.isNaN(ratio) ? Infinity : ratio;
      if (err > worst) { worst = err; where = `C(${i},${j}) = ${out[idx]}, want ${want}`; }
    }
    assert.ok(worst <= 1, `${describe(c)}: error ${worst} x bound at ${where}`);
  } finally {
    dA.dispose(); dB.dispose(); dC.dispose();
  }
}

const TRANS: [Op, Op][] = [['N', 'N'], ['N', 'T'], ['T', 'N'], ['T', 'T']];

function randomCase(rng: Rng, op: Tsm2Kind, dtype: DType, transA: Op, transB: Op, i: number): Case {
  const m = op === 'tsm2r' ? rng.int(1000, 3000) | 1 : rng.int(20000, 90000) | 1; // odd: a multiple of no tile
  return {
    op, dtype, transA, transB, m,
    n: rng.int(1, 33), k: op === 'tsm2r' ? rng.int(700, 3000) : rng.int(1, 33),
    alpha: i % 2 === 0 ? 1 : -1.25, beta: i % 3 === 0 ? 0.75 : 0,
    padA: rng.int(0, 3), padB: rng.int(0, 3), padC: rng.int(0, 3),
    offA: rng.int(0, 3), offB: rng.int(0, 3), offC: rng.int(0, 3),
  };
}

/** Aligned layout so forced vector widths are honoured. */
function alignedCase(op: Tsm2Kind, dtype: DType, m: number, n: number, k: number, beta: number): Case {
  const pad = 4 + ((4 - (m % 4)) % 4); // ld = m + pad, a multiple of 4 (m itself is odd)
  return { op, dtype, transA: 'N', transB: 'N', m, n, k, alpha: 1, beta, padA: pad, padB: 1, padC: pad, offA: 0, offB: 1, offC: 0 };
}

for (const dtype of ['float64', 'float32'] as const) {
  test(`TSM2R ${dtype}: random shapes, all transposes, NaN-poisoned C for beta = 0`, { skip }, () => {
    const dev = gpu();
    const rng = new Rng(dtype === 'float64' ? 11 : 12);
    let i = 0;
    for (const [ta, tb] of TRANS) for (let r = 0; r < 3; r++) check(dev, rng, randomCase(rng, 'tsm2r', dtype, ta, tb, i++));
  });

  test(`TSM2R ${dtype}: forced parameters reach every code path`, { skip }, () => {
    const dev = gpu();
    const rng = new Rng(dtype === 'float64' ? 21 : 22);
    const forced: [number, Tsm2rOverrides][] = [
      [8, { split: 1, vec: 1, t3: 4, prefetch: 1 }], [16, { split: 2, vec: 2, t3: 8, prefetch: 2, tileK: 64 }], [5, { split: 8, t1: 64, t3: 2 }],
      [33, { t2: 16, split: 4 }], [32, { t2: 32, t3: 4, tileK: 64 }], [1, { vec: 4, t3: 16, split: 8 }],
      [3, { t1: 256, tileK: 64, t3: 16, split: 2 }], [24, { t1: 128, tileK: 32, t3: 4, split: 8, prefetch: 4 }],
    ];
    forced.forEach(([n, r], i) => check(dev, rng, { ...alignedCase('tsm2r', dtype, 2001 + 2 * i, n, 1537 + i, i % 2 ? 0.5 : 0), r }));
  });

  test(`TSM2R ${dtype}: A staged through shared memory (cp.async ring${dtype === 'float64' ? ', fma and dmma' : ''})`, { skip }, () => {
    const dev = gpu();
    const rng = new Rng(dtype === 'float64' ? 23 : 24);
    const forced: [number, Tsm2rOverrides][] = [
      [7, { stages: 5, engine: 'fma', t3: 4, tileK: 32, split: 1 }], [32, { stages: 4, engine: 'fma', t3: 8, tileK: 32, split: 4, vec: 2 }],
      [17, { stages: 8, engine: 'fma', t3: 2, tileK: 32, split: 2, t2: 8 }], [3, { stages: 3, engine: 'fma', vec: 1, t3: 4, tileK: 32, split: 8 }],
      [16, { stages: 2, engine: 'fma', t1: 256, t3: 8, tileK: 64, split: 1 }],
    ];
    if (dtype === 'float64') forced.push(
      [32, { stages: 4, engine: 'dmma', t3: 16, tileK: 64, split: 8 }], [13, { stages: 3, engine: 'dmma', vec: 2, t3: 16, tileK: 32, split: 2 }],
      [33, { stages: 3, engine: 'dmma', t2: 16, t3: 32, tileK: 64, split: 1 }], [1, { stages: 2, engine: 'dmma', t1: 64, t3: 16, tileK: 16, split: 4 }],
      [8, { stages: 3, engine: 'dmma', t1: 256, t3: 16, tileK: 64, split: 1 }],
    );
    forced.forEach(([n, r], i) => check(dev, rng, { ...alignedCase('tsm2r', dtype, 2001 + 2 * i, n, 1537 + i, i % 2 ? 0.5 : 0), transB: i % 2 ? 'T' : 'N', r }));
  });

  test(`TSM2L ${dtype}: random shapes, all transposes, NaN-poisoned C for beta = 0`, { skip }, () => {
    const dev = gpu();
    const rng = new Rng(dtype === 'float64' ? 31 : 32);
    let i = 0;
    for (const [ta, tb] of TRANS) for (let r = 0; r < 3; r++) check(dev, rng, randomCase(rng, 'tsm2l', dtype, ta, tb, i++));
  });

  test(`TSM2L ${dtype}: opt1 and opt2, vector widths, thread-count factors`, { skip }, () => {
    const dev = gpu();
    const rng = new Rng(dtype === 'float64' ? 41 : 42);
    const forced: [number, number, Tsm2lOverrides][] = [
      [8, 8, { variant: 'opt1', vec: 1, tcf: 1 }], [16, 16, { variant: 'opt2', vec: 1, tcf: 7 }],
      [8, 8, { variant: 'opt2', vec: 2, blocksPerSM: 1 }], [4, 12, { variant: 'opt1', vec: 2, tcf: 3 }],
      [1, 1, { variant: 'opt2', vec: 4, tcf: 5 }], [33, 2, { variant: 'opt1', t1: 256, tcf: 2 }],
      [2, 33, { variant: 'opt2', t1: 128, blocksPerSM: 2 }],
    ];
    forced.forEach(([k, n, l], i) => check(dev, rng, { ...alignedCase('tsm2l', dtype, 50001 + 2 * i, n, k, i % 2 ? 0.5 : 0), l }));
  });

  test(`TSM2 ${dtype}: alpha = 0 scales C without reading A or B`, { skip }, () => {
    const dev = gpu();
    const rng = new Rng(51);
    check(dev, rng, { ...alignedCase('tsm2r', dtype, 1001, 7, 999, 0.5), alpha: 0 });
    check(dev, rng, { ...alignedCase('tsm2l', dtype, 30001, 7, 9, 0), alpha: 0 });
  });
}

test('routing: tall-and-skinny shapes go to TSM2, others are declined untouched', { skip }, () => {
  const dev = gpu();
  assert.equal(isTallSkinny(20480, 8, 20480), true);
  assert.equal(isTallSkinny(1e7, 16, 16), true);
  assert.equal(isTallSkinny(512, 512, 512), false);
  const a = dev.alloc('float64', 64 * 64), b = dev.alloc('float64', 64 * 64), c = dev.alloc('float64', 64 * 64);
  try {
    const req: GemmRequest<DeviceArray> = {
      transA: 'N', transB: 'N', alpha: 1, beta: 0,
      a: strided(a, { rows: 64, count: 1 }), b: strided(b, { rows: 64, count: 1 }), c: strided(c, { rows: 64, count: 1 }),
    };
    assert.equal(tsm2Cuda(dev, req), false);
  } finally {
    a.dispose(); b.dispose(); c.dispose();
  }
});

test('the CPU reference cpuGemm agrees with this file\'s triple loop (one TSM2R case)', { skip }, () => {
  // The GPU checks above use their own loop; this ties it to the library's CPU reference once.
  const rng = new Rng(61);
  const m = 301, n = 5, k = 257;
  const A = new Float64Array(m * k).map(() => rng.uniform());
  const B = new Float64Array(k * n).map(() => rng.uniform());
  const C = new Float64Array(m * n);
  cpuGemm({ transA: 'N', transB: 'N', alpha: 1, beta: 0, a: strided(A, { rows: m, cols: k }), b: strided(B, { rows: k, cols: n }), c: strided(C, { rows: m, cols: n }) });
  const dev = gpu();
  const dA = dev.upload(A) as DeviceArray, dB = dev.upload(B) as DeviceArray, dC = dev.alloc('float64', m * n);
  try {
    dev.fill(dC, 0xff);
    tsm2Cuda(dev, {
      transA: 'N', transB: 'N', alpha: 1, beta: 0,
      a: strided(dA, { rows: m, cols: k, count: 1 }), b: strided(dB, { rows: k, cols: n, count: 1 }), c: strided(dC, { rows: m, cols: n, count: 1 }),
    }, { force: 'tsm2r' });
    const out = dev.download(dC) as Float64Array;
    for (let i = 0; i < m * n; i++) assert.ok(Math.abs(out[i]! - C[i]!) <= 1e-12 * k, `element ${i}: ${out[i]} vs ${C[i]}`);
  } finally {
    dA.dispose(); dB.dispose(); dC.dispose();
  }
});
