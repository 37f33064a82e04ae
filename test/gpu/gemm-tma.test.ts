/**
 * The TMA-fed FP64 tensor-core GEMM (generate-tma.ts, forced with `variant: 'tma'`) on the GPU
 * against the CPU reference (cpuGemm), on fresh random data: ragged m, n, k (1 ... 513), every op
 * pair, batches of 1 and 3, alpha and beta (beta = 0 over a NaN-poisoned C), several configurations
 * (stages, tile shapes, tile groups, a producer warp), and every variant of the sweep
 * (src/cuda/tune/gemm-tma-variants.ts: mma shapes, persistent grids); every element of C's buffer
 * outside the matrices checked unchanged. Each case asserts which kernel ran: the tma kernel where A and B are
 * 16-byte aligned (even offsets, ld and strides), the mma kernel where an odd offset, ld or stride
 * forces the fallback. One 2048 x 2048 x 2048 product is checked against A (B x) for random x.
 * On a GPU below sm_90 every case must fall back. Skips with one line where no GPU is usable.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StridedBatch } from '../../src/core/batch.js';
import { DTYPE_EPS } from '../../src/core/dtype.js';
import type { GemmRequest, Op } from '../../src/core/ops.js';
import { cpuGemm } from '../../src/cpu/blas3.js';
import { gemmCuda, gemmSource } from '../../src/cuda/kernels/gemm/launch.js';
import type { TmaGemmParams } from '../../src/cuda/kernels/gemm/params.js';
import { tuningFor, type GemmTuning, type TmaConfig, type TmaRoute } from '../../src/cuda/model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice, type Kernel, type KernelSource } from '../../src/cuda/runtime/types.js';
import { TMA_SWEEP_VARIANTS } from '../../src/cuda/tune/gemm-tma-variants.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';

const OPS: readonly (readonly [Op, Op])[] = [['N', 'N'], ['N', 'T'], ['T', 'N'], ['T', 'T']];
const SIZES = [1, 7, 16, 33, 64, 127, 129, 255, 257, 513] as const;
const SENTINEL = 12345.5;

const tma = (bm: number, bn: number, wm: number, wn: number, stages: number, extra: Partial<TmaConfig> = {}): TmaConfig => ({ bm, bn, wm, wn, stages, ...extra });
/** The table's configurations and variations of each part of the design. */
const CONFIGS: readonly TmaConfig[] = [
  tma(128, 128, 2, 4, 4, { tileGroup: 16 }), tma(128, 64, 2, 2, 4), tma(128, 128, 2, 4, 3), tma(64, 64, 2, 2, 6, { tileGroup: 3 }),
  tma(128, 64, 2, 2, 4, { producerWarp: true }), tma(64, 128, 2, 2, 2),
];

/** ld = rows + ldPad (rounded up to even with evenLd), stride = ld * cols + gap, offset of the first matrix. */
interface Layout { ldPad: number; gap: number; offset: number; evenLd?: boolean }
interface Case {
  transA: Op; transB: Op; m: number; n: number; k: number; count: number; alpha: number; beta: number;
  config: TmaConfig; layout: Layout;
}

/** Records the entry of every kernel launched through the device. */
function recording(dev: GpuDevice, launched: string[]): GpuDevice {
  const wrap = (k: Kernel, entry: string): Kernel => new Proxy(k, {
    get: (t, p) => (p === 'launch' ? (...a: Parameters<Kernel['launch']>) => { launched.push(entry); t.launch(...a); } : Reflect.get(t, p, t)),
  });
  return new Proxy(dev, {
    get: (t, p) => {
      if (p === 'kernel') return (src: KernelSource) => wrap(t.kernel(src), src.entry);
      const v: unknown = Reflect.get(t, p, t);
      return typeof v === 'function' ? (v as (...x: unknown[]) => unknown).bind(t) : v;
    },
  });
}

const ldOf = (rows: number, l: Layout): number => { const ld = Math.max(1, rows + l.ldPad); return l.evenLd === true ? ld + (ld % 2) : ld; };

/** The kernel that must run on sm_90: 'tma' where A and B are 16-byte aligned (offset, ld and, for batches, stride even), else 'mma'. */
function expected(c: Case): 'tma' | 'mma' {
  const fits = (rows: number, cols: number): boolean => {
    const ld = ldOf(rows, c.layout);
    return c.layout.offset % 2 === 0 && ld % 2 === 0 && (c.count === 1 || (ld * cols + c.layout.gap) % 2 === 0);
  };
  const [ar, ac] = c.transA === 'N' ? [c.m, c.k] : [c.k, c.m];
  const [br, bc] = c.transB === 'N' ? [c.k, c.n] : [c.n, c.k];
  return fits(ar, ac) && fits(br, bc) ? 'tma' : 'mma';
}

/** One strided operand: host data (from `fill`) and its device copy. */
function operand(dev: GpuDevice, rows: number, cols: number, count: number, l: Layout, fill: () => number): { host: StridedBatch<Float64Array>; dev: StridedBatch<DeviceArray> } {
  const ld = ldOf(rows, l);
  const stride = ld * cols + l.gap;
  const data = new Float64Array(l.offset + count * stride + 2);
  for (let i = 0; i < data.length; i++) data[i] = fill();
  const shape = { kind: 'strided' as const, rows, cols, count, ld, stride, offset: l.offset, order: 'col' as const };
  return { host: { ...shape, data }, dev: { ...shape, data: dev.upload(data) } };
}

function runCase(dev: GpuDevice, c: Case, seed: number): string {
  const rng = new Rng(seed);
  const [ar, ac] = c.transA === 'N' ? [c.m, c.k] : [c.k, c.m];
  const [br, bc] = c.transB === 'N' ? [c.k, c.n] : [c.n, c.k];
  const a = operand(dev, ar, ac, c.count, c.layout, () => rng.uniform());
  const b = operand(dev, br, bc, c.count, c.layout, () => rng.uniform());
  // C: random inside the matrices where beta != 0, the poison (NaN for beta = 0) everywhere else.
  const poison = c.beta === 0 ? NaN : SENTINEL;
  const cc = operand(dev, c.m, c.n, c.count, c.layout, () => poison);
  const inside = new Uint8Array(cc.host.data.length);
  for (let q = 0; q < c.count; q++) for (let j = 0; j < c.n; j++) for (let i = 0; i < c.m; i++) {
    const e = cc.host.offset + q * cc.host.stride + i + j * cc.host.ld;
    inside[e] = 1;
    if (c.beta !== 0) cc.host.data[e] = rng.uniform();
  }
  dev.upload(cc.host.data, cc.dev.data);
  const initial = cc.host.data.slice();
  const launched: string[] = [];
  try {
    const tuning: GemmTuning = { ...tuningFor(dev.info.arch, 'gemm'), tma: [{ maxDim: Infinity, config: c.config }] };
    const req: GemmRequest<DeviceArray> = { transA: c.transA, transB: c.transB, alpha: c.alpha, beta: c.beta, a: a.dev, b: b.dev, c: cc.dev };
    gemmCuda(recording(dev, launched), req, { variant: 'tma', tuning });
    const got = dev.download(cc.dev.data) as Float64Array;
    const want = dev.info.major === 9 ? expected(c) : 'mma';
    if (launched.length !== 1 || !launched[0]!.startsWith(`gemm_${want}_`)) return `ran ${launched.join(', ') || 'nothing'}, expected the ${want} kernel`;
    cpuGemm({ ...req, a: a.host, b: b.host, c: cc.host });
    // The bound |alpha| |A| |B| + |beta| |C| (no cancellation).
    const abs = <T extends StridedBatch<Float64Array>>(x: T): T => ({ ...x, data: x.data.map(Math.abs) });
    const bound = { ...cc.host, data: initial.map(Math.abs) };
    cpuGemm({ transA: c.transA, transB: c.transB, alpha: Math.abs(c.alpha), beta: Math.abs(c.beta), a: abs(a.host), b: abs(b.host), c: bound });
    const tol = 4 * (c.k + 2) * DTYPE_EPS.float64;
    for (let e = 0; e < got.length; e++) {
      if (inside[e]) {
        const err = Math.abs(got[e]! - cc.host.data[e]!);
        if (!(err <= tol * bound.data[e]!)) return `element ${e}: got ${got[e]}, want ${cc.host.data[e]} (bound ${tol * bound.data[e]!})`;
      } else if (!Object.is(got[e], initial[e])) {
        return `element ${e} outside every matrix changed: ${initial[e]} -> ${got[e]}`;
      }
    }
    return '';
  } finally {
    for (const o of [a, b, cc]) o.dev.data.dispose();
  }
}

function cases(): Case[] {
  const out: Case[] = [];
  let i = 0;
  OPS.forEach(([transA, transB]) => {
    for (let s = 0; s < SIZES.length; s++) {
      const m = SIZES[s]!, n = SIZES[(s + 3) % SIZES.length]!, k = SIZES[(s + 7) % SIZES.length]!;
      out.push({
        transA, transB, m, n, k, count: i % 2 === 0 ? 1 : 3, alpha: i % 4 === 3 ? -1 : 1.5, beta: i % 3 === 0 ? 0 : 0.5,
        config: CONFIGS[i % CONFIGS.length]!, layout: { ldPad: i % 3, gap: 2 * (i % 3), offset: 2 * (i % 2), evenLd: true },
      });
      i++;
    }
  });
  // Every configuration on every op pair, batches of 3: ragged and interior tiles over many k-steps.
  CONFIGS.forEach((config, ci) => OPS.forEach(([transA, transB], o) => {
    out.push({ transA, transB, m: 257, n: 129, k: 255, count: 3, alpha: 1, beta: (ci + o) % 2 ? 0 : -0.5, config, layout: { ldPad: 1, gap: 2, offset: 0, evenLd: true } });
    out.push({ transA, transB, m: 200, n: 136, k: 520, count: 3, alpha: 0.75, beta: (ci + o) % 2 ? -0.5 : 0, config, layout: { ldPad: 2, gap: 4, offset: 2 } });
  }));
  // An odd offset, ld or stride forces the mma design.
  const base = { m: 130, n: 66, k: 96, alpha: 1, beta: 0.5, config: CONFIGS[0]! };
  out.push({ ...base, transA: 'N', transB: 'N', count: 1, layout: { ldPad: 0, gap: 0, offset: 1 } });
  out.push({ ...base, transA: 'T', transB: 'N', count: 3, layout: { ldPad: 1, gap: 0, offset: 0 } });
  out.push({ ...base, transA: 'N', transB: 'T', count: 3, layout: { ldPad: 0, gap: 1, offset: 0 } });
  out.push({ ...base, transA: 'T', transB: 'T', count: 3, layout: { ldPad: 0, gap: 2, offset: 2 } });
  return out;
}

const name = (c: Case): string =>
  `${c.transA}${c.transB} ${c.m}x${c.n}x${c.k} x${c.count} a=${c.alpha} b=${c.beta} ${JSON.stringify(c.config)} ${JSON.stringify(c.layout)} (${expected(c)})`;

test('128-byte by-value struct parameters reach the kernel (packed and array parameter blocks)', { skip: gpuSkipReason() }, () => {
  const dev = gpu();
  // Two 64-byte aligned structs among scalars: the driver's offsets (0, 128, 192, 320, 328) place them.
  const source = `struct __align__(64) Blob { unsigned long long w[16]; };
extern "C" __global__ void blob_echo(const __grid_constant__ Blob a, int n, const __grid_constant__ Blob b, double x, unsigned long long* out) {
  const int t = threadIdx.x;
  if (t < 16) { out[t] = a.w[t]; out[16 + t] = b.w[t]; }
  if (t == 0) { out[32] = (unsigned long long)n; out[33] = (unsigned long long)__double_as_longlong(x); }
}
`;
  const blob = (seed: number): Uint8Array => Uint8Array.from({ length: 128 }, (_, i) => (seed * 31 + i * 7) & 255);
  for (const mode of ['packed', 'array'] as const) {
    if (mode === 'array') process.env['MYRIAD_LAUNCH_PARAMS'] = 'array';
    const k = dev.kernel({ name: 'blob_echo.cu', entry: 'blob_echo', source: `${source}// ${mode}\n` });
    delete process.env['MYRIAD_LAUNCH_PARAMS'];
    const out = dev.upload(new BigInt64Array(34).fill(-1n));
    try {
      const a = blob(1), b = blob(2);
      k.launch({ grid: [1, 1, 1], block: [32, 1, 1] }, [arg.bytes(a), arg.i32(-7), arg.bytes(b), arg.f64(2.5), arg.ptr(out)]);
      const got = new Uint8Array((dev.download(out) as BigInt64Array).buffer);
      assert.deepEqual([...got.subarray(0, 128)], [...a], `${mode}: the first struct`);
      assert.deepEqual([...got.subarray(128, 256)], [...b], `${mode}: the second struct`);
      const tail = new DataView(got.buffer, 256);
      assert.equal(tail.getInt32(0, true), -7, `${mode}: the int after the first struct`);
      assert.equal(tail.getFloat64(8, true), 2.5, `${mode}: the double after the second struct`);
    } finally {
      out.dispose();
    }
  }
});

test('the tma gemm matches the CPU reference (ragged sizes, op pairs, batches, configurations, fallbacks)', { skip: gpuSkipReason() }, () => {
  const dev = gpu();
  const failures: string[] = [];
  const all = cases();
  assert.ok(all.filter((c) => expected(c) === 'tma').length >= 60 && all.filter((c) => expected(c) === 'mma').length >= 3, 'both kernels are exercised');
  all.forEach((c, i) => {
    let why: string;
    try {
      why = runCase(dev, c, 4000 + i);
    } catch (e) {
      why = `threw ${(e as Error).stack ?? String(e)}`;
    }
    if (why) {
      failures.push(`${name(c)}: ${why}`);
      if (failures.length <= 20) console.log(`FAIL ${name(c)}: ${why.slice(0, 300)}`);
    }
  });
  assert.deepEqual(failures, [], failures.slice(0, 20).join('\n'));
});

/**
 * Every variant the sweep may name (gemm-tma-variants.ts) on every op pair: two ragged products
 * (one a batch of 3, beta 0 over NaN and not, poisoned padding), and for persistent grids a batch
 * of more tiles than the GPU holds blocks at once (each block takes several items; 3 k-steps a
 * tile, fewer than most rings' stages, so the ring's phases run on across items).
 */
function sweepCases(): Case[] {
  const out: Case[] = [];
  TMA_SWEEP_VARIANTS.forEach(({ config }, v) => OPS.forEach(([transA, transB], o) => {
    // One kernel per variant and op pair (beta = 0 or not, alternating), so the compiles stay few.
    const i = 4 * v + o;
    const zero = (v + o) % 2 === 1;
    out.push({ transA, transB, m: 257, n: 200, k: 131, count: 3, alpha: 1.5, beta: zero ? 0 : -0.5, config, layout: { ldPad: 1 + (i % 2), gap: 2, offset: 2 * (i % 2), evenLd: true } });
    out.push({ transA, transB, m: 129, n: 255, k: 520, count: 1, alpha: -1, beta: zero ? 0 : 0.5, config, layout: { ldPad: i % 3, gap: 0, offset: 0, evenLd: true } });
    if (config.persistent === true) {
      out.push({ transA, transB, m: 520, n: 390, k: 40, count: 10, alpha: 0.75, beta: zero ? 0 : 1, config, layout: { ldPad: 2, gap: 4, offset: 2, evenLd: true } });
    }
  }));
  return out;
}

test('every variant of the tma sweep matches the CPU reference (op pairs, ragged, batches, persistent grids)', { skip: gpuSkipReason() }, () => {
  const dev = gpu();
  const failures: string[] = [];
  const all = sweepCases();
  assert.ok(all.every((c) => expected(c) === 'tma') && all.length >= 2 * 4 * TMA_SWEEP_VARIANTS.length, 'every case runs the tma kernel');
  // Their kernels compiled at once on the compile workers (the launcher's parameters: strided, not dense).
  const loose = { kind: 'strided', dense: false } as const;
  dev.prefetch?.([...new Map(all.map((c) => {
    const src = gemmSource({ variant: 'tma', dtype: 'float64', transA: c.transA, transB: c.transB, betaZero: c.beta === 0, layouts: { a: loose, b: loose, c: loose }, ...c.config });
    return [src.entry, src] as const;
  })).values()]);
  all.forEach((c, i) => {
    let why: string;
    try {
      why = runCase(dev, c, 7000 + i);
    } catch (e) {
      why = `threw ${(e as Error).stack ?? String(e)}`;
    }
    if (why) {
      failures.push(`${name(c)}: ${why}`);
      if (failures.length <= 20) console.log(`FAIL ${name(c)}: ${why.slice(0, 300)}`);
    }
  });
  assert.deepEqual(failures, [], failures.slice(0, 20).join('\n'));
});

test('a route given to the launcher takes single products to the tma design unforced, and nothing else', { skip: gpuSkipReason() }, () => {
  const dev = gpu();
  const config = TMA_SWEEP_VARIANTS.find((v) => v.config.persistent === true)!.config;
  const tmaRoutes: TmaRoute[] = [{ transA: 'N', transB: 'T', m: [200, 400], n: [100, 300], k: [50, 600], config }];
  const l = { ldPad: 2, gap: 0, offset: 0, evenLd: true };
  const runs: [string, number, number, 'tma' | 'mma'][] = [['inside', 1, 300, dev.info.major === 9 ? 'tma' : 'mma'], ['a batch', 2, 300, 'mma'], ['k outside', 1, 601, 'mma']];
  for (const [why, count, k, want] of runs) {
    const rng = new Rng(31 + k);
    const a = operand(dev, 257, k, count, l, () => rng.uniform());
    const b = operand(dev, 130, k, count, l, () => rng.uniform());
    const c = operand(dev, 257, 130, count, l, () => rng.uniform());
    const launched: string[] = [];
    try {
      gemmCuda(recording(dev, launched), { transA: 'N', transB: 'T', alpha: 1.25, beta: -0.5, a: a.dev, b: b.dev, c: c.dev }, { tmaRoutes });
      const got = dev.download(c.dev.data) as Float64Array;
      assert.ok(launched.length === 1 && launched[0]!.startsWith(`gemm_${want}_`), `${why}: ran ${launched.join()}`);
      cpuGemm({ transA: 'N', transB: 'T', alpha: 1.25, beta: -0.5, a: a.host, b: b.host, c: c.host });
      for (let e = 0; e < got.length; e++) assert.ok(Math.abs(got[e]! - c.host.data[e]!) <= 1e-12 * (k + Math.abs(c.host.data[e]!)), `${why}: element ${e}`);
    } finally {
      for (const o of [a, b, c]) o.dev.data.dispose();
    }
  }
});

test('the tma gemm at 2048 x 2048 x 2048 agrees with A (B x)', { skip: gpuSkipReason() }, () => {
  const dev = gpu();
  const n = 2048;
  const rng = new Rng(77);
  for (const [transA, transB] of [['N', 'N'], ['N', 'T']] as const) {
    const l = { ldPad: 0, gap: 0, offset: 0 };
    const a = operand(dev, n, n, 1, l, () => rng.uniform());
    const b = operand(dev, n, n, 1, l, () => rng.uniform());
    const c = operand(dev, n, n, 1, l, () => NaN);
    const launched: string[] = [];
    try {
      gemmCuda(recording(dev, launched), { transA, transB, alpha: 1, beta: 0, a: a.dev, b: b.dev, c: c.dev }, { variant: 'tma' });
      if (dev.info.major === 9) assert.match(launched.join(), /^gemm_tma_/);
      const got = dev.download(c.dev.data) as Float64Array;
      // y = op(B) x, then op(A) y, against C x; the bound from |A| (|B| |x|).
      const x = Float64Array.from({ length: n }, () => rng.uniform());
      const at = (m: Float64Array, t: Op, i: number, j: number): number => (t === 'N' ? m[i + j * n]! : m[j + i * n]!);
      const y = new Float64Array(n), yb = new Float64Array(n);
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) { const v = at(b.host.data, transB, i, j); y[i] += v * x[j]!; yb[i] += Math.abs(v * x[j]!); }
      const want = new Float64Array(n), bound = new Float64Array(n), cx = new Float64Array(n);
      for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
        const v = at(a.host.data, transA, i, j);
        want[i] += v * y[j]!;
        bound[i] += Math.abs(v) * yb[j]!;
        cx[i] += got[i + j * n]! * x[j]!;
      }
      const tol = 8 * (2 * n + 2) * DTYPE_EPS.float64;
      for (let i = 0; i < n; i++) assert.ok(Math.abs(cx[i]! - want[i]!) <= tol * bound[i]!, `${transA}${transB} row ${i}: C x = ${cx[i]}, A (B x) = ${want[i]}`);
    } finally {
      for (const o of [a, b, c]) o.dev.data.dispose();
    }
  }
});

test('a forced tma parameter object runs as given where TMA serves', { skip: gpuSkipReason() }, () => {
  const dev = gpu();
  const p: TmaGemmParams = {
    variant: 'tma', dtype: 'float64', transA: 'N', transB: 'T', betaZero: false, bm: 128, bn: 64, wm: 2, wn: 2, stages: 5,
    layouts: { a: { kind: 'strided', dense: false }, b: { kind: 'strided', dense: false }, c: { kind: 'strided', dense: false } },
  };
  const rng = new Rng(9);
  const l = { ldPad: 2, gap: 0, offset: 0 };
  const a = operand(dev, 300, 100, 2, l, () => rng.uniform());
  const b = operand(dev, 90, 100, 2, l, () => rng.uniform());
  const c = operand(dev, 300, 90, 2, l, () => rng.uniform());
  const launched: string[] = [];
  try {
    gemmCuda(recording(dev, launched), { transA: 'N', transB: 'T', alpha: 2, beta: -1, a: a.dev, b: b.dev, c: c.dev }, { variant: p });
    const got = dev.download(c.dev.data) as Float64Array;
    assert.equal(launched.length, 1);
    assert.match(launched[0]!, dev.info.major === 9 ? /^gemm_tma_dNT_128x64x16_w2x2_s5$/ : /^gemm_mma_/);
    cpuGemm({ transA: 'N', transB: 'T', alpha: 2, beta: -1, a: a.host, b: b.host, c: c.host });
    for (let e = 0; e < got.length; e++) assert.ok(Math.abs(got[e]! - c.host.data[e]!) <= 1e-12 * (1 + Math.abs(c.host.data[e]!)), `element ${e}`);
  } finally {
    for (const o of [a, b, c]) o.dev.data.dispose();
  }
});
