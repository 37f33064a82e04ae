/**
 * perMatrixChunks (kernels/common/block-launch.ts): chunks as large as `maxBytes` allows, and where
 * the device cannot allocate them (CUDA_ERROR_OUT_OF_MEMORY) chunks of `fallbackBytes`; other
 * errors, and an out-of-memory error without a smaller fallback, reach the caller. On a fake device
 * whose allocations above a byte limit fail.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BLOCK_WORKSPACE_BYTES, cardChunkBytes, perMatrixChunks } from '../../src/cuda/kernels/common/block-launch.js';
import { CudaError } from '../../src/cuda/runtime/errors.js';
import type { DeviceDType } from '../../src/cuda/runtime/types.js';
import { FakeDevice } from '../helpers/fake-gpus.js';

/** A fake GPU whose allocations of more than `limit` bytes fail as a full card's do (or with `error`). */
class SmallDevice extends FakeDevice {
  constructor(private readonly limit: number, private readonly error?: CudaError) { super(0, []); }
  override alloc(dtype: DeviceDType, length: number): ReturnType<FakeDevice['alloc']> {
    if (length * 8 > this.limit) throw this.error ?? new CudaError('CUDA_ERROR_OUT_OF_MEMORY', 2, 'cuMemAlloc_v2', `${length} elements`);
    return super.alloc(dtype, length);
  }
}

/** float64 elements a matrix: 200,000 bytes (the workspace's first buffer is at least 1 MiB). */
const WORK = 25_000;

const chunksOf = (dev: FakeDevice, count: number, maxBytes: number, fallbackBytes?: number): number[] => {
  const sizes: number[] = [];
  let next = 0;
  perMatrixChunks(dev, { work: WORK, workDtype: 'float64', what: 'test slices', maxBytes, fallbackBytes }, count, (ws, first, blocks) => {
    assert.ok(ws !== undefined && ws.length >= blocks * WORK, 'a slice for every block');
    assert.equal(first, next, 'chunks in order, none skipped');
    next = first + blocks;
    sizes.push(blocks);
  });
  assert.equal(next, count, 'every matrix in a chunk');
  return sizes;
};

describe('perMatrixChunks', () => {
  it('takes chunks of maxBytes where the device allocates them', () => {
    assert.deepEqual(chunksOf(new SmallDevice(1e9), 25, 2e6), [10, 10, 5]);
    assert.deepEqual(chunksOf(new SmallDevice(1e9), 25, 8e6, 2e6), [25]);
  });

  it('falls back to chunks of fallbackBytes where maxBytes does not fit on the device', () => {
    // 25 matrices of 200,000 bytes: 5 MB in one chunk, more than the 3 MB the device gives.
    assert.deepEqual(chunksOf(new SmallDevice(3e6), 25, 8e6, 2e6), [10, 10, 5]);
  });

  it('reports the out-of-memory error without a smaller fallback, and any other error as it is', () => {
    assert.throws(() => chunksOf(new SmallDevice(3e6), 25, 8e6), (e: unknown) => e instanceof CudaError && e.status === 'CUDA_ERROR_OUT_OF_MEMORY');
    assert.throws(() => chunksOf(new SmallDevice(3e6), 25, 8e6, 8e6), (e: unknown) => e instanceof CudaError && e.status === 'CUDA_ERROR_OUT_OF_MEMORY');
    const other = new CudaError('CUDA_ERROR_ILLEGAL_ADDRESS', 700, 'cuMemAlloc_v2', 'sticky');
    assert.throws(() => chunksOf(new SmallDevice(3e6, other), 25, 8e6, 2e6), (e: unknown) => e instanceof CudaError && e.status === 'CUDA_ERROR_ILLEGAL_ADDRESS');
  });
});

describe('perMatrixChunks without maxBytes', () => {
  /** A fake card of `total` bytes whose allocations above `limit` fail. */
  const card = (total: number, limit: number, smCount = 4): SmallDevice => {
    const dev = new SmallDevice(limit);
    (dev as { info: unknown }).info = { ...dev.info, totalMemoryBytes: total, smCount };
    return dev;
  };

  it('chunks of four matrices an SM, at most an eighth of the card (cardChunkBytes), at least BLOCK_WORKSPACE_BYTES', () => {
    // The fake card's 4 SMs: 16 matrices of 200,000 bytes, 3.2 MB, below 256 MiB: chunks of 256 MiB (1,342 matrices).
    assert.equal(cardChunkBytes(card(80e9, 1e12), 200_000), 3.2e6);
    assert.deepEqual(chunksOfDefault(card(80e9, 1e12), 3000), [1342, 1342, 316]);
    // 132 SMs and matrices of 4 MB: 2,112 MB; a card of 8 GB allows 1 GB.
    assert.equal(cardChunkBytes(card(80e9, 1e12, 132), 4e6), 2.112e9);
    assert.equal(cardChunkBytes(card(8e9, 1e12, 132), 4e6), 1e9);
    // matrices of 400,000 bytes on 132 SMs: 211 MB, below 256 MiB (671 matrices); of 4 MB: 528 a chunk.
    assert.deepEqual(chunksOfDefault(card(80e9, 1e12, 132), 1200, 50_000), [671, 529]);
    assert.deepEqual(chunksOfDefault(card(80e9, 1e12, 132), 1200, 500_000), [528, 528, 144]);
  });

  it('chunks of BLOCK_WORKSPACE_BYTES where the card cannot allocate four matrices an SM', () => {
    // 2.1 GB chunks of 4 MB matrices fail on a card that gives 1 GB at once: 256 MiB, 67 matrices.
    const fallback = Math.floor(BLOCK_WORKSPACE_BYTES / 4e6);
    const whole = Math.floor(1200 / fallback);
    assert.deepEqual(chunksOfDefault(card(80e9, 1e9, 132), 1200, 500_000), [...Array<number>(whole).fill(fallback), 1200 - whole * fallback]);
    assert.ok(whole > 1 && 1200 % fallback !== 0, 'several full chunks and a partial one');
  });
});

function chunksOfDefault(dev: FakeDevice, count: number, work = WORK): number[] {
  const sizes: number[] = [];
  perMatrixChunks(dev, { work, workDtype: 'float64', what: 'test slices' }, count, (_ws, _first, blocks) => { sizes.push(blocks); });
  return sizes;
}
