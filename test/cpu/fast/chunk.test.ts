/**
 * The wasm kernels' chunking (context.ts wasmChunk): as many matrices as fit the chunk bytes, at
 * least one, at most the batch; rounded down to whole groups for the kernels that take matrices
 * two or four at a time, unless the whole batch fits or fewer than a group fit.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cpuTuning, wasmChunk } from '../../../src/cpu-fast/context.js';

test('wasmChunk: what fits, rounded down to whole groups', () => {
  const bytes = cpuTuning().gemmWasmChunkBytes;
  const per = Math.floor(bytes / 59); // 59 matrices fit
  assert.equal(wasmChunk(1000, per), 59);
  assert.equal(wasmChunk(1000, per, 2), 58);
  assert.equal(wasmChunk(1000, per, 4), 56);
  assert.equal(wasmChunk(1000, per, 1), 59);
  // the whole batch fits: one chunk, whatever its parity
  assert.equal(wasmChunk(31, per, 4), 31);
  assert.equal(wasmChunk(59, per, 4), 59);
  // fewer than a group fit: what fits, at least one
  assert.equal(wasmChunk(1000, Math.floor(bytes / 3), 4), 3);
  assert.equal(wasmChunk(1000, 2 * bytes, 2), 1);
});
