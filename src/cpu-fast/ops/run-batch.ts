/**
 * The one loop every generated-kernel op shares: a strided batch of one size goes to the kernel
 * in one call (the batch loop is inside the generated code) when every batch of the request is
 * strided; list and variable batches go one
 * matrix at a time; matrices the kernels do not cover go to the fallback (the reference, or a
 * blocked algorithm) as one-matrix slices, so a variable batch mixes both freely.
 */
import { batchCount, matrixAt, type Batch, type MatrixView } from '../../core/batch.js';
import type { FloatArray } from '../../core/dtype.js';
import { isBatch, sliceRequest, type HostRequest } from '../split.js';

export interface BatchPlan<R extends HostRequest> {
  /** The batch whose matrix shapes choose the kernel (A for the factorisations). */
  readonly shapeOf: Batch<FloatArray>;
  /** Runs `count` matrices starting at matrix `p0` as one strided run, or false where no kernel fits the shape. */
  kernel(shape: MatrixView<FloatArray>, p0: number, count: number): boolean;
  /** The request for everything the kernels do not cover. */
  fallback(r: R): void;
}

export function runBatch<R extends HostRequest>(r: R, plan: BatchPlan<R>): void {
  const a = plan.shapeOf;
  const count = batchCount(a);
  if (count === 0) return;
  if (Object.values(r).every((v) => !isBatch(v) || v.kind === 'strided')) {
    if (!plan.kernel(matrixAt(a, 0), 0, count)) plan.fallback(r);
    return;
  }
  for (let p = 0; p < count; p++) {
    if (!plan.kernel(matrixAt(a, p), p, 1)) plan.fallback(sliceRequest(r, p, p + 1));
  }
}

/** Matrix p of b with the batch stride (0 for list and variable batches, which run one at a time). */
export function stridedView(b: Batch<FloatArray>, p: number): MatrixView<FloatArray> & { stride: number } {
  // Written out: an object spread here cost microseconds per call in V8 (profiled on list batches).
  const m = matrixAt(b, p);
  return { data: m.data, offset: m.offset, ld: m.ld, rows: m.rows, cols: m.cols, stride: b.kind === 'strided' ? b.stride : 0 };
}

/**
 * runBatch for the eigen drivers (ops/syev.ts, ops/zheev.ts), whose path takes whole runs of square
 * matrices of order n where `takes(n)` and hands single matrices it cannot take back: `run` gets the
 * run and a `handBack(p)` that gives matrix p to the fallback as a one-matrix slice.
 */
export function runSquareWithHandBack<R extends HostRequest & { readonly a: Batch<FloatArray> }>(
  r: R, takes: (n: number) => boolean, run: (n: number, p0: number, count: number, handBack: (p: number) => void) => void, fallback: (r: R) => void,
): void {
  runBatch(r, {
    shapeOf: r.a,
    kernel(m, p0, count): boolean {
      if (!takes(m.rows)) return false;
      run(m.rows, p0, count, (p) => fallback(sliceRequest(r, p, p + 1)));
      return true;
    },
    fallback,
  });
}
