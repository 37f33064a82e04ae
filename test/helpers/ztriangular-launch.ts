/**
 * What complex trsm's and trmm's tests of the one-launch kernel share (n <= 32): device data of both
 * sides and dtypes through the context on a recording device, checked for the GPU route, one launch,
 * the kernel's name, ld / stride / offset counted in pairs, the vectors and alpha passed.
 */
import assert from 'node:assert/strict';
import { strided } from '../../src/core/batch.js';
import { argNumber, recordingContext } from './fake-gpus.js';

export function checkOneLaunchTriangular(op: 'trsm' | 'trmm'): void {
  const { ctx, dev } = recordingContext();
  const num = argNumber;
  try {
    for (const dtype of ['complex128', 'complex64'] as const) for (const side of ['left', 'right'] as const) for (const n of [1, 7, 32]) {
      const part = dtype === 'complex128' ? 'float64' : 'float32';
      const count = 3, lda = n + 2, strideA = lda * n + 1, vectors = 6;
      const [rows, cols] = side === 'left' ? [n, vectors] : [vectors, n];
      const ldb = rows + 1;
      const a = strided(ctx.alloc(part, 2 * (4 + strideA * count)), { rows: n, ld: lda, stride: strideA, offset: 4, count, dtype });
      const b = strided(ctx.alloc(part, 2 * ldb * cols * count), { rows, cols, ld: ldb, count, dtype });
      dev.launches.length = 0;
      ctx[op]({ side, uplo: 'upper', transA: 'C', diag: 'unit', alpha: [0.5, -2], a, b });
      assert.deepEqual(ctx.lastRoute, { op, route: op, gpu: true });
      assert.equal(dev.launches.length, 1);
      const { src, args, config } = dev.launches[0]!;
      assert.match(src.entry, new RegExp(`^z${op}_${dtype === 'complex128' ? 'z' : 'c'}_${side[0]}ucu_n${n}_r4_stst_w${n >= 16 ? 2 : 4}$`));
      assert.deepEqual([1, 2, 3].map((i) => num(args[i])), [4, strideA, lda], 'A: offset, stride, ld in pairs');
      assert.deepEqual([5, 6, 7].map((i) => num(args[i])), [0, ldb * cols, ldb], 'B: offset, stride, ld in pairs');
      assert.deepEqual([num(args[9]), num(args[10])], [count, vectors], 'count, vectors');
      assert.deepEqual([args[11], args[12]], [{ type: 'f64', value: 0.5 }, { type: 'f64', value: -2 }], 'alpha as two doubles');
      assert.equal(config.grid[1], 2, 'two passes of four vectors, each its own y block (a small batch)');
    }
  } finally {
    ctx.dispose();
  }
}
