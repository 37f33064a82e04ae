/**
 * Row-major batches for the operations that have no transposed equivalent (LU and its solves,
 * the right-hand sides of the Cholesky solves): the API copies a row-major host batch into a
 * column-major scratch batch, runs the operation, and copies outputs back. Device batches must
 * be column-major for these operations (a copy there would hide a cost the user should see).
 */
import { batchCount, batchDtype, matrixAt, strided, uniformShape, type Batch, type StridedBatch } from '../core/batch.js';
import { allocate, type DType, type FloatArray } from '../core/dtype.js';
import { MyriadError } from '../core/errors.js';
import { isDeviceStorage, type Storage } from '../core/storage.js';

export interface ColumnMajorCopy<S extends Storage> {
  batch: Batch<S>;
  /** Copies the column-major results back into the caller's row-major batch (outputs only). */
  writeBack(): void;
}

/** Returns the batch itself when column-major, else a column-major copy of a host batch. */
export function columnMajorCopy<S extends Storage>(b: Batch<S>, argument: string): ColumnMajorCopy<S> {
  if (b.order === 'col') return { batch: b, writeBack: () => {} };
  // Empty matrices (any count): nothing to copy, and no per-matrix work for 2^31 of them.
  const shape = uniformShape(b);
  if (shape !== undefined && shape.rows * shape.cols === 0) return { batch: emptyColumnMajor(b), writeBack: () => {} };
  const stores = b.kind === 'strided' ? [b.data] : b.matrices.map((m) => m.data);
  if (stores.some((s) => isDeviceStorage(s)))
    throw new MyriadError('LAYOUT', "device batches must be column-major for this operation (order 'col')", `${argument}.order`);
  const src = b as Batch<FloatArray>;
  const count = batchCount(src);
  const dtype = batchDtype(src, argument);
  if (src.kind === 'strided') return stridedColumnMajorCopy(src, dtype, argument) as unknown as ColumnMajorCopy<S>;
  // One column-major scratch matrix per source matrix, each with its own (rows, cols).
  const views = Array.from({ length: count }, (_, i) => matrixAt(src, i));
  const sizes = views.map((v) => v.rows * v.cols);
  const scratch = allocate(dtype, sizes.reduce((s, x) => s + x, 0));
  const offsets: number[] = [];
  let at = 0;
  for (const s of sizes) { offsets.push(at); at += s; }
  // matrixAt of a row batch gives logical rows/cols with element (r, c) at offset + r * ld + c.
  views.forEach((v, i) => {
    for (let c = 0; c < v.cols; c++)
      for (let r = 0; r < v.rows; r++) scratch[offsets[i]! + r + c * v.rows] = v.data[v.offset + r * v.ld + c]!;
  });
  const uniform = views.every((v) => v.rows === views[0]!.rows && v.cols === views[0]!.cols);
  const batch: Batch<FloatArray> = uniform && count > 0
    ? strided(scratch, { rows: views[0]!.rows, cols: views[0]!.cols, count, ld: Math.max(1, views[0]!.rows) }, argument)
    : { kind: 'variable', order: 'col', matrices: views.map((v, i) => ({ data: scratch, offset: offsets[i]!, rows: v.rows, cols: v.cols, ld: Math.max(1, v.rows) })) };
  return {
    batch: batch as unknown as Batch<S>,
    writeBack: () => views.forEach((v, i) => {
      for (let c = 0; c < v.cols; c++)
        for (let r = 0; r < v.rows; r++) v.data[v.offset + r * v.ld + c] = scratch[offsets[i]! + r + c * v.rows]!;
    }),
  };
}

/** The strided case in flat loops (no per-matrix objects: this runs for 10^5 small matrices per call). */
function stridedColumnMajorCopy(src: StridedBatch<FloatArray>, dtype: DType, argument: string): ColumnMajorCopy<FloatArray> {
  const { rows, cols, ld, stride, offset, count, data } = src;
  const per = rows * cols;
  const scratch = allocate(dtype, count * per);
  for (let i = 0; i < count; i++) {
    const from = offset + i * stride;
    const to = i * per;
    for (let r = 0; r < rows; r++) {
      const row = from + r * ld;
      for (let c = 0; c < cols; c++) scratch[to + r + c * rows] = data[row + c]!;
    }
  }
  return {
    batch: strided(scratch, { rows, cols, count, ld: Math.max(1, rows), stride: per }, argument),
    writeBack: () => {
      for (let i = 0; i < count; i++) {
        const to = offset + i * stride;
        const from = i * per;
        for (let r = 0; r < rows; r++) {
          const row = to + r * ld;
          for (let c = 0; c < cols; c++) data[row + c] = scratch[from + r + c * rows]!;
        }
      }
    },
  };
}

/**
 * A row-major batch of empty matrices as a column-major one of the same logical shape (rows x
 * cols kept, not transposed: the LU family and the solves read them as they are), with a
 * column-major leading dimension. No element is addressed, so the storage stays as it is.
 */
function emptyColumnMajor<S>(b: Batch<S>): Batch<S> {
  switch (b.kind) {
    case 'strided':
    case 'list':
      return { ...b, ld: Math.max(1, b.rows), order: 'col' };
    case 'variable':
      return { kind: 'variable', order: 'col', matrices: b.matrices.map((m) => ({ ...m, ld: Math.max(1, m.rows) })) };
  }
}
