/**
 * A complex strided or list batch seen as the real batch of its parts: a pair is two floats, so
 * rows, ld, stride and offsets double and the batch spans exactly the floats its pairs do (as the
 * host staging's view, cuda/host/complex-view.ts). For kernels that move elements without
 * computing on them (common/matrix-copy.ts): they take the real batch whole.
 */
import type { Batch } from '../../../core/batch.js';
import type { BlockBatch } from './sub-blocks.js';

export function pairsAsReals<S>(b: BlockBatch<S>): Batch<S> {
  if (b.kind === 'strided') {
    const { dtype: _, ...rest } = b;
    return { ...rest, rows: 2 * b.rows, ld: 2 * b.ld, stride: 2 * b.stride, offset: 2 * b.offset };
  }
  const { dtype: _, ...rest } = b;
  return { ...rest, rows: 2 * b.rows, ld: 2 * b.ld, matrices: b.matrices.map((m) => ({ ...m, offset: 2 * m.offset })) };
}
