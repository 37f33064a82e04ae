/**
 * Row-major batches that the LU family and the solves copy: an empty one needs no copy, and its
 * column-major stand-in keeps the logical shape (a 1 x 0 B stays 1 x 0: transposed, it would read
 * as 0 x 1, and a GPU solve with one right-hand side wrote into the caller's gap).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { columnMajorCopy } from '../../src/api/rowmajor.js';
import { list, strided, variable } from '../../src/core/batch.js';

test('empty row-major batches: column-major stand-ins of the same shape, nothing copied', () => {
  const data = new Float64Array(3).fill(7);
  const s = columnMajorCopy(strided(data, { rows: 1, cols: 0, count: 4, stride: 1, order: 'row' }), 'b').batch;
  assert.deepEqual([s.kind, s.order, s.kind === 'strided' && s.rows, s.kind === 'strided' && s.cols, s.kind === 'strided' && s.data === data], ['strided', 'col', 1, 0, true]);
  const l = columnMajorCopy(list([data, data], { rows: 2, cols: 0, order: 'row' }), 'b').batch;
  assert.ok(l.kind === 'list' && l.rows === 2 && l.cols === 0 && l.ld === 2 && l.order === 'col');
  const v = columnMajorCopy(variable([{ data, rows: 3, cols: 0 }, { data, rows: 0, cols: 2 }], { order: 'row' }), 'b').batch;
  assert.ok(v.kind === 'variable');
  assert.deepEqual(v.matrices.map((m) => [m.rows, m.cols, m.ld]), [[3, 0, 3], [0, 2, 1]]);
  assert.deepEqual([...data], [7, 7, 7]);
});
