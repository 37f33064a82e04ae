/**
 * The cases of test/gpu/vbatched-device.test.ts (variableDevice against variable(): gemm, potrf, getrf, trsm, potrs, posv)
 * and of test/gpu/vdevice-lu.test.ts (getrs, gesv: `LU`, `luInvalid`, `recordLuDeviceCalls`): the batches,
 * the device form's arrays with three invalid members appended, and every call the file makes
 * (recordDeviceCalls: its kernels compiled ahead on a GPU, counted on a planning device by
 * test/cuda/vdevice-api.test.ts).
 */
import { allocate, type DType } from '../../src/core/dtype.js';
import { variableDevice, type DeviceVariableBatch } from '../../src/core/device-batch.js';
import type { Op } from '../../src/core/ops.js';
import type { DeviceStorage } from '../../src/core/storage.js';
import type { Context } from '../../src/api/context.js';
import { batchOf, gemmLayout, getrfLayout, GETRF_CASES, pivotStrideFor, potrfLayout, type GemmCase, type GetrfCase, type Layout, type Place, type PotrfCase } from './vbatched-cases.js';
import {
  LU_VB_CASES, luPivotStride, luVbLayout, SOLVE_VB_CASES, solveVbLayout, TRSM_VB_CASES, trsmVbLayout, type LuVbCase, type LuVbLayout, type SolveVbCase, type TrsmVbCase,
} from './vbatched-solve-cases.js';

export const ALPHA = -1.25;

/** getrf: one batch per dtype (test/helpers/vbatched-cases.ts's GETRF_CASES, seeds of their own). */
export const GETRF: readonly GetrfCase[] = GETRF_CASES.map((c, i) => ({ ...c, seed: 7000 + i }));

export const GEMM: readonly GemmCase[] = ([
  ['float64', 'N', 'T', 0.5], ['float32', 'T', 'N', 0], ['float64', 'T', 'T', 0], ['float32', 'N', 'N', 0.5],
] as const).map(([dtype, transA, transB, beta], i) => ({ dtype, transA, transB, beta, seed: 5000 + i }));
export const POTRF: readonly PotrfCase[] = (['float64', 'float32'] as const).flatMap((dtype, d) =>
  (['lower', 'upper'] as const).map((uplo, u) => ({ dtype, uplo, seed: 6000 + 2 * d + u })));

/** trsm: both dtypes, every side, uplo, trans and diag (test/helpers/vbatched-solve-cases.ts's layouts, seeds of their own). */
export const TRSM: readonly TrsmVbCase[] = TRSM_VB_CASES.map((c, i) => ({ ...c, seed: 8000 + i }));
/** potrs and posv: both dtypes and triangles (posv: a member failing in every class). */
export const SOLVE: readonly SolveVbCase[] = SOLVE_VB_CASES.map((c, i) => ({ ...c, seed: 9000 + i }));
export const TRSM_ALPHA = -1.5;

/** A member of the device form: where it is, and the sizes its device arrays say (which may be invalid). */
export interface DeviceMember { readonly offset: number; readonly rows: number; readonly cols: number; readonly ld: number }

/** The device form of members over `data`: int32 rows, cols, ld and int64 addresses uploaded, maxima given. */
export function deviceForm(ctx: Context, data: DeviceStorage, members: readonly DeviceMember[], maxRows: number, maxCols: number, dtype: DType): DeviceVariableBatch {
  const ints = (f: (m: DeviceMember) => number): DeviceStorage => ctx.upload(Int32Array.from(members, f)) as DeviceStorage;
  return variableDevice({
    count: members.length, rows: ints((m) => m.rows), cols: ints((m) => m.cols), ld: ints((m) => m.ld),
    pointers: ctx.upload(BigInt64Array.from(members, (m) => ctx.deviceAddress(data, m.offset))) as DeviceStorage,
    maxRows, maxCols, dtype,
  });
}

export const maxOf = (places: readonly Place[], f: (p: Place) => number): number => places.reduce((x, p) => Math.max(x, f(p)), 0);

/** The valid members' own entries, then three invalid ones pointing at `target`'s matrix. */
function withInvalid(places: readonly Place[], target: number, spoil: readonly ((p: Place) => DeviceMember)[]): DeviceMember[] {
  return [...places, ...spoil.map((f) => f(places[target]!))];
}

/** The member whose matrix the invalid members point at: the largest up to 512 with something in it. */
export function targetOf(sizes: readonly number[]): number {
  let best = -1;
  sizes.forEach((s, q) => { if (s <= 512 && (best < 0 || s > sizes[best]!)) best = q; });
  return best;
}

export function gemmInvalid(l: ReturnType<typeof gemmLayout>, target: number, transB: Op): {
  a: DeviceMember[]; b: DeviceMember[]; c: DeviceMember[]; max: Record<'a' | 'b' | 'c', [number, number]>; codes: number[];
} {
  const max = {
    a: [maxOf(l.a.places, (p) => p.rows), maxOf(l.a.places, (p) => p.cols)] as [number, number],
    b: [maxOf(l.b.places, (p) => p.rows), maxOf(l.b.places, (p) => p.cols)] as [number, number],
    c: [maxOf(l.c.places, (p) => p.rows), maxOf(l.c.places, (p) => p.cols)] as [number, number],
  };
  const keep = (p: Place): DeviceMember => p;
  // 1: C's rows beyond c.maxRows (-3); 2: ldA = 0 (-8); 3: op(B)'s columns differ from C's (-4).
  const a = withInvalid(l.a.places, target, [keep, (p) => ({ ...p, ld: 0 }), keep]);
  const b = withInvalid(l.b.places, target, [keep, keep, (p) => (transB === 'N' ? { ...p, cols: p.cols + 1 } : { ...p, rows: p.rows + 1, ld: p.ld + 1 })]);
  const c = withInvalid(l.c.places, target, [(p) => ({ ...p, rows: max.c[0] + 1, ld: max.c[0] + 1 }), keep, keep]);
  return { a, b, c, max, codes: [-3, -8, -4] };
}

/** Every call this file makes (both forms, every case), for the compile ahead. */
/** `after` runs after each call (a test reads the route there). */
export function recordDeviceCalls(ctx: Context, arch: string, after: () => void = () => {}): void {
  for (const c of GEMM) {
    const l = gemmLayout(c, arch);
    const up = (x: Layout): DeviceStorage => ctx.upload(allocate(c.dtype, x.length)) as DeviceStorage;
    const dA = up(l.a), dB = up(l.b), dC = up(l.c);
    ctx.gemm({ transA: c.transA, transB: c.transB, alpha: ALPHA, beta: c.beta, a: batchOf(dA, l.a), b: batchOf(dB, l.b), c: batchOf(dC, l.c) });
    after();
    const v = gemmInvalid(l, targetOf(l.shapes.map((s) => Math.max(s.m, s.n, s.k))), c.transB);
    ctx.gemm({
      transA: c.transA, transB: c.transB, alpha: ALPHA, beta: c.beta, info: ctx.alloc('int32', v.c.length),
      a: deviceForm(ctx, dA, v.a, ...v.max.a, c.dtype), b: deviceForm(ctx, dB, v.b, ...v.max.b, c.dtype), c: deviceForm(ctx, dC, v.c, ...v.max.c, c.dtype),
    });
    after();
  }
  for (const c of POTRF) {
    const l = potrfLayout(c, arch);
    const d = ctx.upload(allocate(c.dtype, l.layout.length)) as DeviceStorage;
    ctx.potrf({ uplo: c.uplo, a: batchOf(d, l.layout) });
    after();
    const max = maxOf(l.layout.places, (p) => p.rows);
    ctx.potrf({ uplo: c.uplo, a: deviceForm(ctx, d, potrfInvalid(l, max).members, max, max, c.dtype) });
    after();
  }
  for (const c of TRSM) {
    const l = trsmVbLayout(c);
    const dA = ctx.upload(allocate(c.dtype, l.a.length)) as DeviceStorage, dB = ctx.upload(allocate(c.dtype, l.b.length)) as DeviceStorage;
    ctx.trsm({ ...c.variant, alpha: TRSM_ALPHA, a: batchOf(dA, l.a), b: batchOf(dB, l.b) });
    after();
    const v = trsmInvalid(l);
    ctx.trsm({
      ...c.variant, alpha: TRSM_ALPHA, info: ctx.alloc('int32', v.b.length),
      a: deviceForm(ctx, dA, v.a, ...v.max.a, c.dtype), b: deviceForm(ctx, dB, v.b, ...v.max.b, c.dtype),
    });
    after();
  }
  for (const c of SOLVE) {
    const l = solveVbLayout(c);
    const dA = ctx.upload(allocate(c.dtype, l.a.length)) as DeviceStorage, dB = ctx.upload(allocate(c.dtype, l.b.length)) as DeviceStorage;
    ctx[c.op]({ uplo: c.uplo, a: batchOf(dA, l.a), b: batchOf(dB, l.b) });
    after();
    const v = solveInvalid(l);
    ctx[c.op]({ uplo: c.uplo, a: deviceForm(ctx, dA, v.a, ...v.max.a, c.dtype), b: deviceForm(ctx, dB, v.b, ...v.max.b, c.dtype) });
    after();
  }
  for (const c of GETRF) {
    const l = getrfLayout(c, arch);
    const d = ctx.upload(allocate(c.dtype, l.layout.length)) as DeviceStorage;
    const ints = (n: number): DeviceStorage => ctx.upload(new Int32Array(Math.max(1, n))) as DeviceStorage;
    ctx.getrf({ a: batchOf(d, l.layout), ipiv: ints(l.shapes.length * pivotStrideFor(l.shapes)), info: ints(l.shapes.length) });
    after();
    const v = getrfInvalid(l);
    ctx.getrf({ a: deviceForm(ctx, d, v.members, v.maxRows, v.maxCols, c.dtype), ipiv: ints(v.members.length * Math.min(v.maxRows, v.maxCols)), info: ints(v.members.length) });
    after();
  }
}

/** The largest member up to 512 whose B has vectors (its matrices are what the invalid members point at). */
function solvedTarget(t: readonly number[], nvec: readonly number[]): number {
  return targetOf(t.map((x, q) => (nvec[q]! > 0 ? x : -1)));
}

export function trsmInvalid(l: ReturnType<typeof trsmVbLayout>): { a: DeviceMember[]; b: DeviceMember[]; max: Record<'a' | 'b', [number, number]>; codes: number[] } {
  const max = {
    a: [maxOf(l.a.places, (p) => p.rows), maxOf(l.a.places, (p) => p.cols)] as [number, number],
    b: [maxOf(l.b.places, (p) => p.rows), maxOf(l.b.places, (p) => p.cols)] as [number, number],
  };
  const target = solvedTarget(l.shapes.map((s) => s.t), l.shapes.map((s) => s.nvec));
  const keep = (p: Place): DeviceMember => p;
  // 1: B's rows beyond b.maxRows (-5); 2: ldA below the triangle's order (-9); 3: ldB below B's rows (-11).
  const a = withInvalid(l.a.places, target, [keep, (p) => ({ ...p, ld: p.rows - 1 }), keep]);
  const b = withInvalid(l.b.places, target, [(p) => ({ ...p, rows: max.b[0] + 1, ld: max.b[0] + 1 }), keep, (p) => ({ ...p, ld: p.rows - 1 })]);
  return { a, b, max, codes: [-5, -9, -11] };
}

export function solveInvalid(l: ReturnType<typeof solveVbLayout>): { a: DeviceMember[]; b: DeviceMember[]; max: Record<'a' | 'b', [number, number]>; codes: number[] } {
  const max = {
    a: [maxOf(l.a.places, (p) => p.rows), maxOf(l.a.places, (p) => p.cols)] as [number, number],
    b: [maxOf(l.b.places, (p) => p.rows), maxOf(l.b.places, (p) => p.cols)] as [number, number],
  };
  const target = solvedTarget(l.orders, l.nrhs);
  const keep = (p: Place): DeviceMember => p;
  // 1: order beyond a.maxRows (-2); 2: nrhs beyond b.maxCols (-3); 3: ldA below n (-5); 4: ldB below n (-7).
  const a = withInvalid(l.a.places, target, [(p) => ({ ...p, rows: max.a[0] + 1, cols: max.a[0] + 1, ld: max.a[0] + 1 }), keep, (p) => ({ ...p, ld: p.rows - 1 }), keep]);
  const b = withInvalid(l.b.places, target, [keep, (p) => ({ ...p, cols: max.b[1] + 1 }), keep, (p) => ({ ...p, ld: p.rows - 1 })]);
  return { a, b, max, codes: [-2, -3, -5, -7] };
}

export function getrfInvalid(l: ReturnType<typeof getrfLayout>): { members: DeviceMember[]; maxRows: number; maxCols: number; codes: number[] } {
  const maxRows = maxOf(l.layout.places, (p) => p.rows), maxCols = maxOf(l.layout.places, (p) => p.cols);
  // 1: rows beyond maxRows (-1); 2: cols beyond maxCols (-2); 3: ld below the rows (-4).
  const target = targetOf(l.shapes.map(([m, n]) => (Math.min(m, n) === 0 ? 0 : Math.max(m, n))));
  const members = withInvalid(l.layout.places, target, [
    (p) => ({ ...p, rows: maxRows + 1, ld: maxRows + 1 }), (p) => ({ ...p, cols: maxCols + 1 }), (p) => ({ ...p, ld: p.rows - 1 }),
  ]);
  return { members, maxRows, maxCols, codes: [-1, -2, -4] };
}

export function potrfInvalid(l: ReturnType<typeof potrfLayout>, max: number): { members: DeviceMember[]; codes: number[] } {
  // 1: order beyond maxRows (-2); 2: ld below the order (-4); 3: cols differ from rows (-2).
  const members = withInvalid(l.layout.places, targetOf(l.orders), [
    (p) => ({ ...p, rows: max + 1, cols: max + 1, ld: max + 1 }), (p) => ({ ...p, ld: p.rows - 1 }), (p) => ({ ...p, cols: p.rows + 1 }),
  ]);
  return { members, codes: [-2, -4, -2] };
}


/** getrs (op N and T) and gesv (a singular member in every class): both dtypes (vbatched-solve-cases.ts's LU layouts, seeds of their own). */
export const LU: readonly LuVbCase[] = LU_VB_CASES.map((c, i) => ({ ...c, seed: 9500 + i }));

/**
 * getrs's and gesv's invalid members (solveInvalid's: the order beyond a.maxRows, nrhs beyond
 * b.maxCols, ldA and ldB below n) with their codes, dgetrs's or dgesv's argument numbers.
 */
export function luInvalid(l: LuVbLayout, op: 'getrs' | 'gesv'): ReturnType<typeof solveInvalid> {
  return { ...solveInvalid(l), codes: op === 'getrs' ? [-2, -3, -5, -8] : [-1, -2, -4, -7] };
}

/** Every call test/gpu/vdevice-lu.test.ts makes (both forms, every case), for the compile ahead; `after` runs after each. */
export function recordLuDeviceCalls(ctx: Context, after: () => void = () => {}): void {
  for (const c of LU) {
    const l = luVbLayout(c);
    const dA = ctx.upload(allocate(c.dtype, l.a.length)) as DeviceStorage, dB = ctx.upload(allocate(c.dtype, l.b.length)) as DeviceStorage;
    const stride = luPivotStride(l.orders);
    const pivots = (count: number): DeviceStorage => ctx.upload(new Int32Array(Math.max(1, count * stride))) as DeviceStorage;
    const host = { a: batchOf(dA, l.a), b: batchOf(dB, l.b), ipiv: pivots(l.orders.length) };
    if (c.op === 'getrs') ctx.getrs({ trans: c.trans, ...host }); else ctx.gesv(host);
    after();
    const v = luInvalid(l, c.op);
    const device = { a: deviceForm(ctx, dA, v.a, ...v.max.a, c.dtype), b: deviceForm(ctx, dB, v.b, ...v.max.b, c.dtype), ipiv: pivots(v.b.length), info: ctx.alloc('int32', v.b.length) };
    if (c.op === 'getrs') ctx.getrs({ trans: c.trans, ...device }); else ctx.gesv(device);
    after();
  }
}
