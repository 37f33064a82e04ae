/**
 * The ragged batches of variable-size syrk by class (syrk/launch-vbatched.ts), shared by the host
 * emulation (test/cuda/vbatched-syrk-host-emulation.test.ts) and the GPU file
 * (test/gpu/vbatched-syrk.test.ts): C's orders 0-600 (zeros, ones, both sides of every class
 * boundary, members beyond the last class), op(A)'s k from 0 to beyond two of the leaf's chunks,
 * shuffled; A and C each in one buffer with ragged ld (some odd) and gaps. C's buffer: NaN in the
 * members' other triangles (never read, never written), NaN in the written triangles where beta = 0
 * (C must not be read there), random values there otherwise, a sentinel in the gaps and padding.
 */
import type { Context } from '../../src/api/context.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import type { Op } from '../../src/core/ops.js';
import type { DeviceStorage } from '../../src/core/storage.js';
import { Rng } from './random.js';
import { batchOf, vbatchedLayout, type Layout } from './vbatched-cases.js';

export interface SyrkVbCase {
  readonly dtype: DType;
  readonly uplo: Uplo;
  readonly trans: Op;
  readonly alpha: number;
  readonly beta: number;
  readonly seed: number;
}

/** Every dtype, uplo and trans; beta 0 and not in turn; then alpha = 0 (C := beta C, A never read) in both dtypes. */
export const SYRK_VB_CASES: readonly SyrkVbCase[] = [
  ...(['float64', 'float32'] as const).flatMap((dtype, d) => (['lower', 'upper'] as const).flatMap((uplo, u) => (['N', 'T'] as const).map((trans, t): SyrkVbCase => {
    const i = d * 4 + u * 2 + t;
    return { dtype, uplo, trans, alpha: i % 3 === 0 ? -1.5 : 0.75, beta: i % 2 === 0 ? 0 : 0.5, seed: 4000 + i };
  }))),
  { dtype: 'float64', uplo: 'upper', trans: 'N', alpha: 0, beta: 2.5, seed: 4100 },
  { dtype: 'float32', uplo: 'lower', trans: 'T', alpha: 0, beta: 0, seed: 4101 },
];

export const caseLabel = (c: SyrkVbCase): string => `${c.dtype} ${c.uplo}/${c.trans} alpha ${c.alpha} beta ${c.beta}`;

/** C's orders of one batch: both sides of every class boundary, zeros, ones, beyond 512; shuffled. */
export function syrkVbOrders(rng: Rng): number[] {
  const list = [0, 0, 1, 1, 2, 7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 32, 33, 47, 48, 49, 63, 64, 65, 100, 127, 128, 129, 255, 256, 257, 300, 511, 512, 513, 600];
  for (let i = list.length - 1; i > 0; i--) { const j = rng.int(0, i); [list[i], list[j]] = [list[j]!, list[i]!]; }
  return list;
}

/** op(A)'s k per member: 0, 1, within one chunk, at the chunk, beyond two chunks. */
const KS = [0, 1, 5, 31, 32, 33, 70];

export interface SyrkVbLayout {
  readonly shapes: readonly { readonly n: number; readonly k: number }[];
  /** A's members (n x k for trans N, k x n for T). */
  readonly a: Layout;
  /** C's members (n x n). */
  readonly c: Layout;
  /** Per element of C's buffer: 1 where it lies in a member's `uplo` triangle (written), else 0. */
  readonly written: Uint8Array;
  /** The largest k (the tolerance's). */
  readonly kMax: number;
}

export function syrkVbLayout(c: SyrkVbCase): SyrkVbLayout {
  const rng = new Rng(c.seed);
  const orders = syrkVbOrders(rng);
  const shapes = orders.map((n, q) => ({ n, k: q === 0 ? 0 : KS[rng.int(0, KS.length - 1)]! }));
  const a = vbatchedLayout(rng, shapes.map(({ n, k }) => (c.trans === 'N' ? [n, k] as const : [k, n] as const)));
  const cl = vbatchedLayout(rng, shapes.map(({ n }) => [n, n] as const));
  const written = new Uint8Array(cl.length);
  cl.places.forEach((p) => {
    for (let j = 0; j < p.cols; j++) for (let i = 0; i < p.rows; i++) if (c.uplo === 'lower' ? i >= j : i <= j) written[p.offset + i + j * p.ld] = 1;
  });
  return { shapes, a, c: cl, written, kMax: Math.max(...shapes.map((s) => s.k)) };
}

export const SYRK_VB_SENTINEL = 12345.5;

/** A's buffer (random inside the members, the sentinel elsewhere) and C's (see the file's comment). */
export function syrkVbData(c: SyrkVbCase, l: SyrkVbLayout): { a: FloatArray; c: FloatArray } {
  const rng = new Rng(c.seed + 7);
  const a = allocate(c.dtype, l.a.length);
  for (let e = 0; e < a.length; e++) a[e] = l.a.inside[e] === 1 ? rng.uniform() : SYRK_VB_SENTINEL;
  const cb = allocate(c.dtype, l.c.length);
  for (let e = 0; e < cb.length; e++) cb[e] = l.c.inside[e] !== 1 ? SYRK_VB_SENTINEL : l.written[e] !== 1 || c.beta === 0 ? NaN : rng.uniform();
  return { a, c: cb };
}

/** The members compared bit for bit with the per-size path: orders 1-31 (one leaf of the same arithmetic on both paths). */
export const perSizeCompared = (l: SyrkVbLayout): number[] => l.shapes.flatMap((s, q) => (s.n >= 1 && s.n < 32 ? [q] : []));

/**
 * Every call test/gpu/vbatched-syrk.test.ts makes, on zeros: per case the whole batch by class
 * (`route(undefined)`) and the compared members on the per-size path (`route('syrk')`).
 */
export function recordVbatchedSyrkCalls(ctx: Context, route: (force: string | undefined) => void): void {
  for (const c of SYRK_VB_CASES) {
    const l = syrkVbLayout(c);
    const dA = ctx.upload(allocate(c.dtype, l.a.length)) as DeviceStorage, dC = ctx.upload(allocate(c.dtype, l.c.length)) as DeviceStorage;
    for (const which of [undefined, perSizeCompared(l)]) {
      route(which === undefined ? undefined : 'syrk');
      ctx.syrk({ uplo: c.uplo, trans: c.trans, alpha: c.alpha, beta: c.beta, a: batchOf(dA, l.a, which), c: batchOf(dC, l.c, which) });
    }
  }
}
