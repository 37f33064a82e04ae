/**
 * The GPU trmm tests' two checks (test/gpu/trmm-*.test.ts): a device call on fresh data against the
 * CPU reference (src/cpu/trmm.ts), B compared within the solve tolerance inside its matrices and bit
 * for bit outside them (NaN around every matrix), A compared bit for bit (never written).
 * - checkTrmmStrided: strided batches, odd or even layouts, A broadcast (stride 0) on request, and
 *   infinities and NaN placed in B on request;
 * - checkTrmmList: list batches of 5 members, A's entries all one triangle, B's in reverse order.
 */
import { list, strided, type Batch, type ListBatch } from '../../src/core/batch.js';
import type { DType, FloatArray } from '../../src/core/dtype.js';
import { cpuTrmm } from '../../src/cpu/trmm.js';
import type { DeviceArray, GpuDevice } from '../../src/cuda/runtime/index.js';
import type { Rng } from './random.js';
import {
  caseName, compareOutput, evenLayout, fillTriangle, inStrided, layoutLength, oddLayout, poisonOutside, randomBuffer, triangularData, trsmTolerance, type Layout, type TrsmCase,
} from './trsm-data.js';

/** Matrices for about `elements` elements of B a case, 1 ... 64. */
export const trmmCount = (m: number, n: number, elements = 65_536): number => Math.max(1, Math.min(64, Math.floor(elements / (m * n))));

export interface TrmmStridedOptions {
  /** Matrices (default trmmCount(m, n)). */
  readonly count?: number;
  /** A's stride 0: one triangle for every matrix. */
  readonly broadcast?: boolean;
  /** Even ld, stride and offset (evenLayout) instead of odd ones (oddLayout). */
  readonly aligned?: boolean;
  /** +inf, -inf and NaN in B, one a column, in the first and last matrices. */
  readonly special?: boolean;
}

/** B := alpha op(A) B (or B op(A)) by `run` on device batches of m x n B, checked as the file's header says; `what` names the way. */
export function checkTrmmStrided(
  dev: GpuDevice, rng: Rng, c: TrsmCase, dtype: DType, m: number, n: number, alpha: number,
  run: (a: Batch<DeviceArray>, b: Batch<DeviceArray>) => void, what: string, over: TrmmStridedOptions = {},
): void {
  const t = c.side === 'left' ? m : n;
  const count = over.count ?? trmmCount(m, n);
  const broadcast = over.broadcast ?? false;
  const { la, lb, A, B } = triangularData(rng, dtype, c, t, m, n, count, broadcast, over.aligned === true ? evenLayout : oddLayout);
  // Non-finite elements of B, one a column: in the diagonal blocks of different row tiles of a
  // tiled kernel (they must reach only the rows the reference's loops reach).
  if (over.special === true) for (const mat of [0, count - 1]) {
    [[Math.floor(m / 3), 0, Infinity], [m - 1, 1, -Infinity], [0, 2, NaN], [Math.floor(m / 2), 3, Infinity]].forEach(([p, j, v]) => {
      if (j! < n) B[lb.offset + mat * lb.stride + p! + j! * lb.ld] = v!;
    });
  }
  const batch = <S extends FloatArray | DeviceArray>(data: S, l: Layout, rows: number, cols: number): Batch<S> =>
    strided(data, { rows, cols, count, ld: l.ld, stride: l.stride, offset: l.offset });
  const want = B.slice();
  cpuTrmm({ ...c, alpha, a: batch(A, la, t, t), b: batch(want, lb, m, n) });
  const dA = dev.upload(A), dB = dev.upload(B);
  try {
    run(batch(dA, la, t, t), batch(dB, lb, m, n));
    const name = `${what} ${dtype} ${caseName(c)} m=${m} n=${n} count=${count} alpha=${alpha}${broadcast ? ' stride-0 A' : ''}`
      + `${over.aligned === true ? ' aligned' : ''}${over.special === true ? ' inf and NaN in B' : ''}`;
    compareOutput(dev.download(dB) as FloatArray, want, inStrided(lb), trsmTolerance(dtype, t), name);
    compareOutput(dev.download(dA) as FloatArray, A, () => false, 0, `${name}: A`);
  } finally {
    dA.dispose();
    dB.dispose();
  }
}

/**
 * B := -2.5 op(A) B (or B op(A)) by `run` on list batches of 5 members: the triangle t x t, B's
 * matrices t x w (side left) or w x t (right) in reverse order; odd layouts unless `aligned`.
 */
export function checkTrmmList(
  dev: GpuDevice, rng: Rng, c: TrsmCase, dtype: DType, t: number, w: number,
  run: (a: ListBatch<DeviceArray>, b: ListBatch<DeviceArray>) => void, what: string, aligned = false,
): void {
  const [m, n] = c.side === 'left' ? [t, w] : [w, t];
  const count = 5;
  const layout = aligned ? evenLayout : oddLayout;
  const la = layout(t, t, count), lb = layout(m, n, count);
  const A = randomBuffer(rng, dtype, layoutLength(la));
  fillTriangle(rng, A, la.offset, la.ld, t, c.uplo, c.diag);
  poisonOutside(A, la);
  const B = randomBuffer(rng, dtype, layoutLength(lb));
  poisonOutside(B, lb);
  const batches = <S extends FloatArray | DeviceArray>(a: S, b: S) => ({
    a: list(Array.from({ length: count }, () => ({ data: a, offset: la.offset })), { rows: t, ld: la.ld }),
    b: list(Array.from({ length: count }, (_, i) => ({ data: b, offset: lb.offset + (count - 1 - i) * lb.stride })), { rows: m, cols: n, ld: lb.ld }),
  });
  const want = B.slice();
  cpuTrmm({ ...c, alpha: -2.5, ...batches(A, want) });
  const dA = dev.upload(A), dB = dev.upload(B);
  try {
    const device = batches(dA, dB);
    run(device.a, device.b);
    compareOutput(dev.download(dB) as FloatArray, want, inStrided(lb), trsmTolerance(dtype, t), `${what} ${dtype} ${caseName(c)} list m=${m} n=${n}`);
  } finally {
    dA.dispose();
    dB.dispose();
  }
}
