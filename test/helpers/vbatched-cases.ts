/**
 * The cases of test/gpu/vbatched.test.ts (variable-size gemm, potrf and getrf by size class): each case's
 * shapes and layout (seeded, so the same on every run and on a planning device), the members whose
 * results are compared bit for bit with the per-size path, and `recordVbatchedCalls`, which makes
 * every call the GPU file makes on a context (the GPU file runs it on a planning backend to compile
 * all its kernels at once; test/cuda/vbatched.test.ts counts them on a planning device).
 */
import type { Context } from '../../src/api/context.js';
import { variable, type VariableBatch } from '../../src/core/batch.js';
import { allocate, type DType } from '../../src/core/dtype.js';
import type { Op } from '../../src/core/ops.js';
import type { DeviceStorage } from '../../src/core/storage.js';
import type { DeviceArray } from '../../src/cuda/runtime/types.js';
import { sizeClass } from '../../src/cuda/kernels/common/vbatch.js';
import { REGISTER_DESIGN_MAX } from '../../src/cuda/kernels/common/register-tile.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import { getrfMemberSize, getrfRegisterClassMax } from '../../src/cuda/kernels/getrf/index.js';
import { Rng } from './random.js';
import type { GetrfMemberKind } from './vbatched-getrf.js';

export const VBATCHED_DTYPES: readonly DType[] = ['float64', 'float32'];
export const VBATCHED_OPS: readonly (readonly [Op, Op])[] = [['N', 'N'], ['N', 'T'], ['T', 'N'], ['T', 'T']];

export interface GemmCase { readonly dtype: DType; readonly transA: Op; readonly transB: Op; readonly beta: number; readonly seed: number }
export interface PotrfCase { readonly dtype: DType; readonly uplo: 'lower' | 'upper'; readonly seed: number }

/** Both dtypes, all transposes, beta 0 and not: 16 cases. */
export const GEMM_CASES: readonly GemmCase[] = VBATCHED_DTYPES.flatMap((dtype, d) => VBATCHED_OPS.flatMap(([transA, transB], o) =>
  [0, 0.5].map((beta, b): GemmCase => ({ dtype, transA, transB, beta, seed: 1000 + d * 16 + o * 2 + b }))));

export const POTRF_CASES: readonly PotrfCase[] = VBATCHED_DTYPES.flatMap((dtype, d) =>
  (['lower', 'upper'] as const).map((uplo, u): PotrfCase => ({ dtype, uplo, seed: 2000 + d * 2 + u })));

/** Orders of one batch: zeros, ones, every order 1-40, a few per larger class, some beyond 512; shuffled. */
export function vbatchedOrders(rng: Rng): number[] {
  const list = [0, 0, 1, 1, 1];
  for (let n = 1; n <= 40; n++) list.push(n);
  list.push(41, 47, 48, 49, 57, 64, 65, 96, 100, 127, 128, 129, 200, 256, 257, 384, 511, 512, 513, 600);
  for (let i = list.length - 1; i > 0; i--) { const j = rng.int(0, i); [list[i], list[j]] = [list[j]!, list[i]!]; }
  return list;
}

/** A member's class bound (beyond the last class: its own size). */
export const classOf = (n: number): number => sizeClass(n) ?? n;

/** One member's place in its operand's buffer. */
export interface Place { readonly offset: number; readonly rows: number; readonly cols: number; readonly ld: number }

/** Members' places in one buffer, its length, and which elements belong to a member (1) or not (0). */
export interface Layout { readonly places: readonly Place[]; readonly length: number; readonly inside: Uint8Array }

/** Places of members of these shapes in one buffer: ld = rows + 0..3 (at least 1), gaps of 0..5 elements. */
export function vbatchedLayout(rng: Rng, shapes: readonly (readonly [number, number])[]): Layout {
  let at = rng.int(0, 3);
  const places = shapes.map(([rows, cols]): Place => {
    const ld = Math.max(1, rows + rng.int(0, 3));
    const p = { offset: at, rows, cols, ld };
    at += ld * cols + rng.int(0, 5);
    return p;
  });
  const length = at + 1;
  const inside = new Uint8Array(length);
  for (const p of places) for (let j = 0; j < p.cols; j++) inside.fill(1, p.offset + j * p.ld, p.offset + j * p.ld + p.rows);
  return { places, length, inside };
}

/**
 * Up to `most` members per class for the bit-for-bit comparison, of distinct sizes: those of
 * `first` in the class, then its largest and its smallest eligible member. Batch order.
 */
function pickPerClass(sizes: readonly number[], eligible: (q: number) => boolean, first: readonly number[], most: number): number[] {
  const classes = new Map<number, number[]>();
  sizes.forEach((d, q) => {
    if (!eligible(q)) return;
    const list = classes.get(classOf(d));
    if (list === undefined) classes.set(classOf(d), [q]); else list.push(q);
  });
  const out: number[] = [];
  for (const members of classes.values()) {
    members.sort((x, y) => sizes[y]! - sizes[x]! || x - y);
    const picked: number[] = [];
    for (const q of [...first.filter((x) => members.includes(x)), members[0]!, members[members.length - 1]!]) {
      if (picked.length < most && !picked.some((x) => sizes[x] === sizes[q])) picked.push(q);
    }
    out.push(...picked);
  }
  return out.sort((x, y) => x - y);
}

/** Members compared bit for bit with the per-size path: at most this many (of distinct sizes) per class. */
export const BIT_PER_CLASS = { gemm: 2, potrf: 2, getrf: 2 } as const;

export interface GemmLayout {
  readonly shapes: readonly { readonly m: number; readonly n: number; readonly k: number }[];
  readonly a: Layout; readonly b: Layout; readonly c: Layout;
  /** Members compared bit for bit with the per-size path (batch order). */
  readonly compare: readonly number[];
}

/**
 * A gemm case's members: m the order, n and k near it; from 2 to 33 one of m, n, k drawn in 1..order
 * in turn (members ragged in all three inside a class); from 300 up one of m, n, k is small in turn
 * (the member stays in its class or beyond 512, and the test's reference product stays cheap).
 * Compared bit for bit (where both paths run the same arithmetic: float32 every member, the small
 * and tiled kernels sum k in order; float64 the very-small kernel's sizes, up to smallMaxDim, k > 0).
 */
export function gemmLayout(c: GemmCase, arch: string): GemmLayout {
  const rng = new Rng(c.seed);
  const shapes = vbatchedOrders(rng).map((s, q) => {
    let m = s, n = Math.max(0, s - rng.int(0, 2)), k = s === 0 ? rng.int(0, 3) : Math.max(0, s + rng.int(-1, 1));
    const thin = 1 + rng.int(0, 7);
    if (s >= 300) { if (q % 3 === 0) m = thin; else if (q % 3 === 1) n = thin; else k = thin; }
    // The staged classes (up to 32) and the first member beyond: one of m, n, k drawn below the order in turn.
    if (s >= 2 && s <= 33) { const r = rng.int(1, s); if (q % 3 === 0) m = r; else if (q % 3 === 1) n = r; else k = r; }
    return { m, n, k };
  });
  const a = vbatchedLayout(rng, shapes.map((s): [number, number] => (c.transA === 'N' ? [s.m, s.k] : [s.k, s.m])));
  const b = vbatchedLayout(rng, shapes.map((s): [number, number] => (c.transB === 'N' ? [s.k, s.n] : [s.n, s.k])));
  const cl = vbatchedLayout(rng, shapes.map((s): [number, number] => [s.m, s.n]));
  const smallMax = tuningFor(arch, 'gemm').smallMaxDim[c.dtype];
  const size = shapes.map((s) => Math.max(s.m, s.n, s.k));
  const eligible = (q: number): boolean => {
    const s = shapes[q]!;
    if (s.m === 0 || s.n === 0 || size[q]! > 512) return false;
    return c.dtype === 'float32' || (size[q]! <= smallMax && s.k > 0);
  };
  return { shapes, a, b, c: cl, compare: pickPerClass(size, eligible, [], BIT_PER_CLASS.gemm) };
}

export interface PotrfLayout {
  readonly orders: readonly number[];
  readonly layout: Layout;
  /** Per class (its bound; beyond 512 the order): the member that fails at a planted column, the one with a NaN. */
  readonly failing: ReadonlyMap<number, number>;
  readonly nan: ReadonlyMap<number, number>;
  readonly compare: readonly number[];
}

/**
 * A potrf case's members, the failing and NaN member of every class, and those compared bit for
 * bit with the per-size path: where both run one design with one step (the warp design where the
 * classic flag agrees, the register design where both take it, the panel design: one arithmetic
 * for any width), the failing and NaN members first.
 */
export function potrfLayout(c: PotrfCase, arch: string): PotrfLayout {
  const rng = new Rng(c.seed);
  const orders = vbatchedOrders(rng);
  const layout = vbatchedLayout(rng, orders.map((n): [number, number] => [n, n]));
  const failing = new Map<number, number>(), nan = new Map<number, number>();
  orders.forEach((n, q) => {
    const k = classOf(n);
    if (n >= 2 && !failing.has(k)) failing.set(k, q);
    else if (n >= 1 && !nan.has(k)) nan.set(k, q);
  });
  const t = tuningFor(arch, 'potrf');
  const registerMax = Math.min(t.registerMax[c.dtype], REGISTER_DESIGN_MAX);
  const design = (n: number): string => (n <= 32 ? `small${n <= t.classicMax[c.dtype]}` : n <= registerMax ? 'register' : 'panel');
  const eligible = (q: number): boolean => { const n = orders[q]!; return n > 0 && n <= 512 && design(n) === design(classOf(n)); };
  const compare = pickPerClass(orders, eligible, [...failing.values(), ...nan.values()], BIT_PER_CLASS.potrf);
  return { orders, layout, failing, nan, compare };
}

export interface GetrfCase { readonly dtype: DType; readonly seed: number }

/** One batch per dtype. */
export const GETRF_CASES: readonly GetrfCase[] = VBATCHED_DTYPES.map((dtype, d): GetrfCase => ({ dtype, seed: 3000 + d }));

export interface GetrfLayout {
  readonly shapes: readonly (readonly [number, number])[];
  readonly layout: Layout;
  /** Per class (its bound; beyond the classes the size): a singular member, then a NaN member; the others plain. */
  readonly kinds: readonly GetrfMemberKind[];
  /** Members compared bit for bit with the per-size path (batch order). */
  readonly compare: readonly number[];
}

/**
 * A getrf case's members: vbatchedOrders's sizes as max(m, n), square, tall and wide in turn (the
 * other side down to half), m or n = 0 for the zeros, one side 1-8 from 300 up (the per-size path's
 * blocked design on tall and wide members; the reference stays cheap). The singular and NaN member
 * of every class, and a few members of every class compared bit for bit with the per-size path
 * where both run the same design (the warp design to 32, the register design, whose results depend
 * on neither its shape nor the class bound, the blocked design, whose panel width is the same for
 * the member's rows and for the class bound while the widest panel fits the shared memory: to 512
 * on sm_90), the singular and NaN members first.
 */
export function getrfLayout(c: GetrfCase, arch: string): GetrfLayout {
  const rng = new Rng(c.seed);
  const shapes = vbatchedOrders(rng).map((s, q): [number, number] => {
    if (s === 0) return q % 2 === 0 ? [0, rng.int(0, 5)] : [rng.int(0, 5), 0];
    if (s >= 300) return q % 2 === 0 ? [s, 1 + rng.int(0, 7)] : [1 + rng.int(0, 7), s];
    const other = Math.max(1, s - rng.int(0, Math.floor(s / 2)));
    return q % 3 === 0 ? [s, s] : q % 3 === 1 ? [s, other] : [other, s];
  });
  const layout = vbatchedLayout(rng, shapes);
  const size = shapes.map(([m, n]) => getrfMemberSize(m, n));
  const singular = new Map<number, number>(), nan = new Map<number, number>();
  shapes.forEach(([m, n], q) => {
    const k = classOf(size[q]!);
    if (Math.min(m, n) >= 2 && !singular.has(k)) singular.set(k, q);
    else if (Math.min(m, n) >= 1 && !nan.has(k)) nan.set(k, q);
  });
  const kinds = shapes.map((_, q): GetrfMemberKind => (singular.get(classOf(size[q]!)) === q ? 'singular' : nan.get(classOf(size[q]!)) === q ? 'nan' : 'plain'));
  const t = tuningFor(arch, 'getrf');
  const registerMax = Math.min(t.registerMax[c.dtype], REGISTER_DESIGN_MAX), registerClasses = getrfRegisterClassMax(c.dtype, t);
  const perSize = (s: number): string => (s <= 32 ? 'small' : s <= registerMax ? 'register' : 'blocked');
  const byClass = (bound: number): string => (bound <= 32 ? 'small' : bound <= registerClasses ? 'register' : 'blocked');
  const eligible = (q: number): boolean => size[q]! > 0 && size[q]! <= 512 && perSize(size[q]!) === byClass(classOf(size[q]!));
  const compare = pickPerClass(size, eligible, [...singular.values(), ...nan.values()], BIT_PER_CLASS.getrf);
  return { shapes, layout, kinds, compare };
}

/** The largest min(m, n) of the members `which` (all where undefined): the API's pivot stride for their batch. */
export function pivotStrideFor(shapes: readonly (readonly [number, number])[], which?: readonly number[]): number {
  return (which ?? shapes.map((_, q) => q)).reduce((s, q) => Math.max(s, Math.min(shapes[q]![0], shapes[q]![1])), 0);
}

/** The most kernels the GPU file may compile (test/cuda/vbatched.test.ts counts them on a planning device). */
export const VBATCHED_GPU_KERNELS = 440;

/** A variable batch over `d` of the members `which` (all where undefined). */
export function batchOf(d: DeviceStorage, l: Layout, which?: readonly number[]): ReturnType<typeof variable> {
  const places = which === undefined ? l.places : which.map((q) => l.places[q]!);
  return variable(places.map((p) => ({ data: d, rows: p.rows, cols: p.cols, ld: p.ld, offset: p.offset })));
}

/**
 * Every call test/gpu/vbatched.test.ts makes, on zeros: per case the whole batch by class
 * (`route(op, undefined)`) and the compared members on the per-size path (`route(op, op)`).
 */
export function recordVbatchedCalls(ctx: Context, route: (op: 'gemm' | 'potrf' | 'getrf', force: string | undefined) => void, arch: string): void {
  for (const c of GEMM_CASES) {
    const l = gemmLayout(c, arch);
    const up = (x: Layout): DeviceStorage => ctx.upload(allocate(c.dtype, x.length)) as DeviceStorage;
    const dA = up(l.a), dB = up(l.b), dC = up(l.c);
    for (const which of [undefined, l.compare]) {
      route('gemm', which === undefined ? undefined : 'gemm');
      ctx.gemm({ transA: c.transA, transB: c.transB, alpha: -1.25, beta: c.beta, a: batchOf(dA, l.a, which), b: batchOf(dB, l.b, which), c: batchOf(dC, l.c, which) });
    }
  }
  for (const c of POTRF_CASES) {
    const l = potrfLayout(c, arch);
    const d = ctx.upload(allocate(c.dtype, l.layout.length)) as DeviceStorage;
    for (const which of [undefined, l.compare]) {
      route('potrf', which === undefined ? undefined : 'potrf');
      ctx.potrf({ uplo: c.uplo, a: batchOf(d, l.layout, which) });
    }
  }
  for (const c of GETRF_CASES) {
    const l = getrfLayout(c, arch);
    const d = ctx.upload(allocate(c.dtype, l.layout.length)) as DeviceStorage;
    for (const which of [undefined, l.compare]) {
      route('getrf', which === undefined ? undefined : 'getrf');
      ctx.getrf({ a: batchOf(d, l.layout, which) });
    }
  }
}

/**
 * `count` members of the shapes `shape(i)` (rows, cols) spread over `arrays` by `r`: each in a random
 * array at a gap after the previous one there, with a ragged ld (rows + 0-2). The host-side launcher
 * tests' batches (test/cuda/vbatched-tables.test.ts, vbatched-launch-record.test.ts); `r` is drawn in
 * one order (the arrays' starts, then each member's shape, array, ld and gap), so a seed gives one batch.
 */
export function raggedMembers(arrays: readonly DeviceArray[], count: number, shape: (i: number) => readonly [number, number], r: () => number): VariableBatch<DeviceArray> {
  const at = arrays.map(() => Math.floor(r() * 5));
  return variable(Array.from({ length: count }, (_, i) => {
    const [rows, cols] = shape(i);
    const which = Math.floor(r() * arrays.length);
    const ld = Math.max(1, rows) + Math.floor(r() * 3);
    const m = { data: arrays[which]!, rows, cols, ld, offset: at[which]! };
    at[which]! += ld * Math.max(cols, 1) + Math.floor(r() * 4);
    return m;
  }), {}, 'x');
}
