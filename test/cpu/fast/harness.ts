/**
 * The fast CPU backend against the reference (the oracle): the same request is built twice from
 * one seed, run once on each backend, and every array compared afterwards, padding, gaps, the
 * other triangle, info and pivots included. Kernels that keep the reference's arithmetic must
 * agree bit for bit; `tolerance` loosens only the elements of the named outputs, never the rest.
 * Where tuning.ts's fmaFor fuses a factorisation's updates (relaxed SIMD; MYRIAD_CPU_FMA), that
 * op's factor and solution (a, b) are compared within rounding instead (fusedTolerance), its
 * info and pivots still exactly; MYRIAD_CPU_FMA=0 keeps every comparison bitwise.
 */
import assert from 'node:assert/strict';
import { list, strided, variable, type Batch } from '../../../src/core/batch.js';
import { DTYPE_EPS, type DType, type FloatArray } from '../../../src/core/dtype.js';
import type { Backend, OpName } from '../../../src/core/ops.js';
import { cpuBackend } from '../../../src/cpu/backend.js';
import { after, before } from 'node:test';
import { cpuThreads, setCpuThreads } from '../../../src/cpu-fast/index.js';
import { THREADING } from '../../../src/cpu-fast/threads/parallel.js';
import { fmaFor } from '../../../src/cpu-fast/context.js';
import { type FmaKernel } from '../../../src/cpu-fast/tuning.js';
import { Rng, randomArray } from '../../helpers/random.js';

export type Kind = 'strided' | 'list' | 'variable';
export interface Shape { rows: number; cols: number }
export type HostBackend = Backend<FloatArray, Int32Array>;

/** Fills matrix `index` of a batch (element (i, j) at data[offset + i + j * ld]). */
export type Fill = (rng: Rng, v: { data: FloatArray; offset: number; ld: number; rows: number; cols: number }, index: number) => void;

/** A batch of random matrices with padded ld, offsets and gaps between matrices (poison-free: random numbers). */
export function makeBatch(rng: Rng, dtype: DType, kind: Kind, shapes: readonly Shape[], fill?: Fill): Batch<FloatArray> {
  const { rows, cols } = shapes[0]!;
  if (kind === 'strided' || kind === 'list') {
    const ld = Math.max(1, rows + rng.int(0, 2));
    if (kind === 'strided') {
      const stride = ld * cols + rng.int(0, 3);
      const offset = rng.int(0, 3);
      const data = randomArray(rng, dtype, offset + Math.max(0, shapes.length - 1) * stride + ld * cols + rng.int(0, 2));
      shapes.forEach((_, p) => fill?.(rng, { data, offset: offset + p * stride, ld, rows, cols }, p));
      return strided(data, { rows, cols, count: shapes.length, ld, stride, offset });
    }
    const matrices = shapes.map((_, p) => {
      const offset = rng.int(0, 2);
      const data = randomArray(rng, dtype, offset + ld * cols + rng.int(0, 2));
      fill?.(rng, { data, offset, ld, rows, cols }, p);
      return { data, offset };
    });
    return list(matrices, { rows, cols, ld });
  }
  return variable(shapes.map((s, p) => {
    const ld = Math.max(1, s.rows + rng.int(0, 2));
    const offset = rng.int(0, 2);
    const data = randomArray(rng, dtype, offset + ld * s.cols + rng.int(0, 2));
    fill?.(rng, { data, offset, ld, rows: s.rows, cols: s.cols }, p);
    return { data, offset, ld, rows: s.rows, cols: s.cols };
  }));
}

/** Every typed array a request holds (batches' storage, info, ipiv), in a fixed order. */
function arraysOf(request: object): { key: string; array: FloatArray | Int32Array }[] {
  const out: { key: string; array: FloatArray | Int32Array }[] = [];
  for (const [key, v] of Object.entries(request)) {
    if (v instanceof Int32Array || v instanceof Float64Array || v instanceof Float32Array) out.push({ key, array: v });
    else if (typeof v === 'object' && v !== null && 'kind' in v) {
      const b = v as Batch<FloatArray>;
      const stores = b.kind === 'strided' ? [b.data] : b.matrices.map((m) => m.data);
      stores.forEach((array, i) => out.push({ key: `${key}[${i}]`, array }));
    }
  }
  return out;
}

/** Every array two requests hold (arraysOf's order) equal bit for bit: Object.is per element, so -0 and NaN count. */
export function assertSameBits(label: string, got: object, want: object): void {
  const g = arraysOf(got), w = arraysOf(want);
  assert.equal(g.length, w.length, `${label}: the requests hold different arrays`);
  g.forEach(({ key, array: x }, k) => {
    const y = w[k]!.array;
    for (let i = 0; i < x.length; i++) if (!Object.is(x[i], y[i])) assert.fail(`${label}: ${key}[${i}] ${x[i]} != ${y[i]}`);
  });
}

export interface Conformance {
  op: OpName;
  /** Builds the request; called twice with equal seeds, so both runs start from identical arrays. */
  build(rng: Rng): object;
  /**
   * Outputs whose elements may differ by `eps * (the dtype's eps) * scale` (others stay bitwise);
   * `relative`: times max(1, |the reference's element|).
   */
  tolerance?: { keys: readonly string[]; eps: number; scale: number; relative?: boolean };
  label: string;
}

/** The ops whose kernels fuse multiply-adds where fmaFor says so, by kernel family (gemm's cases carry their own tolerance). */
const FUSED_FAMILIES: Partial<Record<OpName, readonly FmaKernel[]>> = {
  potrf: ['potrf', 'potrfInterleaved'], posv: ['potrf', 'potrfInterleaved'], getrf: ['getrfBlock'], gesv: ['getrfBlock'],
};
const ORDERS = Array.from({ length: 512 }, (_, i) => i + 1);
const fusedOps = new Set(Object.entries(FUSED_FAMILIES).filter(([, kernels]) => kernels.some((k) => ORDERS.some((n) => fmaFor(k, n)))).map(([op]) => op));

/** The largest order of the request's A (its rows or columns). */
function orderOf(request: object): number {
  const a = (request as { a?: Batch<FloatArray> }).a;
  if (!a) return 1;
  const shapes = a.kind === 'variable' ? a.matrices : [a];
  return Math.max(1, ...shapes.map((s) => Math.max(s.rows, s.cols)));
}

/**
 * A fused factorisation rounds each update once instead of twice: A's factor and B's solution
 * within rounding, relative to the element's size. B's difference grows with A's condition
 * number: gesv's random systems have solutions of up to about 400 (n = 17: 7e-10 apart, a
 * relative 2e-12), hence 4x the 'upper' Cholesky's bound (cases.ts).
 */
function fusedTolerance(request: object): Conformance['tolerance'] {
  const n = orderOf(request);
  return { keys: ['a', 'b'], eps: 32 * (n + 2), scale: n + 5, relative: true };
}

/** Runs the case on `fast` and on the reference and compares every array. */
export function conform(fast: HostBackend, c: Conformance, seed: number, dtype: DType): void {
  const mine = c.build(new Rng(seed));
  const theirs = c.build(new Rng(seed));
  const tolerance = c.tolerance ?? (fusedOps.has(c.op) ? fusedTolerance(mine) : undefined);
  (fast[c.op] as (r: object) => void)(mine);
  (cpuBackend[c.op] as (r: object) => void)(theirs);
  const a = arraysOf(mine);
  const b = arraysOf(theirs);
  assert.equal(a.length, b.length);
  for (let t = 0; t < a.length; t++) {
    const x = a[t]!.array;
    const y = b[t]!.array;
    const key = a[t]!.key;
    const loose = tolerance && tolerance.keys.some((k) => key.startsWith(k));
    for (let i = 0; i < x.length; i++) {
      if (Object.is(x[i], y[i])) continue;
      const bound = loose ? tolerance!.eps * DTYPE_EPS[dtype] * tolerance!.scale * (tolerance!.relative ? Math.max(1, Math.abs(y[i]!)) : 1) : 0;
      if (loose && Math.abs(x[i]! - y[i]!) <= bound) continue;
      assert.fail(`${c.label}: ${key}[${i}] is ${x[i]}, the reference has ${y[i]}`);
    }
  }
}

/** Diagonally dominant in both triangles (so either triangle is SPD as a symmetric matrix), except `failAt` >= 0 ruins that leading minor. */
export function spdFill(failAt: (index: number) => number): Fill {
  return (_rng, v, index) => {
    const n = v.rows;
    for (let i = 0; i < n; i++) v.data[v.offset + i + i * v.ld] = n + 1 + (i % 3);
    const k = failAt(index);
    if (k >= 0 && k < n) v.data[v.offset + k + k * v.ld] = -0.5;
  };
}

/** Random, except that `zeroCol(index)` >= 0 zeroes that column (an exactly singular U(k,k)). */
export function generalFill(zeroCol: (index: number) => number): Fill {
  return (_rng, v, index) => {
    const k = zeroCol(index);
    if (k >= 0 && k < v.cols) for (let i = 0; i < v.rows; i++) v.data[v.offset + i + k * v.ld] = 0;
  };
}

export const info = (count: number): Int32Array => new Int32Array(count).fill(-7);
export const pivots = (length: number): Int32Array => new Int32Array(length).fill(-9);

/**
 * In the enclosing suite (or file): `threads` workers and no size thresholds, so that even small
 * batches split across them; the previous settings come back after it.
 */
export function splitAcrossThreads(threads: number): void {
  const saved = { ...THREADING, threads: cpuThreads() };
  before(() => {
    setCpuThreads(threads);
    THREADING.minWork = 0;
    THREADING.minWorkPerThread = 0;
    THREADING.copyMinSize = 0;
    THREADING.minWorkPerCopiedByte = 0;
  });
  after(() => {
    setCpuThreads(saved.threads);
    THREADING.minWork = saved.minWork;
    THREADING.minWorkPerThread = saved.minWorkPerThread;
    THREADING.copyMinSize = saved.copyMinSize;
    THREADING.minWorkPerCopiedByte = saved.minWorkPerCopiedByte;
  });
}
