/**
 * The GPU gesvd tests' shared parts for complex data (test/gpu/zgesvd*.test.ts): S's batch poisoned
 * with NaN inside and a sentinel around, poisoned complex outputs, and the call on the router's choice.
 */
import type { Context } from '../../src/api/context.js';
import { list, strided, type Batch } from '../../src/core/batch.js';
import type { ComplexDType } from '../../src/core/dtype.js';
import type { DeviceStorage, Storage } from '../../src/core/storage.js';
import type { Layout, Z } from './complex.js';
import { onDevice } from './gpu.js';

/** What placeS reads of a case. */
export interface SCase { readonly dtype: ComplexDType; readonly layout: Layout; readonly count: number }

export const roundTo = (dtype: ComplexDType, x: number): number => (dtype === 'complex64' ? Math.fround(x) : x);

/** S: a real batch of the parts' type, NaN inside (poisoned), SENTINEL around; strided or a list of arrays as the case's layout. */
export function placeS(c: SCase, k: number, SENTINEL: number): { batch: Batch<Float64Array | Float32Array>; read(p: number): number[]; outside(): number[] } {
  const make = (len: number): Float64Array | Float32Array => (c.dtype === 'complex64' ? new Float32Array(len) : new Float64Array(len)).fill(SENTINEL);
  if (c.layout.kind === 'strided') {
    const stride = k + 2;
    const data = make(3 + stride * c.count + 1);
    for (let p = 0; p < c.count; p++) data.fill(NaN, 3 + p * stride, 3 + p * stride + k);
    const inside = (x: number): boolean => x >= 3 && (x - 3) % stride < k && x < 3 + stride * c.count;
    return {
      batch: strided(data, { rows: k, cols: 1, stride, offset: 3, count: c.count }),
      read: (p) => [...data.subarray(3 + p * stride, 3 + p * stride + k)],
      outside: () => [...data].filter((_, x) => !inside(x)),
    };
  }
  const arrays = Array.from({ length: c.count }, () => { const d = make(k + 3); d.fill(NaN, 1, 1 + k); return d; });
  return {
    batch: list(arrays.map((data) => ({ data, offset: 1 })), { rows: k, cols: 1 }),
    read: (p) => [...arrays[p]!.subarray(1, 1 + k)],
    outside: () => arrays.flatMap((d) => [...d].filter((_, x) => x < 1 || x >= 1 + k)),
  };
}

/** `count` rows x cols complex matrices of NaN (poisoned outputs). */
export const poisoned = (count: number, rows: number, cols: number): Z[] => Array.from({ length: count }, () => ({ rows, cols, d: new Float64Array(2 * rows * cols).fill(NaN) }));

/** The call: U and VT where asked for ('none' otherwise), on the router's choice. */
export function gesvdCall(ctx: Context, a: Batch<Storage>, s: Batch<Storage>, u: Batch<Storage> | undefined, vt: Batch<Storage> | undefined): Int32Array | DeviceStorage {
  return ctx.gesvd({ a, s, ...(u ? { u } : { jobu: 'none' as const }), ...(vt ? { vt } : { jobvt: 'none' as const }) }).info as Int32Array | DeviceStorage;
}

/** Operands as the tests place them: a batch of host arrays. */
interface Placed { readonly batch: Batch<Float64Array | Float32Array> }

/**
 * gesvd on the router's choice with host data, or with the same arrays staged on the device and
 * brought back after the call (`where`); the info as numbers.
 */
export function gesvdOn(ctx: Context, where: 'device' | 'host', a: Placed, s: Placed, u: Placed | undefined, vt: Placed | undefined): number[] {
  if (where === 'host') return [...(gesvdCall(ctx, a.batch, s.batch, u?.batch, vt?.batch) as Int32Array)];
  const ds = [a, s, u, vt].map((x) => (x === undefined ? undefined : onDevice(ctx, x.batch)));
  try {
    const info = [...(ctx.download(gesvdCall(ctx, ds[0]!.batch, ds[1]!.batch, ds[2]?.batch, ds[3]?.batch) as DeviceStorage) as Int32Array)];
    for (const d of ds) d?.back();
    return info;
  } finally {
    for (const d of ds) d?.dispose();
  }
}
