/**
 * The uniform reference of a variable batch in `myriad bench --vbatched`: the rate this project
 * reaches on a uniform batch of the same total flops and bytes, against which the variable batch's
 * rate is put ("vs uniform": at least 70% is the target).
 *
 * Definition. For the batch's sizes n_1..n_N (square members; every op's flops grow as n^3 and its
 * bytes as n^2), the reference is a uniform batch of order s = round(E[n^3] / E[n^2]) and count
 * c = round(N E[n^2] / s^2): then c s^2 = N E[n^2] (the bytes) and c s^3 = N E[n^3] (the leading
 * flops), both up to the rounding of s and c. Its time is that of the route the uniform API takes
 * (the router's choice, nothing forced). The ratio is the variable batch's rate over the uniform's,
 * each from the op's exact flop count (core/counts.ts): (uniform ms / variable ms) x (variable flops /
 * uniform flops), the flop factor undoing what the rounding changed.
 */
import { strided, type Batch } from '../core/batch.js';
import { counts, type Cost } from '../core/counts.js';
import type { DType } from '../core/dtype.js';
import { MyriadError } from '../core/errors.js';
import type { DeviceArray } from '../cuda/runtime/types.js';
import type { VbatchedOp } from './vbatched.js';

export interface UniformReference {
  /** The uniform batch's order s and count c. */
  readonly order: number;
  readonly count: number;
}

/** s = round(E[n^3] / E[n^2]), c = round(N E[n^2] / s^2) over `sizes` (at least one member of order at least 1). */
export function uniformReference(sizes: readonly number[]): UniformReference {
  let squares = 0, cubes = 0;
  for (const n of sizes) {
    if (!(Number.isInteger(n) && n >= 0)) throw new MyriadError('INVALID_ARGUMENT', `a member's order must be a non-negative integer, got ${n}`, 'sizes');
    squares += n * n;
    cubes += n * n * n;
  }
  if (squares === 0) throw new MyriadError('INVALID_ARGUMENT', 'a uniform reference needs at least one member of order 1 or more', 'sizes');
  const order = Math.max(1, Math.round(cubes / squares));
  return { order, count: Math.max(1, Math.round(squares / (order * order))) };
}

/** One square member's cost in op `op` (trsm left; posv's and gesv's B n x n; syrk k = n, as the bench runs them). */
export function vbatchedCost(op: VbatchedOp, dtype: DType, n: number): Cost {
  switch (op) {
    case 'gemm': return counts.gemm(dtype, n, n, n, false);
    case 'potrf': return counts.potrf(dtype, n);
    case 'trsm': return counts.trsm(dtype, 'left', n, n);
    case 'posv': return counts.posv(dtype, n, n);
    case 'getrf': return counts.getrf(dtype, n);
    case 'gesv': return counts.gesv(dtype, n, n);
    case 'syrk': return counts.syrk(dtype, n, n, false);
    case 'trtri': return counts.trtri(dtype, n);
  }
}

/** The summed cost of members of `sizes`. */
export function batchCost(op: VbatchedOp, dtype: DType, sizes: readonly number[]): Cost {
  let flops = 0, bytes = 0;
  for (const n of sizes) { const c = vbatchedCost(op, dtype, n); flops += c.flops; bytes += c.bytes; }
  return { flops, bytes };
}

/** The reference's cost: c members of order s. */
export function referenceCost(op: VbatchedOp, dtype: DType, ref: UniformReference): Cost {
  const c = vbatchedCost(op, dtype, ref.order);
  return { flops: ref.count * c.flops, bytes: ref.count * c.bytes };
}

/**
 * The variable batch's rate as a fraction of the uniform reference's: (uniformMs / variableMs) x
 * (variable flops / reference flops).
 */
export function rateVsUniform(variableMs: number, uniformMs: number, variableFlops: number, referenceFlops: number): number {
  return (uniformMs / variableMs) * (variableFlops / referenceFlops);
}

/** The uniform reference's batch over `data` (c matrices of s x s, packed). */
export function uniformBatch(ref: UniformReference, data: DeviceArray): Batch<DeviceArray> {
  return strided(data, { rows: ref.order, cols: ref.order, count: ref.count });
}
