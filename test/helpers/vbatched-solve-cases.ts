/**
 * The cases of test/gpu/vbatched-solve.test.ts (variable-size trsm, potrs, posv, getrs and gesv by size class):
 * each case's shapes and layout (seeded, so the same on every run and on a planning device), and
 * `recordVbatchedSolveCalls`, which makes every call the GPU file makes on a context (the GPU file
 * runs it on a planning backend to compile all its kernels at once; test/cuda/vbatched-trsm.test.ts
 * counts them on a planning device).
 */
import type { Context } from '../../src/api/context.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import type { DeviceStorage } from '../../src/core/storage.js';
import type { RouteForce } from '../../src/cuda/router.js';
import { Rng } from './random.js';
import { TRSM_VARIANTS, type TrsmCase } from './trsm-data.js';
import { batchOf, classOf, VBATCHED_DTYPES, vbatchedLayout, vbatchedOrders, type Layout } from './vbatched-cases.js';

export interface TrsmVbCase { readonly dtype: DType; readonly variant: TrsmCase; readonly seed: number }
export interface SolveVbCase { readonly dtype: DType; readonly op: 'potrs' | 'posv'; readonly uplo: Uplo; readonly seed: number }
export interface LuVbCase { readonly dtype: DType; readonly op: 'getrs' | 'gesv'; readonly trans: 'N' | 'T'; readonly seed: number }

/** Both dtypes, every side, uplo, trans and diag: 32 cases. */
export const TRSM_VB_CASES: readonly TrsmVbCase[] = VBATCHED_DTYPES.flatMap((dtype, d) =>
  TRSM_VARIANTS.map((variant, v): TrsmVbCase => ({ dtype, variant, seed: 3000 + d * 16 + v })));

/** Both dtypes, potrs and posv, both triangles: 8 cases. */
export const SOLVE_VB_CASES: readonly SolveVbCase[] = VBATCHED_DTYPES.flatMap((dtype, d) => (['potrs', 'posv'] as const).flatMap((op, o) =>
  (['lower', 'upper'] as const).map((uplo, u): SolveVbCase => ({ dtype, op, uplo, seed: 4000 + d * 4 + o * 2 + u }))));

/** Both dtypes, getrs N and T, gesv: 6 cases. */
export const LU_VB_CASES: readonly LuVbCase[] = VBATCHED_DTYPES.flatMap((dtype, d) => ([['getrs', 'N'], ['getrs', 'T'], ['gesv', 'N']] as const).map(
  ([op, trans], o): LuVbCase => ({ dtype, op, trans, seed: 5000 + d * 3 + o })));

/**
 * B's other dimension for a member whose triangle is t: 0 now and then, up to 70 (beyond one
 * block's 64 vectors) below 200, a few from 200 up (the test's reference stays cheap), and a wide
 * B (300) for every 13th small member (the leaf's column tiling over grid.y).
 */
function otherDimension(rng: Rng, t: number, q: number): number {
  if (t >= 200) return 1 + rng.int(0, 7);
  if (q % 13 === 0 && t < 100) return 300;
  return q % 11 === 0 ? 0 : rng.int(1, 70);
}

export interface TrsmVbLayout {
  /** Per member: its triangle's order and B's other dimension. */
  readonly shapes: readonly { readonly t: number; readonly nvec: number }[];
  readonly a: Layout;
  readonly b: Layout;
  /**
   * Members compared bit for bit with the per-size path (batch order): in each class up to 32,
   * the largest and the smallest order with vectors. There both run one leaf of the same
   * arithmetic (the per-size leaf takes every triangle up to the table's leafMax, 32, whole).
   */
  readonly compare: readonly number[];
}

/** A trsm case's members: the orders 0-600 of the variable-size gemm and potrf cases, B beside each. */
export function trsmVbLayout(c: TrsmVbCase): TrsmVbLayout {
  const rng = new Rng(c.seed);
  const shapes = vbatchedOrders(rng).map((t, q) => ({ t, nvec: otherDimension(rng, t, q) }));
  const left = c.variant.side === 'left';
  const a = vbatchedLayout(rng, shapes.map((s): [number, number] => [s.t, s.t]));
  const b = vbatchedLayout(rng, shapes.map((s): [number, number] => (left ? [s.t, s.nvec] : [s.nvec, s.t])));
  const byClass = new Map<number, number[]>();
  shapes.forEach((s, q) => {
    if (s.t < 1 || s.t > 32 || s.nvec < 1) return;
    const list = byClass.get(classOf(s.t));
    if (list === undefined) byClass.set(classOf(s.t), [q]); else list.push(q);
  });
  const compare = new Set<number>();
  for (const list of byClass.values()) {
    list.sort((x, y) => shapes[y]!.t - shapes[x]!.t || x - y);
    compare.add(list[0]!);
    compare.add(list[list.length - 1]!);
  }
  return { shapes, a, b, compare: [...compare].sort((x, y) => x - y) };
}

export interface SolveVbLayout {
  readonly orders: readonly number[];
  readonly nrhs: readonly number[];
  readonly a: Layout;
  readonly b: Layout;
  /** posv: per class (its bound; beyond 512 the order), the member that fails at a planted column. */
  readonly failing: ReadonlyMap<number, number>;
}

/** A potrs or posv case's members: orders 0-600, nrhs as trsm's other dimension, a failing member per class (posv). */
export function solveVbLayout(c: SolveVbCase): SolveVbLayout {
  const rng = new Rng(c.seed);
  const orders = vbatchedOrders(rng);
  const nrhs = orders.map((n, q) => otherDimension(rng, n, q));
  const a = vbatchedLayout(rng, orders.map((n): [number, number] => [n, n]));
  const b = vbatchedLayout(rng, orders.map((n, q): [number, number] => [n, nrhs[q]!]));
  const failing = new Map<number, number>();
  if (c.op === 'posv') orders.forEach((n, q) => { if (n >= 2 && nrhs[q]! > 0 && !failing.has(classOf(n))) failing.set(classOf(n), q); });
  return { orders, nrhs, a, b, failing };
}

export interface LuVbLayout {
  readonly orders: readonly number[];
  readonly nrhs: readonly number[];
  readonly a: Layout;
  readonly b: Layout;
  /** gesv: per class (its bound; beyond 512 the order), the member made singular (a zero column). */
  readonly failing: ReadonlyMap<number, number>;
  /**
   * gesv: members compared with the per-size path (batch order): in each class from 48 to 512 the
   * largest and the smallest order with right-hand sides, none failing. The per-size path factors
   * them with getrf's per-size kernels (the class kernels' designs) and solves by its own kernels.
   */
  readonly compare: readonly number[];
}

/** A getrs or gesv case's members: orders 0-600, nrhs as trsm's other dimension, a singular member per class (gesv). */
export function luVbLayout(c: LuVbCase): LuVbLayout {
  const rng = new Rng(c.seed);
  const orders = vbatchedOrders(rng);
  const nrhs = orders.map((n, q) => otherDimension(rng, n, q));
  const a = vbatchedLayout(rng, orders.map((n): [number, number] => [n, n]));
  const b = vbatchedLayout(rng, orders.map((n, q): [number, number] => [n, nrhs[q]!]));
  const failing = new Map<number, number>();
  if (c.op === 'gesv') orders.forEach((n, q) => { if (n >= 2 && nrhs[q]! > 0 && !failing.has(classOf(n))) failing.set(classOf(n), q); });
  const failed = new Set(failing.values());
  const byClass = new Map<number, number[]>();
  if (c.op === 'gesv') orders.forEach((n, q) => {
    if (n <= 32 || n > 512 || nrhs[q]! < 1 || failed.has(q)) return;
    const list = byClass.get(classOf(n));
    if (list === undefined) byClass.set(classOf(n), [q]); else list.push(q);
  });
  const compare = new Set<number>();
  for (const list of byClass.values()) {
    list.sort((x, y) => orders[y]! - orders[x]! || x - y);
    compare.add(list[0]!);
    compare.add(list[list.length - 1]!);
  }
  return { orders, nrhs, a, b, failing, compare: [...compare].sort((x, y) => x - y) };
}

/** The most kernels the GPU file may compile (test/cuda/vbatched-trsm.test.ts counts them on a planning device). */
export const VBATCHED_SOLVE_GPU_KERNELS = 300;

/** The pivot stride of a getrs or gesv case's whole batch (its largest order) and of its compared members. */
export const luPivotStride = (orders: readonly number[], which?: readonly number[]): number =>
  (which ?? orders.map((_, q) => q)).reduce((s, q) => Math.max(s, orders[q]!), 0);

/**
 * Every call test/gpu/vbatched-solve.test.ts makes, on zeros: per case the whole batch by class
 * (`route({})`), for trsm the compared members on the per-size path (`route({ trsm: 'trsm' })`);
 * getrs: the call and the two trsm by class that the file composes it of; gesv: the call, getrs by
 * class on its factors, and the compared members on the per-size path (`route({ gesv: 'gesv' })`).
 */
export function recordVbatchedSolveCalls(ctx: Context, route: (force: RouteForce) => void): void {
  for (const c of TRSM_VB_CASES) {
    const l = trsmVbLayout(c);
    const dA = ctx.upload(allocate(c.dtype, l.a.length)) as DeviceStorage, dB = ctx.upload(allocate(c.dtype, l.b.length)) as DeviceStorage;
    for (const which of [undefined, l.compare]) {
      route(which === undefined ? {} : { trsm: 'trsm' });
      ctx.trsm({ ...c.variant, alpha: -1.5, a: batchOf(dA, l.a, which), b: batchOf(dB, l.b, which) });
    }
  }
  route({});
  for (const c of SOLVE_VB_CASES) {
    const l = solveVbLayout(c);
    const dA = ctx.upload(allocate(c.dtype, l.a.length)) as DeviceStorage, dB = ctx.upload(allocate(c.dtype, l.b.length)) as DeviceStorage;
    ctx[c.op]({ uplo: c.uplo, a: batchOf(dA, l.a), b: batchOf(dB, l.b) });
  }
  for (const c of LU_VB_CASES) {
    const l = luVbLayout(c);
    const dA = ctx.upload(allocate(c.dtype, l.a.length)) as DeviceStorage, dB = ctx.upload(allocate(c.dtype, l.b.length)) as DeviceStorage;
    const ipiv = ctx.upload(new Int32Array(l.orders.length * luPivotStride(l.orders))) as DeviceStorage;
    const a = batchOf(dA, l.a), b = batchOf(dB, l.b);
    route({});
    if (c.op === 'getrs') {
      ctx.getrs({ trans: c.trans, a, ipiv, b });
      luTrsmCalls(c.trans, (uplo, diag) => ctx.trsm({ side: 'left', uplo, transA: c.trans, diag, alpha: 1, a, b }));
      continue;
    }
    ctx.gesv({ a, b, ipiv });
    ctx.getrs({ trans: 'N', a, ipiv, b });
    route({ gesv: 'gesv' });
    const sub = ctx.upload(new Int32Array(l.compare.length * luPivotStride(l.orders, l.compare))) as DeviceStorage;
    ctx.gesv({ a: batchOf(dA, l.a, l.compare), b: batchOf(dB, l.b, l.compare), ipiv: sub });
    route({});
  }
}

/** The two triangular solves of getrs with LU factors, in order: op N L then U, op T U^T then L^T. */
export function luTrsmCalls(trans: 'N' | 'T', solve: (uplo: Uplo, diag: 'unit' | 'nonunit') => void): void {
  if (trans === 'N') { solve('lower', 'unit'); solve('upper', 'nonunit'); } else { solve('upper', 'nonunit'); solve('lower', 'unit'); }
}

/**
 * Member of order n at `off` (leading dimension ld): a random row permutation of a matrix whose
 * columns are strictly diagonally dominant (elimination keeps that, so every pivot wins by a wide
 * margin and the pivots follow the permutation), rounded to the dtype; `zero` >= 0: that column
 * zero (getrf's info zero + 1, exactly).
 */
export function fillLu(rng: Rng, dtype: DType, h: FloatArray, off: number, ld: number, n: number, zero: number): void {
  const a = new Float64Array(n * n);
  for (let e = 0; e < a.length; e++) a[e] = rng.uniform();
  for (let j = 0; j < n; j++) a[j + j * n] = (rng.uniform() < 0 ? -1 : 1) * (n + 1 + rng.uniform(0, 1));
  const perm = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) { const j = rng.int(0, i); [perm[i], perm[j]] = [perm[j]!, perm[i]!]; }
  const round = dtype === 'float32' ? Math.fround : (x: number): number => x;
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) h[off + i + j * ld] = j === zero ? 0 : round(a[perm[i]! + j * n]!);
}

