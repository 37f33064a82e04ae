/**
 * Batched trsm and trmm on a real GPU (skipped where none is usable) against the CPU references
 * (src/cpu/trsm.ts, src/cpu/trmm.ts; trmm on a subset of the sizes) on fresh random well-conditioned triangles (diagonal dominant): every variant
 * (side x uplo x trans x diag) at every n from 1 to 40, then 47, 64, 100, 127, 128, 200, 256, 300,
 * 512 (leaf and recursion), rectangular B (m or n = 1, m != n), alpha 0 / 1 / -2.5, odd ld,
 * stride and offset, stride-0 broadcast of A, list and variable batches, both precisions. What a
 * solve must not read is NaN (A's other triangle; its diagonal where diag is 'unit'; B's padding
 * and gaps); every element of B outside its m x n is checked bit for bit, and A must come back
 * unchanged. Large triangles (from the table's invertFrom, or forced) are solved by inverted
 * diagonal blocks: every variant at t = 1000, 1025 and forced at small t. Last, a CUDA context's trsm and trmm on device data run on the GPU with no host copy.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { list, strided, variable, type Batch } from '../../src/core/batch.js';
import type { DType, FloatArray } from '../../src/core/dtype.js';
import type { TrsmRequest } from '../../src/core/ops.js';
import { cpuTrmm } from '../../src/cpu/trmm.js';
import { cpuTrsm } from '../../src/cpu/trsm.js';
import { trmmCuda, trsmCuda, type TriangularOp, type TrsmOptions } from '../../src/cuda/kernels/trsm/index.js';
import { hasGpuOp } from '../../src/cuda/router.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/index.js';
import { countingContext, gpu, gpuSkipReason } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';
import {
  TRSM_VARIANTS, caseName, compareOutput, fillTriangle, inStrided, layoutLength, oddLayout, poisonOutside, randomBuffer, trsmTolerance,
  type Layout, type TrsmCase,
} from '../helpers/trsm-data.js';

const skip = gpuSkipReason();
const DTYPES: DType[] = ['float64', 'float32'];
const SMALL = Array.from({ length: 40 }, (_, i) => i + 1);
const LARGE = [47, 64, 100, 127, 128, 200, 256, 300, 512];

interface Setup { op?: TriangularOp; c: TrsmCase; dtype: DType; m: number; n: number; count: number; alpha: number; broadcast?: boolean; force?: TrsmOptions }

const REFERENCE = { trsm: cpuTrsm, trmm: cpuTrmm } as const;
const LAUNCHER = { trsm: trsmCuda, trmm: trmmCuda } as const;

/** One strided case on the GPU against the CPU reference. */
function checkStrided(dev: GpuDevice, rng: Rng, s: Setup): void {
  const { c, dtype, m, n, count, alpha } = s;
  const op = s.op ?? 'trsm';
  const t = c.side === 'left' ? m : n;
  const la = oddLayout(t, t, count, s.broadcast === true);
  const lb = oddLayout(m, n, count);
  const A = randomBuffer(rng, dtype, layoutLength(la));
  for (let i = 0; i < (s.broadcast === true ? 1 : count); i++) fillTriangle(rng, A, la.offset + i * la.stride, la.ld, t, c.uplo, c.diag);
  poisonOutside(A, la);
  const B = randomBuffer(rng, dtype, layoutLength(lb));
  poisonOutside(B, lb);
  const batch = <S extends FloatArray | DeviceArray>(data: S, l: Layout, rows: number, cols: number): Batch<S> =>
    strided(data, { rows, cols, count, ld: l.ld, stride: l.stride, offset: l.offset });
  const want = B.slice();
  REFERENCE[op]({ ...c, alpha, a: batch(A, la, t, t), b: batch(want, lb, m, n) });
  const dA = dev.upload(A);
  const dB = dev.upload(B);
  try {
    LAUNCHER[op](dev, { ...c, alpha, a: batch(dA, la, t, t), b: batch(dB, lb, m, n) }, s.force);
    const what = `${op} ${dtype} ${caseName(c)} m=${m} n=${n} count=${count} alpha=${alpha}${s.broadcast === true ? ' stride-0 A' : ''}`;
    compareOutput(dev.download(dB) as FloatArray, want, inStrided(lb), trsmTolerance(dtype, t), what);
    compareOutput(dev.download(dA) as FloatArray, A, () => false, 0, `${what}: A`);
  } finally {
    dA.dispose();
    dB.dispose();
  }
}

const countFor = (t: number, nvec: number): number => Math.max(1, Math.min(64, Math.floor(60_000 / (t * t * Math.max(nvec, 1)))));

test('trsm, every variant, n = 1..40: square, m or n = 1, rectangular; alpha 1 and -2.5', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1201);
  for (const dtype of DTYPES) {
    for (const c of TRSM_VARIANTS) {
      for (const t of SMALL) {
        const other = [t, 1, 1 + ((t * 7) % 37)][t % 3]!;   // square, a single vector, or an odd width
        const [m, n] = c.side === 'left' ? [t, other] : [other, t];
        checkStrided(dev, rng, { c, dtype, m, n, count: countFor(t, other), alpha: t % 2 === 0 ? 1 : -2.5 });
      }
    }
  }
});

test('trsm, every variant, n = 47 ... 512 (the recursion over GEMM); square B where cheap', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1202);
  for (const dtype of DTYPES) {
    for (const [v, c] of TRSM_VARIANTS.entries()) {
      for (const t of LARGE) {
        // Right-hand sides: 1, a few, or (every fourth variant, t <= 128) square.
        const other = t <= 128 && v % 4 === 0 ? t : [1, 3, 17, 40][(v + t) % 4]!;
        const [m, n] = c.side === 'left' ? [t, other] : [other, t];
        checkStrided(dev, rng, { c, dtype, m, n, count: t >= 256 ? 1 : 2, alpha: (v + t) % 3 === 0 ? 1 : -2.5 });
      }
    }
    // Two square 512 x 512 solves with 512 right-hand sides.
    checkStrided(dev, rng, { c: TRSM_VARIANTS[0]!, dtype, m: 512, n: 512, count: 1, alpha: -2.5 });
    checkStrided(dev, rng, { c: TRSM_VARIANTS[13]!, dtype, m: 300, n: 512, count: 1, alpha: 1 });
  }
});

test('trsm by inverted diagonal blocks: every variant at t = 1000, 1025 (the plan\'s choice) and forced at small t and blocks', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1213);
  for (const [v, c] of TRSM_VARIANTS.entries()) {
    // The table's threshold and block: t = 1000 (a short last block), 1025 (a block of 1).
    for (const t of [1000, 1025]) {
      const other = [1, 7, 64, 300][v % 4]!;
      const [m, n] = c.side === 'left' ? [t, other] : [other, t];
      checkStrided(dev, rng, { c, dtype: v % 3 === 0 ? 'float32' : 'float64', m, n, count: 1, alpha: v % 2 === 0 ? 1 : -2.5 });
    }
    // Forced: several matrices, stride-0 A, blocks of 64 and 128 over triangles that are not multiples of them.
    for (const [t, nb, count, broadcast] of [[200, 64, 3, false], [129, 128, 2, true], [70, 32, 5, false]] as const) {
      const other = 1 + ((t + v) % 23);
      const [m, n] = c.side === 'left' ? [t, other] : [other, t];
      checkStrided(dev, rng, { c, dtype: 'float64', m, n, count, alpha: -2.5, broadcast, force: { force: { invertFrom: 0, invertBlock: nb } } });
    }
  }
  // One large square solve with the whole GPU on one matrix (the shape of potrf's top-level trsm).
  checkStrided(dev, rng, { c: { side: 'right', uplo: 'lower', transA: 'T', diag: 'nonunit' }, dtype: 'float64', m: 1536, n: 1024, count: 1, alpha: 1 });
});

test('trsm, side left, few right-hand sides: the flag-chained substitution (forced at small m, the plan\'s choice at large m)', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1214);
  const chain: TrsmOptions = { force: { chain: true } };
  for (const [v, c] of TRSM_VARIANTS.entries()) {
    if (c.side !== 'left') continue;
    for (const dtype of DTYPES) {
      // Row blocks of 64: one short block, exactly one, one and a row, several with a short last; chains of 1 ... 16 columns and several tiles.
      for (const [m, n, count] of [[1, 1, 2], [63, 2, 1], [64, 5, 3], [65, 16, 1], [130, 17, 2], [700, 40, 1], [333, 3, 4]] as const) {
        checkStrided(dev, rng, { c, dtype, m, n, count, alpha: (v + m) % 2 === 0 ? 1 : -2.5, force: chain });
      }
    }
    // The default plan: one large triangle with 1 and 64 columns (float64), a few in float32.
    checkStrided(dev, rng, { c, dtype: 'float64', m: 2048, n: 1, count: 1, alpha: 1 });
    checkStrided(dev, rng, { c, dtype: 'float64', m: 1100, n: 64, count: 2, alpha: -2.5 });
    checkStrided(dev, rng, { c, dtype: 'float32', m: 1536, n: 3, count: 1, alpha: 1 });
    checkStrided(dev, rng, { c, dtype: 'float64', m: 600, n: 2, count: 3, alpha: 1, broadcast: true });
  }
});

test('trsm alpha = 0 zeroes B without reading A or B; stride-0 A; forced small leaves', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1203);
  for (const dtype of DTYPES) {
    for (const c of TRSM_VARIANTS) {
      checkStrided(dev, rng, { c, dtype, m: 9, n: 4, count: 5, alpha: 0 });
      checkStrided(dev, rng, { c, dtype, m: 33, n: 130, count: 3, alpha: 0 });
      checkStrided(dev, rng, { c, dtype, m: 20, n: 20, count: 7, alpha: -2.5, broadcast: true });
      checkStrided(dev, rng, { c, dtype, m: 150, n: 70, count: 3, alpha: 1, broadcast: true });
    }
    // A deeper recursion than the table's (leaves of at most 16), and one leaf of 128 (over 100 KiB
    // of shared memory in float64: the opt-in limit).
    for (const c of [TRSM_VARIANTS[0]!, TRSM_VARIANTS[7]!, TRSM_VARIANTS[10]!, TRSM_VARIANTS[13]!]) {
      checkStrided(dev, rng, { c, dtype, m: 47, n: 47, count: 3, alpha: -2.5, force: { force: { leafMax: 16 } } });
      checkStrided(dev, rng, { c, dtype, m: 128, n: 128, count: 2, alpha: 1, force: { force: { leafMax: 128 } } });
    }
  }
});

test('trmm, every variant: n = 1..40 (some), 47 ... 512; m or n = 1, rectangular; alpha 0, 1, -2.5; stride-0 A', { skip, timeout: 600_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1206);
  for (const dtype of DTYPES) {
    for (const [v, c] of TRSM_VARIANTS.entries()) {
      for (const t of [1, 2, 3, 5, 8, 16, 17, 31, 32, 33, 40, ...LARGE]) {
        const other = t <= 128 && v % 4 === 0 ? t : [1, 3, 17, 40][(v + t) % 4]!;
        const [m, n] = c.side === 'left' ? [t, other] : [other, t];
        checkStrided(dev, rng, { op: 'trmm', c, dtype, m, n, count: t >= 256 ? 1 : countFor(t, other), alpha: (v + t) % 3 === 0 ? 1 : -2.5 });
      }
      checkStrided(dev, rng, { op: 'trmm', c, dtype, m: 9, n: 4, count: 5, alpha: 0 });
      checkStrided(dev, rng, { op: 'trmm', c, dtype, m: 150, n: 70, count: 3, alpha: -2.5, broadcast: true });
    }
    checkStrided(dev, rng, { op: 'trmm', c: TRSM_VARIANTS[6]!, dtype, m: 47, n: 47, count: 3, alpha: -2.5, force: { force: { leafMax: 16 } } });
  }
});

test('trsm and trmm on list and variable batches (shape groups, pointer arrays, zero-size members)', { skip, timeout: 300_000 }, () => {
  const dev = gpu();
  const rng = new Rng(1204);
  for (const op of ['trsm', 'trmm'] as const) for (const dtype of DTYPES) {
    for (const c of [TRSM_VARIANTS[0]!, TRSM_VARIANTS[5]!, TRSM_VARIANTS[10]!, TRSM_VARIANTS[15]!]) {
      const shapes: [number, number][] = [[5, 3], [40, 7], [100, 2], [5, 3], [1, 1], [0, 4], [3, 0], [70, 70], [5, 3], [33, 1]];
      const tOf = ([m, n]: [number, number]): number => (c.side === 'left' ? m : n);
      // One buffer per side, matrices packed with odd lds and gaps; A[i] and B[i] at aOff[i], bOff[i].
      const aOff: number[] = [], bOff: number[] = [], lda: number[] = [], ldb: number[] = [];
      let la = 3, lb = 7;
      for (const s of shapes) {
        const t = tOf(s);
        lda.push(t + 2); aOff.push(la); la += (t + 2) * t + 5;
        ldb.push(s[0] + 1); bOff.push(lb); lb += (s[0] + 1) * s[1] + 3;
      }
      const A = randomBuffer(rng, dtype, la + 4);
      shapes.forEach((s, i) => fillTriangle(rng, A, aOff[i]!, lda[i]!, tOf(s), c.uplo, c.diag));
      const B = randomBuffer(rng, dtype, lb + 4);
      const inB = (e: number): boolean => shapes.some(([m, n], i) => { const q = e - bOff[i]!; return q >= 0 && q < ldb[i]! * n && q % ldb[i]! < m; });
      for (let e = 0; e < B.length; e++) if (!inB(e)) B[e] = NaN;
      const varBatches = <S extends FloatArray | DeviceArray>(a: S, b: S) => ({
        a: variable(shapes.map((s, i) => ({ data: a, rows: tOf(s), cols: tOf(s), ld: lda[i]!, offset: aOff[i]! }))),
        b: variable(shapes.map(([m, n], i) => ({ data: b, rows: m, cols: n, ld: ldb[i]!, offset: bOff[i]! }))),
      });
      // A list batch: the three 5 x 3 members (indices 0, 3, 8) in reverse order, and A of member 0 for all (broadcast by list).
      const listBatches = <S extends FloatArray | DeviceArray>(a: S, b: S) => {
        const t = tOf([5, 3]);
        return {
          a: list([0, 0, 0].map((i) => ({ data: a, offset: aOff[i]! })), { rows: t, ld: lda[0]! }),
          b: list([8, 3, 0].map((i) => ({ data: b, offset: bOff[i]! })), { rows: 5, cols: 3, ld: ldb[0]! }),
        };
      };
      for (const [form, make] of [['variable', varBatches], ['list', listBatches]] as const) {
        const want = B.slice();
        REFERENCE[op]({ ...c, alpha: -2.5, ...make(A, want) } as TrsmRequest<FloatArray>);
        const dA = dev.upload(A);
        const dB = dev.upload(B);
        try {
          LAUNCHER[op](dev, { ...c, alpha: -2.5, ...make(dA, dB) } as TrsmRequest<DeviceArray>);
          compareOutput(dev.download(dB) as FloatArray, want, inB, trsmTolerance(dtype, 100), `${op} ${dtype} ${caseName(c)} ${form}`);
        } finally {
          dA.dispose();
          dB.dispose();
        }
      }
    }
  }
});

test('a CUDA context runs trsm and trmm on device-resident batches on the GPU: no CPU fallback, no host copy', { skip }, () => {
  assert.ok(hasGpuOp('trsm'), 'trsm has a GPU kernel');
  const dev = gpu();
  const { ctx, copies } = countingContext(dev);
  const rng = new Rng(1205);
  const c = TRSM_VARIANTS[2]!;
  const n = 100, count = 9;
  const l = oddLayout(n, n, count);
  const A = randomBuffer(rng, 'float64', layoutLength(l));
  for (let i = 0; i < count; i++) fillTriangle(rng, A, l.offset + i * l.stride, l.ld, n, c.uplo, c.diag);
  const B = randomBuffer(rng, 'float64', layoutLength(l));
  const batch = <S extends FloatArray | DeviceArray>(data: S): Batch<S> => strided(data, { rows: n, cols: n, count, ld: l.ld, stride: l.stride, offset: l.offset });
  const dA = dev.upload(A);
  const dB = dev.upload(B);
  try {
    assert.ok(hasGpuOp('trmm'), 'trmm has a GPU kernel');
    ctx.trmm({ ...c, alpha: 1, a: batch(dA), b: batch(dB) });
    ctx.trsm({ ...c, alpha: -2.5, a: batch(dA), b: batch(dB) });
    dev.synchronize();
    assert.equal(copies(), 0, 'trmm or trsm on device data copied to or from the host');
    const want = B.slice();
    cpuTrmm({ ...c, alpha: 1, a: batch(A), b: batch(want) });
    cpuTrsm({ ...c, alpha: -2.5, a: batch(A), b: batch(want) });
    compareOutput(dev.download(dB) as FloatArray, want, inStrided(l), trsmTolerance('float64', n), 'context trsm');
  } finally {
    dA.dispose();
    dB.dispose();
  }
});
