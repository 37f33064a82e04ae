/**
 * Complex gemm (complex128, complex64) on the GPU against the complex reference (zgemm1), on fresh
 * random data: every pair of ops (N, T, C), sizes of the very-small kernel (3, 16) and of both
 * tiled bands (33, 64; complex128 with op(A) = A: the mma kernel on the real embedding, also at
 * 47, 100 and 130), strided and list batches, host and device data, ragged leading dimensions,
 * gaps and an offset; C poisoned (NaN where beta = 0, so a read of C shows) and every element
 * outside the C matrices checked unchanged; ctx.lastRoute 'gemm'. Then cuBLAS's z/cgemm (route
 * 'cublas', forced) on a few of the same cases. The file's kernels are compiled at once before the
 * first case (the backend's warm over the same calls on a device that runs nothing). Skips with
 * one line where no GPU is usable.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { Context } from '../../src/api/context.js';
import { list, strided, type Batch } from '../../src/core/batch.js';
import { DTYPE_EPS, type DType } from '../../src/core/dtype.js';
import type { ComplexOp, ComplexScalar } from '../../src/core/op-specs.js';
import type { DeviceBackend } from '../../src/core/device-backend.js';
import type { Storage } from '../../src/core/storage.js';
import { zgemm1 } from '../../src/cpu/complex/zgemm.js';
import { gpuContext, gpuSkipReason, warmFileKernels } from '../helpers/gpu.js';
import { Rng } from '../helpers/random.js';

const skip = gpuSkipReason();
const SENTINEL = 12345.5;
const OPS: readonly ComplexOp[] = ['N', 'T', 'C'];

interface Case {
  dtype: DType; transA: ComplexOp; transB: ComplexOp; n: number; count: number;
  alpha: ComplexScalar; beta: ComplexScalar; form: 'strided' | 'list'; where: 'host' | 'device'; route: 'gemm' | 'cublas';
}

function cases(): Case[] {
  const out: Case[] = [];
  let i = 0;
  for (const dtype of ['float64', 'float32'] as const) for (const transA of OPS) for (const transB of OPS) for (const n of [3, 16, 33, 64]) {
    out.push({
      dtype, transA, transB, n, count: n <= 16 ? 300 : 20, alpha: [0.75, -1.25], beta: i % 2 === 0 ? [0, 0] : [-0.5, 0.25],
      form: i % 3 === 1 ? 'list' : 'strided', where: i % 4 < 2 ? 'device' : 'host', route: 'gemm',
    });
    i++;
  }
  // complex128 with op(A) = A from 32: the mma kernel on the real embedding (ragged tiles at 47, 100 and 130).
  for (const transB of OPS) for (const [n, form, beta] of [[47, 'list', [0, 0]], [100, 'strided', [-0.5, 0.25]], [130, 'strided', [0, 0]], [130, 'list', [1, -1]]] as const) {
    out.push({ dtype: 'float64', transA: 'N', transB, n, count: 5, alpha: [0.75, -1.25], beta: [beta[0], beta[1]], form, where: 'device', route: 'gemm' });
  }
  for (const dtype of ['float64', 'float32'] as const) for (const [transA, transB, n, form] of [['C', 'T', 8, 'strided'], ['N', 'C', 33, 'list']] as const) {
    out.push({ dtype, transA, transB, n, count: 50, alpha: [1, 0.5], beta: [0.5, -1], form, where: 'device', route: 'cublas' });
  }
  return out;
}

/** Each matrix's first pair (complex elements) in one buffer: ld = rows + 1, gaps of 3, offset 5. */
interface Layout { ld: number; offsets: number[]; pairs: number }
function layout(rows: number, cols: number, count: number): Layout {
  const ld = rows + 1;
  const stride = ld * cols + 3;
  return { ld, offsets: Array.from({ length: count }, (_, q) => 5 + q * stride), pairs: 5 + count * stride + 2 };
}

const context = gpuContext;

const complexType = (dtype: DType): 'complex128' | 'complex64' => (dtype === 'float64' ? 'complex128' : 'complex64');

function batchOf(data: Storage, l: Layout, rows: number, cols: number, c: Case, pieces?: Storage[]): Batch<Storage> {
  const dtype = complexType(c.dtype);
  if (c.form === 'list') return list(l.offsets.map((offset, q) => ({ data: pieces?.[q] ?? data, offset })), { rows, cols, ld: l.ld, dtype });
  return strided(data, { rows, cols, ld: l.ld, stride: l.offsets.length > 1 ? l.offsets[1]! - l.offsets[0]! : l.ld * cols, offset: l.offsets[0]!, count: l.offsets.length, dtype });
}

/** The case's call on `ctx` over arrays made by `make` (host arrays, device arrays, or a planning device's). */
function call(ctx: Context | DeviceBackend, c: Case, arrays: { a: Storage; b: Storage; c: Storage }): void {
  const { n } = c;
  const la = layout(n, n, c.count), lb = layout(n, n, c.count), lc = layout(n, n, c.count);
  const args = {
    transA: c.transA, transB: c.transB, alpha: c.alpha, beta: c.beta,
    a: batchOf(arrays.a, la, n, n, c), b: batchOf(arrays.b, lb, n, n, c), c: batchOf(arrays.c, lc, n, n, c),
  };
  if (ctx instanceof Context) ctx.gemm(args);
  else (ctx as unknown as { gemm(r: object): void }).gemm(args);
}

/** Every kernel of the file, compiled at once (the calls made on a device that runs nothing). */
before(() => warmFileKernels('zgemm', (ctx, planning) => {
  if (planning === undefined) return;
  for (const c of cases()) {
    if (c.route !== 'gemm') continue;
    const pairs = layout(c.n, c.n, c.count).pairs;
    const dev = planning.device;
    const arrays = { a: dev.alloc(c.dtype, 2 * pairs), b: dev.alloc(c.dtype, 2 * pairs), c: dev.alloc(c.dtype, 2 * pairs) };
    call(ctx, c, arrays);
  }
}));

for (const c of cases()) {
  const name = `${complexType(c.dtype)} ${c.transA}${c.transB} n = ${c.n}, ${c.count} ${c.form} on the ${c.where}, beta [${c.beta}]${c.route === 'cublas' ? ', route cublas' : ''}`;
  test(name, { skip, timeout: 120_000 }, () => {
    const { ctx, backend } = context();
    const rng = new Rng(c.n * 31 + c.count + (c.route === 'cublas' ? 7 : 0));
    const l = layout(c.n, c.n, c.count);
    const make = (value: () => number, mark?: Uint8Array): Float64Array | Float32Array => {
      const h = c.dtype === 'float64' ? new Float64Array(2 * l.pairs) : new Float32Array(2 * l.pairs);
      h.fill(SENTINEL);
      for (const off of l.offsets) for (let j = 0; j < c.n; j++) for (let i = 0; i < c.n; i++) {
        const e = off + i + j * l.ld;
        h[2 * e] = value();
        h[2 * e + 1] = value();
        if (mark) mark[e] = 1;
      }
      return h;
    };
    const betaZero = c.beta[0] === 0 && c.beta[1] === 0;
    const inC = new Uint8Array(l.pairs);
    const A = make(() => rng.uniform() - 0.5), B = make(() => rng.uniform() - 0.5);
    const C = make(() => (betaZero ? NaN : rng.uniform() - 0.5), inC);
    const want = Float64Array.from(C);
    const [wA, wB] = [Float64Array.from(A), Float64Array.from(B)];
    for (let q = 0; q < c.count; q++) {
      zgemm1(c.transA, c.transB, c.n, c.n, c.n, c.alpha, wA, l.offsets[q]!, l.ld, wB, l.offsets[q]!, l.ld, c.beta, want, l.offsets[q]!, l.ld);
    }
    let got: Float64Array | Float32Array;
    // Each route pinned: the card's table sends some of these sizes to cuBLAS by itself.
    backend.force = { gemm: c.route };
    try {
      if (c.where === 'host') {
        got = C.slice();
        call(ctx, c, { a: A, b: B, c: got });
      } else {
        const [dA, dB, dC] = [ctx.upload(A), ctx.upload(B), ctx.upload(C)];
        try {
          call(ctx, c, { a: dA, b: dB, c: dC });
          got = ctx.download(dC) as Float64Array | Float32Array;
        } finally {
          for (const d of [dA, dB, dC]) (d as { dispose?: () => void }).dispose?.();
        }
      }
    } finally {
      backend.force = {};
    }
    assert.deepEqual(ctx.lastRoute, { op: 'gemm', route: c.route, gpu: true });
    const eps = DTYPE_EPS[c.dtype];
    const bound = 8 * eps * (Math.hypot(...c.alpha) * c.n + Math.hypot(...c.beta)) * 2;
    for (let e = 0; e < l.pairs; e++) for (const part of [0, 1]) {
      const g = got[2 * e + part]!, w = want[2 * e + part]!;
      if (inC[e] === 0) { assert.ok(Object.is(g, C[2 * e + part]), `pair ${e} outside every C changed`); continue; }
      assert.ok(Number.isFinite(g) && Math.abs(g - w) <= bound, `pair ${e} part ${part}: ${g}, want ${w}`);
    }
  });
}

// Rectangular products on the tensor-core path (complex128, op(A) = A): odd m, n and k in pairs, so the
// embedding's tiles end inside a pair's rows and k-steps end on a half stage; C poisoned where beta = 0.
const RECTANGLES: readonly (readonly [number, number, number])[] = [[70, 33, 45], [33, 100, 64], [130, 8, 97], [40, 40, 1], [64, 65, 33]];
for (const transB of OPS) {
  test(`complex128 N${transB} rectangles on the tensor cores: ${RECTANGLES.map((r) => r.join(' x ')).join(', ')}`, { skip, timeout: 120_000 }, () => {
    const { ctx, backend } = context();
    const rng = new Rng(77);
    const count = 3;
    for (const [m, n, k] of RECTANGLES) for (const beta of [[0, 0], [0.5, -0.25]] as const) {
      const [ar, ac] = [m, k], [br, bc] = transB === 'N' ? [k, n] : [n, k];
      const fill = (len: number, value: () => number): Float64Array => Float64Array.from({ length: 2 * len }, value);
      const A = fill(ar * ac * count, () => rng.uniform() - 0.5), B = fill(br * bc * count, () => rng.uniform() - 0.5);
      const betaZero = beta[0] === 0 && beta[1] === 0;
      const C = fill(m * n * count, () => (betaZero ? NaN : rng.uniform() - 0.5));
      const want = Float64Array.from(C);
      const alpha: ComplexScalar = [1.5, 0.5];
      for (let q = 0; q < count; q++) zgemm1('N', transB, m, n, k, alpha, A, q * ar * ac, ar, B, q * br * bc, br, [beta[0], beta[1]], want, q * m * n, m);
      const [dA, dB, dC] = [ctx.upload(A), ctx.upload(B), ctx.upload(C)];
      try {
        backend.force = { gemm: 'gemm' };
        ctx.gemm({
          transB, alpha, beta: [beta[0], beta[1]],
          a: strided(dA, { rows: ar, cols: ac, count, dtype: 'complex128' }), b: strided(dB, { rows: br, cols: bc, count, dtype: 'complex128' }),
          c: strided(dC, { rows: m, cols: n, count, dtype: 'complex128' }),
        });
        assert.deepEqual(ctx.lastRoute, { op: 'gemm', route: 'gemm', gpu: true });
        const got = ctx.download(dC) as Float64Array;
        const bound = 16 * DTYPE_EPS.float64 * (Math.hypot(...alpha) * k + 1);
        for (let e = 0; e < got.length; e++) assert.ok(Number.isFinite(got[e]!) && Math.abs(got[e]! - want[e]!) <= bound, `${m} x ${n} x ${k} beta [${beta}], double ${e}: ${got[e]}, want ${want[e]}`);
      } finally {
        backend.force = {};
        for (const d of [dA, dB, dC]) (d as { dispose?: () => void }).dispose?.();
      }
    }
  });
}
