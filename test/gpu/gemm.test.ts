/**
 * Batched GEMM on the GPU against the CPU reference (cpuGemm), on fresh random data, with C
 * poisoned (NaN where beta = 0, a sentinel elsewhere) and every element outside the matrices
 * checked unchanged. Skips with one line where no GPU is usable. Timings against cuBLAS belong to
 * the benchmark (`myriad bench gemm --backend cuda`: ours and cuBLAS strided batched, %copy), not here.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matrixAt, type Batch, type MatrixView } from '../../src/core/batch.js';
import { allocate, DTYPE_EPS, type DType, type FloatArray } from '../../src/core/dtype.js';
import type { GemmRequest, Op } from '../../src/core/ops.js';
import { cpuGemm } from '../../src/cpu/blas3.js';
import { gemmCuda, type GemmCudaOptions } from '../../src/cuda/kernels/gemm/launch.js';
import { tuningFor, type GemmTuning, type MmaConfig, type TiledConfig } from '../../src/cuda/model/tuning/index.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/types.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';

const OPS: readonly (readonly [Op, Op])[] = [['N', 'N'], ['N', 'T'], ['T', 'N'], ['T', 'T']];
const DTYPES: readonly DType[] = ['float64', 'float32'];
const SENTINEL = 12345.5;

const mma = (bm: number, bn: number, bk: number, wm: number, wn: number, stages: number, mmaK: 4 | 8 | 16 = 8, extra: Partial<MmaConfig> = {}): MmaConfig => ({ bm, bn, bk, wm, wn, stages, mmaK, ...extra });
/** The subset checked for correctness on every transpose (each instruction shape, pipeline depth, warp layout). */
const MMA_CHECKED: readonly MmaConfig[] = [
  mma(32, 32, 32, 2, 2, 2), mma(32, 32, 32, 1, 1, 1, 16), mma(64, 64, 16, 4, 2, 3), mma(64, 64, 16, 2, 2, 3, 16),
  mma(64, 64, 8, 2, 2, 4), mma(128, 128, 16, 2, 4, 3), mma(128, 128, 16, 4, 2, 3), mma(64, 64, 16, 2, 2, 4, 4),
  // The register double buffer: an even and an odd number of slices per stage, two chunks per slice, a register cap;
  // tiles in groups of 3 tile rows (4 rows at m = 200: a short last group).
  mma(64, 64, 16, 4, 2, 3, 8, { doubleBuffer: true, minBlocks: 2, tileGroup: 3 }), mma(64, 64, 8, 2, 2, 4, 8, { doubleBuffer: true }),
  mma(64, 64, 32, 2, 2, 3, 16, { doubleBuffer: true }),
  // Three warps along m: 96 threads, so the copies' chunk counts are multiples of it but not of a power of two.
  mma(48, 48, 8, 3, 1, 4),
];
const tiled = (bm: number, bn: number, bk: number, tm: number, tn: number): TiledConfig => ({ bm, bn, bk, tm, tn });
// 64 x 64 x 8 (8 x 8 a thread): the sm_90 table's float32 tile by padding from 33 to 64 (plan.ts tileByPadding).
const TILED_CHECKED: readonly TiledConfig[] = [tiled(32, 32, 16, 4, 4), tiled(64, 64, 16, 8, 8), tiled(128, 128, 8, 8, 8), tiled(64, 128, 8, 4, 8), tiled(64, 64, 8, 8, 8)];

interface Padding { ldPad: number; gap: number; offset: number }
interface Case {
  dtype: DType; transA: Op; transB: Op; m: number; n: number; k: number; count: number;
  alpha: number; beta: number; kind: 'strided' | 'list'; pad: Padding;
  variant?: GemmCudaOptions['variant'];
  tuning?: Partial<GemmTuning>;
  /** Poison A and B with NaN (cases where they must not be read). */
  nanInputs?: boolean;
}

/** Host and device copies of one operand, with the same layout. */
interface Operand { host: FloatArray[]; dev: DeviceArray[]; hostBatch: Batch<FloatArray>; devBatch: Batch<DeviceArray> }

function makeOperand(
  dev: GpuDevice, dtype: DType, kind: Case['kind'], rows: number, cols: number, count: number, pad: Padding,
  fill: (a: FloatArray) => void,
): Operand {
  const ld = Math.max(1, rows + pad.ldPad);
  const stride = ld * cols + pad.gap;
  if (kind === 'strided') {
    const h = allocate(dtype, pad.offset + count * stride + 1);
    fill(h);
    const d = dev.upload(h);
    const shape = { kind: 'strided' as const, rows, cols, count, ld, stride, offset: pad.offset, order: 'col' as const };
    return { host: [h], dev: [d], hostBatch: { ...shape, data: h }, devBatch: { ...shape, data: d } };
  }
  // A list: matrices alternate between two buffers and run backwards through each.
  const per = Math.ceil(count / 2);
  const host = [0, 1].map(() => { const h = allocate(dtype, pad.offset + per * stride + 1); fill(h); return h; });
  const devs = host.map((h) => dev.upload(h));
  const place = (i: number): number => pad.offset + (per - 1 - Math.floor(i / 2)) * stride;
  const entries = Array.from({ length: count }, (_, i) => i);
  const shape = { kind: 'list' as const, rows, cols, ld, order: 'col' as const };
  return {
    host, dev: devs,
    hostBatch: { ...shape, matrices: entries.map((i) => ({ data: host[i % 2]!, offset: place(i) })) },
    devBatch: { ...shape, matrices: entries.map((i) => ({ data: devs[i % 2]!, offset: place(i) })) },
  };
}

const randomFill = (rng: Rng) => (a: FloatArray): void => { for (let i = 0; i < a.length; i++) a[i] = rng.uniform(); };

/** Runs one case on the GPU and checks every element of C's buffers. Returns a failure line or ''. */
function runCase(dev: GpuDevice, c: Case, seed: number): string {
  const rng = new Rng(seed);
  const [ar, ac] = c.transA === 'N' ? [c.m, c.k] : [c.k, c.m];
  const [br, bc] = c.transB === 'N' ? [c.k, c.n] : [c.n, c.k];
  const inputFill = c.nanInputs ? (a: FloatArray) => a.fill(NaN) : randomFill(rng);
  const a = makeOperand(dev, c.dtype, c.kind, ar, ac, c.count, c.pad, inputFill);
  const b = makeOperand(dev, c.dtype, c.kind, br, bc, c.count, { ...c.pad, gap: c.pad.gap + 1 }, inputFill);
  const cFill = (h: FloatArray): void => { h.fill(c.beta === 0 ? NaN : SENTINEL); };
  const cc = makeOperand(dev, c.dtype, c.kind, c.m, c.n, c.count, c.pad, cFill);
  // C's matrices get random values where beta != 0; everything else keeps the poison.
  const inside = cc.host.map((h) => new Uint8Array(h.length));
  for (let i = 0; i < c.count; i++) {
    const v = matrixAt(cc.hostBatch, i);
    const which = cc.host.indexOf(v.data);
    for (let j = 0; j < v.cols; j++) {
      for (let r = 0; r < v.rows; r++) {
        inside[which]![v.offset + r + j * v.ld] = 1;
        if (c.beta !== 0) v.data[v.offset + r + j * v.ld] = rng.uniform();
      }
    }
  }
  cc.host.forEach((h, i) => dev.upload(h, cc.dev[i]));
  const initial = cc.host.map((h) => h.slice());
  try {
    const req: GemmRequest<DeviceArray> = { transA: c.transA, transB: c.transB, alpha: c.alpha, beta: c.beta, a: a.devBatch, b: b.devBatch, c: cc.devBatch };
    // A case's bands replace the card's, and the card's lists that would pick before them go (C's smaller
    // side, the tiles by padding): the case's tile is the one that runs.
    gemmCuda(dev, req, { variant: c.variant, tuning: c.tuning && { ...tuningFor(dev.info.arch, 'gemm'), mmaSmallSide: undefined, mmaByPadding: undefined, tiledByPadding: undefined, ...c.tuning } });
    const got = cc.dev.map((d) => dev.download(d) as FloatArray);
    // Reference values, and a bound from |alpha| |A| |B| + |beta| |C| (no cancellation).
    cpuGemm({ transA: c.transA, transB: c.transB, alpha: c.alpha, beta: c.beta, a: a.hostBatch, b: b.hostBatch, c: cc.hostBatch });
    const abs = (o: Operand): Batch<FloatArray> => withData(o.hostBatch, o.host, o.host.map((h) => h.map(Math.abs) as FloatArray));
    const boundC = initial.map((h) => h.map(Math.abs) as FloatArray);
    cpuGemm({
      transA: c.transA, transB: c.transB, alpha: Math.abs(c.alpha), beta: Math.abs(c.beta),
      a: c.nanInputs ? a.hostBatch : abs(a), b: c.nanInputs ? b.hostBatch : abs(b), c: withData(cc.hostBatch, cc.host, boundC),
    });
    const tol = 4 * (c.k + 2) * DTYPE_EPS[c.dtype];
    for (let w = 0; w < got.length; w++) {
      const g = got[w]!, ref = cc.host[w]!, bound = boundC[w]!, ins = inside[w]!, init = initial[w]!;
      for (let e = 0; e < g.length; e++) {
        if (ins[e]) {
          const err = Math.abs(g[e]! - ref[e]!);
          if (!(err <= tol * bound[e]!)) return `element ${e} of buffer ${w}: got ${g[e]}, want ${ref[e]} (bound ${tol * bound[e]!})`;
        } else if (!Object.is(g[e], init[e])) {
          return `element ${e} of buffer ${w} outside every matrix changed: ${init[e]} -> ${g[e]}`;
        }
      }
    }
    return '';
  } finally {
    for (const o of [a, b, cc]) for (const d of o.dev) d.dispose();
  }
}

/** The same batch layout over other arrays (list entries remapped buffer by buffer). */
function withData(b: Batch<FloatArray>, from: FloatArray[], to: FloatArray[]): Batch<FloatArray> {
  if (b.kind === 'strided') return { ...b, data: to[0]! };
  if (b.kind === 'list') return { ...b, matrices: b.matrices.map((m) => ({ data: to[from.indexOf(m.data)]!, offset: m.offset })) };
  return { ...b, matrices: b.matrices.map((m: MatrixView<FloatArray>) => ({ ...m, data: to[from.indexOf(m.data)]! })) };
}

function caseName(c: Case): string {
  const v = typeof c.variant === 'object' ? c.variant.variant : c.variant ?? 'auto';
  return `${c.dtype} ${c.transA}${c.transB} ${c.m}x${c.n}x${c.k} x${c.count} ${c.kind} pad${JSON.stringify(c.pad)} a=${c.alpha} b=${c.beta} ${v}${c.tuning ? ` ${JSON.stringify(c.tuning)}` : ''}${c.nanInputs ? ' nanAB' : ''}`;
}

function correctnessCases(): Case[] {
  const cases: Case[] = [];
  const base = { alpha: 1.5, beta: 0.5, kind: 'strided' as const, count: 37 };
  DTYPES.forEach((dtype) => {
    // Every size 1..40, square, transposes cycling, loose layouts, beta zero and not.
    for (let n = 1; n <= 40; n++) {
      const [transA, transB] = OPS[n % 4]!;
      const pad = { ldPad: n % 2, gap: n % 3, offset: n % 5 };
      const beta = n % 3 === 0 ? 0 : 0.5;
      cases.push({ ...base, dtype, transA, transB, m: n, n, k: n, beta, pad });
      if (n <= 32 && n % 4 === 1) cases.push({ ...base, dtype, transA, transB, m: n, n, k: n, beta, pad, variant: 'tiled' });
      if (n <= 32 && n % 4 === 2 && dtype === 'float64') cases.push({ ...base, dtype, transA, transB, m: n, n, k: n, beta, pad, variant: 'mma' });
    }
    // Dense strided batches (the contiguous-span path), counts not a multiple of tbc.
    for (const n of [1, 2, 3, 4, 5, 8, 12, 16, 31, 32]) {
      const [transA, transB] = OPS[(n + 1) % 4]!;
      cases.push({ ...base, dtype, transA, transB, m: n, n, k: n, count: 1001, beta: n % 2 ? 0 : -1, pad: { ldPad: 0, gap: 0, offset: 3 } });
      // Aligned spans (16-byte vector path), several work items per thread, C staged or not.
      for (const [items, threads, stage] of [[4, 64, 0], [2, 128, 1024]] as const) {
        const tuning = { smallItemsPerThread: items, smallThreadsPerBlock: threads, smallStageCBelowBytes: stage };
        cases.push({ ...base, dtype, transA, transB, m: n, n, k: n, count: 1001, beta: n % 2 ? -1 : 0, pad: { ldPad: 0, gap: 0, offset: 0 }, tuning });
      }
    }
    // All transposes: small and tiled, non-square, pointer-array batches, beta zero and not.
    OPS.forEach(([transA, transB], o) => {
      const pad = { ldPad: 2, gap: 5, offset: 7 };
      for (const [m, n, k] of [[5, 7, 3], [32, 1, 17], [37, 29, 45], [100, 64, 200]] as const) {
        cases.push({ ...base, dtype, transA, transB, m, n, k, count: m > 32 ? 3 : 57, beta: o % 2 ? 0 : 0.25, pad });
        cases.push({ ...base, dtype, transA, transB, m, n, k, count: m > 32 ? 3 : 57, beta: o % 2 ? 0.25 : 0, pad, kind: 'list' });
        if (m > 32) cases.push({ ...base, dtype, transA, transB, m, n, k, count: 3, beta: 0.25, pad, variant: 'tiled' });
      }
    });
    // The tiled kernel's shapes (vector loads, transposing stores, edges), every transpose.
    TILED_CHECKED.forEach((config, ci) => {
      OPS.forEach(([transA, transB], o) => {
        for (const [m, n, k] of [[37, 29, 45], [130, 68, 200], [128, 64, 96]] as const) {
          cases.push({
            ...base, dtype, transA, transB, m, n, k, count: 3, beta: o % 2 ? 0 : -0.5, pad: { ldPad: [0, 2, 1][(o + ci) % 3]!, gap: 3, offset: ci % 2 },
            kind: (o + ci) % 2 ? 'list' : 'strided', variant: 'tiled', tuning: { tiled: { float32: [{ maxDim: Infinity, config }], float64: [{ maxDim: Infinity, config }] } },
          });
        }
      });
    });
    // The FP64 tensor-core kernel's pipelines (cp.async stages) and tile shapes; aligned operands
    // (16-byte copies) and not.
    if (dtype === 'float64') {
      MMA_CHECKED.forEach((config, ci) => {
        OPS.forEach(([transA, transB], o) => {
          // [200, 136, 520]: interior tiles over many full k-steps (the copies' fast path), then edges.
          for (const [m, n, k] of (ci % 3 === 0 ? [[37, 29, 45], [130, 64, 200], [5, 7, 3]] : ci % 3 === 1 ? [[37, 29, 45], [130, 64, 200]] : [[200, 136, 520], [130, 64, 200]]) as readonly (readonly [number, number, number])[]) {
            cases.push({
              ...base, dtype, transA, transB, m, n, k, count: 3, beta: o % 2 ? 0 : -0.5, pad: { ldPad: [0, 2, 1][(o + ci) % 3]!, gap: 3, offset: (o + ci) % 2 },
              kind: (o + ci) % 2 ? 'list' : 'strided', variant: 'mma', tuning: { mma: [{ maxDim: Infinity, config }] },
            });
          }
        });
      });
    }
    // Larger sizes and odd shapes.
    for (const n of [64, 100, 128, 200, 256]) {
      const [transA, transB] = OPS[n % 4]!;
      cases.push({ ...base, dtype, transA, transB, m: n, n, k: n, count: 2, beta: n % 3 ? 0 : 2, pad: { ldPad: 3, gap: 1, offset: 1 } });
    }
    // The tiles by padding as the plan picks them (sm_90's lists, plan.ts tileByPadding): float64 40, 72, 160, 224
    // and 288 one or more 48 x 48 tiles a matrix, 192 64 x 64 (the rule above 160); float32 40, 192 and 224 64 x 64
    // x 8, 72, 160 and 288 32 x 32.
    for (const [n, count] of [[40, 300], [72, 300], [160, 12], [192, 32], [224, 16], [288, 8]] as const) {
      const [transA, transB] = OPS[(n / 8 + count) % 4]!;
      cases.push({ ...base, dtype, transA, transB, m: n, n, k: n, count, beta: n % 3 ? 0 : 0.5, pad: { ldPad: 1, gap: 2, offset: 1 } });
    }
    // [2100, 70, 24]: more than 16 tile rows (the block order's groups, the last one short).
    for (const [m, n, k] of [[70, 3, 130], [1, 200, 9], [256, 1, 256], [33, 65, 1], [2100, 70, 24]] as const) {
      cases.push({ ...base, dtype, transA: 'T', transB: 'N', m, n, k, count: 3, beta: 0, pad: { ldPad: 1, gap: 0, offset: 0 } });
    }
    // Batches beyond grid.y: 65537 matrices (small: grid.x; tiled: grid.y and grid.z).
    cases.push({ ...base, dtype, transA: 'N', transB: 'N', m: 2, n: 2, k: 2, count: 65537, beta: 0, pad: { ldPad: 0, gap: 0, offset: 0 } });
    cases.push({ ...base, dtype, transA: 'T', transB: 'N', m: 3, n: 3, k: 3, count: 65537, beta: 1, pad: { ldPad: 1, gap: 2, offset: 1 }, variant: 'tiled' });
    cases.push({ ...base, dtype, transA: 'N', transB: 'T', m: 4, n: 3, k: 2, count: 65537, beta: 0, pad: { ldPad: 0, gap: 0, offset: 0 }, kind: 'list' });
    // BLAS corner cases: alpha = 0 reads neither A nor B; k = 0 scales C; batch of one.
    cases.push({ ...base, dtype, transA: 'N', transB: 'N', m: 6, n: 5, k: 4, alpha: 0, beta: 0, pad: { ldPad: 1, gap: 1, offset: 0 }, nanInputs: true });
    cases.push({ ...base, dtype, transA: 'T', transB: 'T', m: 40, n: 5, k: 4, alpha: 0, beta: -2, pad: { ldPad: 1, gap: 1, offset: 0 }, nanInputs: true });
    cases.push({ ...base, dtype, transA: 'N', transB: 'N', m: 6, n: 5, k: 0, beta: 0.5, pad: { ldPad: 0, gap: 0, offset: 0 } });
    cases.push({ ...base, dtype, transA: 'N', transB: 'T', m: 9, n: 9, k: 9, count: 1, beta: 0, pad: { ldPad: 0, gap: 7, offset: 2 } });
  });
  return cases;
}

test('batched gemm on the GPU matches the CPU reference (all variants, layouts, transposes)', { skip: gpuSkipReason() }, () => {
  const dev = gpu();
  const failures: string[] = [];
  correctnessCases().forEach((c, i) => {
    let why: string;
    try {
      why = runCase(dev, c, 1000 + i);
    } catch (e) {
      why = `threw ${(e as Error).stack ?? String(e)}`;
    }
    if (why) {
      failures.push(`${caseName(c)}: ${why}`);
      if (failures.length <= 40) console.log(`FAIL ${caseName(c)}: ${why.slice(0, 300)}`);
    }
  });
  assert.deepEqual(failures, [], failures.slice(0, 30).join('\n'));
});

test('variable batches run as groups of one shape', { skip: gpuSkipReason() }, () => {
  const dev = gpu();
  const rng = new Rng(7);
  for (const dtype of DTYPES) {
    const shapes = [[2, 3, 4], [8, 8, 8], [40, 33, 17], [2, 3, 4], [0, 3, 2], [5, 5, 0]] as const;
    const views = { a: [] as MatrixView<FloatArray>[], b: [] as MatrixView<FloatArray>[], c: [] as MatrixView<FloatArray>[] };
    for (let i = 0; i < 60; i++) {
      const [m, n, k] = shapes[i % shapes.length]!;
      const mk = (rows: number, cols: number, value?: number): MatrixView<FloatArray> => {
        const ld = Math.max(1, rows + (i % 3));
        const data = allocate(dtype, ld * cols + 2);
        for (let e = 0; e < data.length; e++) data[e] = value ?? rng.uniform();
        return { data, offset: 1, ld, rows, cols };
      };
      views.a.push(mk(m, k));
      views.b.push(mk(n, k)); // transB = 'T'
      views.c.push(mk(m, n, NaN));
    }
    const upload = (vs: MatrixView<FloatArray>[]) => vs.map((v) => ({ ...v, data: dev.upload(v.data) }));
    const dv = { a: upload(views.a), b: upload(views.b), c: upload(views.c) };
    const batch = <S>(vs: MatrixView<S>[]): Batch<S> => ({ kind: 'variable', matrices: vs, order: 'col' });
    gemmCuda(dev, { transA: 'N', transB: 'T', alpha: 1, beta: 0, a: batch(dv.a), b: batch(dv.b), c: batch(dv.c) });
    cpuGemm({ transA: 'N', transB: 'T', alpha: 1, beta: 0, a: batch(views.a), b: batch(views.b), c: batch(views.c) });
    dv.c.forEach((d, i) => {
      const got = dev.download(d.data) as FloatArray;
      const want = views.c[i]!;
      for (let j = 0; j < want.cols; j++) {
        for (let r = 0; r < want.rows; r++) {
          const e = want.offset + r + j * want.ld;
          assert.ok(Math.abs(got[e]! - want.data[e]!) <= 1e-4 * (1 + Math.abs(want.data[e]!)), `${dtype} matrix ${i} (${r}, ${j})`);
        }
      }
    });
    for (const d of [...dv.a, ...dv.b, ...dv.c]) d.data.dispose();
  }
});

// The parameter sweep behind the tuning table: node dist/src/cuda/tune/main.js gemm (src/cuda/tune/gemm-sweep.ts).
