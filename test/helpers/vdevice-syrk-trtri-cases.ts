/**
 * The cases of test/gpu/vdevice-syrk-trtri.test.ts (syrk and trtri on variableDevice batches against
 * variable()): the batches (orders 0-600: zeros, ones, every order 1-40, both sides of the class
 * boundaries, beyond 512; shuffled, ragged ld, gaps), their data, the device form's members with
 * invalid ones appended, both forms' calls, and every call the file makes (recordCalls: its kernels
 * compiled ahead on a GPU, its calls checked on a planning device by test/cuda/vdevice-syrk-trtri.test.ts).
 */
import assert from 'node:assert/strict';
import type { Context } from '../../src/api/context.js';
import type { CudaBackend } from '../../src/cuda/backend.js';
import type { MatrixView } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import type { Diag, Uplo } from '../../src/core/enums.js';
import type { Op } from '../../src/core/ops.js';
import type { DeviceStorage } from '../../src/core/storage.js';
import { Rng } from './random.js';
import { fillTriangle } from './trsm-data.js';
import { batchOf, classOf, vbatchedLayout, type Layout, type Place } from './vbatched-cases.js';
import { deviceForm, maxOf, type DeviceMember } from './vbatched-device-cases.js';

export const SENTINEL = 12345.5;

/** Orders 0-600: zeros, ones, every order 1-40, both sides of the class boundaries, beyond 512; shuffled. */
export function orders(rng: Rng): number[] {
  const list = [0, 0, 1, 1];
  for (let n = 1; n <= 40; n++) list.push(n);
  list.push(47, 48, 49, 63, 64, 65, 100, 127, 128, 129, 200, 255, 256, 257, 384, 511, 512, 513, 600);
  for (let i = list.length - 1; i > 0; i--) { const j = rng.int(0, i); [list[i], list[j]] = [list[j]!, list[i]!]; }
  return list;
}

export const hostViews = (h: FloatArray, l: Layout): MatrixView<FloatArray>[] => l.places.map((p) => ({ data: h, offset: p.offset, ld: p.ld, rows: p.rows, cols: p.cols }));

/** Per element of a layout's buffer, the member whose matrix holds it (-1: none). */
export function owners(l: Layout): Int32Array {
  const owner = new Int32Array(l.length).fill(-1);
  l.places.forEach((p, q) => { for (let j = 0; j < p.cols; j++) owner.fill(q, p.offset + j * p.ld, p.offset + j * p.ld + p.rows); });
  return owner;
}

/** Elements of members up to 512 (and outside every member): equal bit for bit (NaN to NaN). */
export function sameUpTo512(got: FloatArray, want: FloatArray, owner: Int32Array, order: (q: number) => number, what: string): void {
  for (let e = 0; e < got.length; e++) {
    const q = owner[e]!;
    if (q >= 0 && order(q) > 512) continue;
    const g = got[e]!, w = want[e]!;
    if (Object.is(g, w) || (Number.isNaN(g) && Number.isNaN(w))) continue;
    assert.fail(`${what}: element ${e} (member ${q}${q >= 0 ? `, order ${order(q)}` : ''}) is ${g} by device sizes, ${w} by host sizes`);
  }
}

/** The member the invalid members point at: the largest up to 512 with something in it. */
export function targetOf(sizes: readonly number[]): number {
  let best = -1;
  sizes.forEach((s, q) => { if (s > 0 && s <= 512 && (best < 0 || s > sizes[best]!)) best = q; });
  return best;
}

// ---------------------------------------------------------------------------------------------
// syrk

export interface SyrkCase { readonly dtype: DType; readonly uplo: Uplo; readonly trans: Op; readonly alpha: number; readonly beta: number; readonly seed: number }
export const SYRK: readonly SyrkCase[] = [
  { dtype: 'float64', uplo: 'lower', trans: 'N', alpha: -1.5, beta: 0, seed: 9100 },
  { dtype: 'float64', uplo: 'upper', trans: 'T', alpha: 0.75, beta: 0.5, seed: 9101 },
  { dtype: 'float32', uplo: 'upper', trans: 'N', alpha: 0.75, beta: 0.5, seed: 9102 },
  { dtype: 'float32', uplo: 'lower', trans: 'T', alpha: -1.5, beta: 0, seed: 9103 },
  { dtype: 'float64', uplo: 'upper', trans: 'N', alpha: 0, beta: 2.5, seed: 9104 },
  { dtype: 'float32', uplo: 'lower', trans: 'T', alpha: 0, beta: 0, seed: 9105 },
];
export const syrkLabel = (c: SyrkCase): string => `${c.dtype} ${c.uplo}/${c.trans} alpha ${c.alpha} beta ${c.beta}`;
const KS = [0, 1, 5, 31, 32, 33, 70];

export interface SyrkLayout { n: number[]; k: number[]; a: Layout; c: Layout; written: Uint8Array }

export function syrkLayout(c: SyrkCase): SyrkLayout {
  const rng = new Rng(c.seed);
  const n = orders(rng);
  const k = n.map(() => KS[rng.int(0, KS.length - 1)]!);
  k[n.indexOf(100)] = 300;
  const a = vbatchedLayout(rng, n.map((x, q) => (c.trans === 'N' ? [x, k[q]!] as const : [k[q]!, x] as const)));
  const cl = vbatchedLayout(rng, n.map((x) => [x, x] as const));
  const written = new Uint8Array(cl.length);
  cl.places.forEach((p) => { for (let j = 0; j < p.cols; j++) for (let i = 0; i < p.rows; i++) if (c.uplo === 'lower' ? i >= j : i <= j) written[p.offset + i + j * p.ld] = 1; });
  return { n, k, a, c: cl, written };
}

/** The device form's members: the valid ones, then four invalid ones on the target's matrices (codes -3, -4, -7, -10). */
export function syrkInvalid(c: SyrkCase, l: SyrkLayout): { a: DeviceMember[]; c: DeviceMember[]; maxA: [number, number]; maxC: number; codes: number[] } {
  const maxA: [number, number] = [maxOf(l.a.places, (p) => p.rows), maxOf(l.a.places, (p) => p.cols)];
  const maxC = maxOf(l.c.places, (p) => p.rows);
  const t = targetOf(l.n);
  const pa = l.a.places[t]!, pc = l.c.places[t]!;
  const nDim = c.trans === 'N' ? 'rows' : 'cols', kDim = c.trans === 'N' ? 'cols' : 'rows';
  const kMax = c.trans === 'N' ? maxA[1] : maxA[0];
  return {
    a: [...l.a.places, { ...pa, [nDim]: pa[nDim] + 1 }, { ...pa, [kDim]: kMax + 1 }, { ...pa, ld: 0 }, pa],
    c: [...l.c.places, pc, pc, pc, { ...pc, ld: 0 }],
    maxA, maxC, codes: [-3, -4, -7, -10],
  };
}

export function syrkData(c: SyrkCase, l: SyrkLayout): { a: FloatArray; c: FloatArray } {
  const rng = new Rng(c.seed + 7);
  const a = allocate(c.dtype, l.a.length);
  for (let e = 0; e < a.length; e++) a[e] = l.a.inside[e] === 1 ? rng.uniform() : SENTINEL;
  const cb = allocate(c.dtype, l.c.length);
  for (let e = 0; e < cb.length; e++) cb[e] = l.c.inside[e] !== 1 ? SENTINEL : l.written[e] !== 1 || c.beta === 0 ? NaN : rng.uniform();
  return { a, c: cb };
}

export function syrkCalls(ctx: Context, backend: CudaBackend, c: SyrkCase, l: SyrkLayout, h: { a: FloatArray; c: FloatArray }): { host: FloatArray; device: FloatArray; deviceA: FloatArray; codes: Int32Array } {
  backend.force = { syrk: 'vbatched' };
  const dA = ctx.upload(h.a) as DeviceStorage, dC = ctx.upload(h.c) as DeviceStorage;
  ctx.syrk({ uplo: c.uplo, trans: c.trans, alpha: c.alpha, beta: c.beta, a: batchOf(dA, l.a), c: batchOf(dC, l.c) });
  assert.equal(ctx.lastRoute?.route, 'vbatched');
  backend.force = {};
  const v = syrkInvalid(c, l);
  const eA = ctx.upload(h.a) as DeviceStorage, eC = ctx.upload(h.c) as DeviceStorage;
  const info = ctx.upload(new Int32Array(v.c.length).fill(99)) as DeviceStorage;
  ctx.syrk({
    uplo: c.uplo, trans: c.trans, alpha: c.alpha, beta: c.beta, info,
    a: deviceForm(ctx, eA, v.a, v.maxA[0], v.maxA[1], c.dtype), c: deviceForm(ctx, eC, v.c, v.maxC, v.maxC, c.dtype),
  });
  assert.equal(ctx.lastRoute?.route, 'vdevice');
  return { host: ctx.download(dC) as FloatArray, device: ctx.download(eC) as FloatArray, deviceA: ctx.download(eA) as FloatArray, codes: ctx.download(info) as Int32Array };
}

// ---------------------------------------------------------------------------------------------
// trtri

export interface TrtriCase { readonly dtype: DType; readonly uplo: Uplo; readonly diag: Diag; readonly seed: number }
export const TRTRI: readonly TrtriCase[] = (['float64', 'float32'] as const).flatMap((dtype, d) => (['lower', 'upper'] as const).flatMap((uplo, u) =>
  (['nonunit', 'unit'] as const).map((diag, g): TrtriCase => ({ dtype, uplo, diag, seed: 9200 + d * 4 + u * 2 + g }))));

/** A case's orders, places, and the members planted singular (non-unit) with their 1-based column. */
export function trtriLayout(c: TrtriCase): { n: number[]; l: Layout; singular: Map<number, number> } {
  const rng = new Rng(c.seed);
  const n = orders(rng);
  const l = vbatchedLayout(rng, n.map((x) => [x, x] as const));
  const singular = new Map<number, number>();
  if (c.diag === 'nonunit') {
    for (const bound of [8, 24, 48, 128, 512, 600]) {
      const q = n.findIndex((x, i) => x > 1 && classOf(x) === bound && !singular.has(i));
      if (q >= 0) singular.set(q, 1 + ((q * 7) % n[q]!));
    }
  }
  return { n, l, singular };
}

/** The device form's members: the valid ones, then three invalid ones on the target's matrix (codes -3, -3, -5). */
export function trtriInvalid(n: readonly number[], l: Layout): { members: DeviceMember[]; max: number; codes: number[] } {
  const max = maxOf(l.places, (p) => p.rows);
  const p: Place = l.places[targetOf(n)]!;
  return { members: [...l.places, { ...p, cols: p.rows - 1 }, { ...p, rows: max + 1, cols: max + 1 }, { ...p, ld: 0 }], max, codes: [-3, -3, -5] };
}

export function trtriData(c: TrtriCase, lay: ReturnType<typeof trtriLayout>): FloatArray {
  const rng = new Rng(c.seed + 17);
  const h = allocate(c.dtype, lay.l.length).fill(SENTINEL);
  lay.n.forEach((x, q) => fillTriangle(rng, h, lay.l.places[q]!.offset, lay.l.places[q]!.ld, x, c.uplo, c.diag));
  for (const [q, col] of lay.singular) h[lay.l.places[q]!.offset + (col - 1) * (1 + lay.l.places[q]!.ld)] = 0;
  return h;
}

export function trtriCalls(ctx: Context, backend: CudaBackend, c: TrtriCase, lay: ReturnType<typeof trtriLayout>, h: FloatArray): { host: FloatArray; hostInfo: Int32Array; device: FloatArray; codes: Int32Array } {
  backend.force = { trtri: 'vbatched' };
  const dA = ctx.upload(h) as DeviceStorage;
  const r = ctx.trtri({ uplo: c.uplo, diag: c.diag, a: batchOf(dA, lay.l) });
  assert.equal(ctx.lastRoute?.route, 'vbatched');
  backend.force = {};
  const v = trtriInvalid(lay.n, lay.l);
  const eA = ctx.upload(h) as DeviceStorage;
  const info = ctx.upload(new Int32Array(v.members.length).fill(99)) as DeviceStorage;
  ctx.trtri({ uplo: c.uplo, diag: c.diag, a: deviceForm(ctx, eA, v.members, v.max, v.max, c.dtype), info });
  assert.equal(ctx.lastRoute?.route, 'vdevice');
  return { host: ctx.download(dA) as FloatArray, hostInfo: ctx.download(r.info as DeviceStorage) as Int32Array, device: ctx.download(eA) as FloatArray, codes: ctx.download(info) as Int32Array };
}

/** Every call of the file on zeros (its kernels compiled at once before the first case). */
export function recordCalls(ctx: Context, backend: CudaBackend): void {
  for (const c of SYRK) {
    const l = syrkLayout(c);
    syrkCalls(ctx, backend, c, l, { a: allocate(c.dtype, l.a.length), c: allocate(c.dtype, l.c.length) });
  }
  for (const c of TRTRI) {
    const lay = trtriLayout(c);
    trtriCalls(ctx, backend, c, lay, allocate(c.dtype, lay.l.length));
  }
  backend.force = {};
}

