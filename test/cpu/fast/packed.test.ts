/**
 * Streams whose workers' chunks the caller packs straight into the workers' (shared)
 * WebAssembly memories, the workers running only the kernel there (ops/chunks.ts,
 * threads/parallel.ts): over three threads, against the reference bit for bit, with chunks of
 * one to a few matrices, counts that the threads and chunks do not divide, a failing (singular,
 * not SPD) matrix in every chunk, both triangles, both dtypes; which requests take the path; a
 * worker memory that the caller grows; and the pieces underneath (a module's shared-memory form,
 * views that follow a memory grown elsewhere, block copies into and out of shared buffers).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fastCpuBackend } from '../../../src/cpu-fast/backend.js';
import { copyElements } from '../../../src/cpu-fast/copy.js';
import { posvChunks, potrfChunks } from '../../../src/cpu-fast/ops/cholesky.js';
import { gesvChunks, getrfChunks, getrsChunks } from '../../../src/cpu-fast/ops/lu.js';
import { THREADING, threadsFor } from '../../../src/cpu-fast/threads/parallel.js';
import { WORKER_MEMORY_BYTES, slot } from '../../../src/cpu-fast/threads/pool.js';
import { Code, OP, encodeModule, sharedKernelMemory, withSharedMemory } from '../../../src/cpu-fast/wasm/emit.js';
import { Heap } from '../../../src/cpu-fast/wasm/runtime.js';
import type { DType } from '../../../src/core/dtype.js';
import type { Uplo } from '../../../src/core/enums.js';
import { Rng } from '../../helpers/random.js';
import { conform, generalFill, info, makeBatch, pivots, spdFill, splitAcrossThreads, type Conformance } from './harness.js';

splitAcrossThreads(3);

/** Runs `body` with every call streamed in chunks of about `chunkBytes` of the caller's data. */
function streamedIn(chunkBytes: number, body: () => void): void {
  const saved = { ...THREADING };
  try {
    THREADING.streamBytes = 0;
    THREADING.streamChunkBytes = chunkBytes;
    body();
  } finally {
    Object.assign(THREADING, saved);
  }
}

const square = (n: number, count: number) => Array.from({ length: count }, () => ({ rows: n, cols: n }));
const rhs = (n: number, count: number, cols: number) => Array.from({ length: count }, () => ({ rows: n, cols }));
/** Every third matrix fails (from matrix 1), so chunks of three or more each hold one. */
const everyThird = (k: number) => (p: number): number => (p % 3 === 1 ? k : -1);

function luCase(op: 'gesv' | 'getrf' | 'getrs', dtype: DType, n: number, count: number): Conformance {
  return {
    op, label: `packed ${op} ${dtype} n=${n} count=${count}`,
    build(rng: Rng): object {
      const a = makeBatch(rng, dtype, 'strided', square(n, count), generalFill(op === 'getrs' ? () => -1 : everyThird((n >> 1) + 1)));
      const ipiv = pivots(count * n);
      if (op === 'getrs') for (let p = 0; p < count; p++) for (let j = 0; j < n; j++) ipiv[p * n + j] = rng.int(j, n - 1);
      const r = { a, ipiv, pivotStride: n, info: info(count) };
      const b = makeBatch(rng, dtype, 'strided', rhs(n, count, 2));
      return op === 'getrf' ? r : op === 'gesv' ? { ...r, b } : { ...r, b, trans: 'N' };
    },
  };
}

function choleskyCase(op: 'posv' | 'potrf', dtype: DType, uplo: Uplo, n: number, count: number): Conformance {
  return {
    op, label: `packed ${op} ${dtype} ${uplo} n=${n} count=${count}`,
    build(rng: Rng): object {
      const a = makeBatch(rng, dtype, 'strided', square(n, count), spdFill(everyThird(n >> 1)));
      const r = { uplo, a, info: info(count) };
      return op === 'potrf' ? r : { ...r, b: makeBatch(rng, dtype, 'strided', rhs(n, count, 3)) };
    },
  };
}

describe('packed streams: chunks packed into the workers\' memories', () => {
  test("a module's shared-memory form computes what the unshared one does", () => {
    const code = new Code(['i32']);
    code.get(0).get(0).op(OP.f64Load, 3, 0).get(0).op(OP.f64Load, 3, 8).op(OP.f64Mul).op(OP.f64Store, 3, 16);
    const bytes = encodeModule([{ name: 'f', params: ['i32'], results: [], code }]);
    const shared = sharedKernelMemory(1), plain = new WebAssembly.Memory({ initial: 1 });
    for (const [mem, b] of [[shared, withSharedMemory(bytes)], [plain, bytes]] as const) {
      new Float64Array(mem.buffer).set([1.5, -2.25], 4);
      (new WebAssembly.Instance(new WebAssembly.Module(b), { env: { mem } }).exports.f as (at: number) => void)(32);
      assert.equal(new Float64Array(mem.buffer)[6], -3.375);
    }
    assert.ok(shared.buffer instanceof SharedArrayBuffer);
    assert.throws(() => new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { mem: shared } }), 'the unshared form is refused a shared memory');
    assert.throws(() => withSharedMemory(withSharedMemory(bytes)), /not an encodeModule module/);
  });

  test('copyElements: any pair of shared and unshared arrays, offsets, conversions, bounds', () => {
    const rng = new Rng(9);
    const make = (sharedBuffer: boolean, length: number): Float64Array =>
      new Float64Array(sharedBuffer ? new SharedArrayBuffer(8 * (length + 3)) : new ArrayBuffer(8 * (length + 3)), 16, length);
    for (const ds of [false, true]) for (const ss of [false, true]) {
      const src = make(ss, 50), dst = make(ds, 40);
      for (let i = 0; i < src.length; i++) src[i] = rng.uniform();
      copyElements(dst, 3, src, 7, 30);
      for (let i = 0; i < dst.length; i++) assert.equal(dst[i], i >= 3 && i < 33 ? src[i + 4] : 0, `shared ${ds}/${ss}: element ${i}`);
      assert.throws(() => copyElements(dst, 11, src, 0, 30), RangeError);
      assert.throws(() => copyElements(dst, 0, src, 25, 30), RangeError);
      copyElements(dst, 0, src, 0, 0);
    }
    const f32 = new Float32Array(new SharedArrayBuffer(16));
    copyElements(f32, 1, Float64Array.of(0.1, 0.2), 0, 2); // converted as set converts
    assert.deepEqual([...f32], [0, Math.fround(0.1), Math.fround(0.2), 0]);
    const ints = new Int32Array(new SharedArrayBuffer(16));
    copyElements(ints, 0, Int32Array.of(-1, 2, -3, 4), 1, 3);
    assert.deepEqual([...ints], [2, -3, 4, 0]);
  });

  test('views follow a shared memory grown through another handle', () => {
    const memory = sharedKernelMemory(1);
    const mine = new Heap(memory), theirs = new Heap(memory);
    theirs.reserve(5 * 65536).f64[40000] = 7;
    assert.equal(mine.f64.length, 65536 / 8, 'stale until asked');
    assert.equal(mine.reserve(0).f64[40000], 7);
    assert.equal(mine.f64.length, (5 * 65536) / 8);
  });

  test('which requests have a plan (the whole request on one kernel, as the serial op runs it)', () => {
    const rng = new Rng(5);
    const lu = (n: number, count: number) => luCase('gesv', 'float64', n, count).build(rng) as Parameters<typeof gesvChunks>[0];
    assert.ok(gesvChunks(lu(64, 4)), 'gesv n = 64: the delayed-update kernel');
    assert.ok(getrfChunks(lu(20, 1)), 'getrf n = 20, a batch of one');
    assert.ok(getrsChunks(luCase('getrs', 'float32', 40, 3).build(rng) as Parameters<typeof getrsChunks>[0]), 'getrs N');
    assert.equal(getrsChunks({ ...(luCase('getrs', 'float64', 40, 3).build(rng) as Parameters<typeof getrsChunks>[0]), trans: 'T' }), undefined, "getrs 'T'");
    assert.equal(gesvChunks(lu(8, 4)), undefined, 'gesv n = 8: the interleaved LU, which may decline a layout');
    assert.equal(gesvChunks(lu(600, 1)), undefined, 'above LU_WASM_MAX');
    const listed = { ...lu(64, 2), a: makeBatch(rng, 'float64', 'list', square(64, 2)) };
    assert.equal(gesvChunks(listed as Parameters<typeof gesvChunks>[0]), undefined, 'a list batch');
    const chol = (op: 'posv' | 'potrf', n: number, count: number) => choleskyCase(op, 'float64', 'lower', n, count).build(rng);
    assert.ok(posvChunks(chol('posv', 8, 5) as Parameters<typeof posvChunks>[0]), 'posv n = 8: the fused interleaved kernel');
    assert.ok(potrfChunks(chol('potrf', 13, 4) as Parameters<typeof potrfChunks>[0]), 'potrf n = 13');
    assert.equal(posvChunks(chol('posv', 12, 4) as Parameters<typeof posvChunks>[0]), undefined, 'posv n = 12: composed of two kernels');
    assert.equal(posvChunks(chol('posv', 8, 1) as Parameters<typeof posvChunks>[0]), undefined, 'one matrix: the unrolled kernel');
    assert.equal(posvChunks(chol('posv', 3, 6) as Parameters<typeof posvChunks>[0]), undefined, 'posv n = 3: the unrolled kernel');
    const r = chol('posv', 8, 5);
    assert.equal(threadsFor('posv', r, 3, true), 3);
  });

  test('gesv, getrf and getrs on the delayed-update kernel: uneven counts and chunks, a singular matrix in each chunk', () => {
    for (const chunkBytes of [1, 90_000, 200_000]) streamedIn(chunkBytes, () => {
      for (const dtype of ['float64', 'float32'] as const) for (const [n, count] of [[16, 11], [47, 7], [64, 10], [33, 2]] as const)
        for (const op of ['gesv', 'getrf', 'getrs'] as const) conform(fastCpuBackend, luCase(op, dtype, n, count), n * 13 + count + chunkBytes, dtype);
    });
  });

  test('posv and potrf on the interleaved kernel: odd chunks, both triangles, a matrix that is not SPD in each chunk', () => {
    for (const chunkBytes of [1, 1500, 7000]) streamedIn(chunkBytes, () => {
      for (const dtype of ['float64', 'float32'] as const) for (const uplo of ['lower', 'upper'] as const)
        for (const [n, count] of [[4, 7], [8, 31], [5, 2], [13, 10]] as const) {
          conform(fastCpuBackend, choleskyCase('potrf', dtype, uplo, n, count), n * 17 + count + chunkBytes, dtype);
          if (n <= 8) conform(fastCpuBackend, choleskyCase('posv', dtype, uplo, n, count), n * 19 + count + chunkBytes, dtype);
        }
    });
  });

  test('a batch of one runs on the caller; a chunk larger than a worker memory grows it', () => {
    streamedIn(1, () => conform(fastCpuBackend, luCase('gesv', 'float64', 64, 1), 1, 'float64'));
    // float32 64 x 64 packed as float64: three chunks of 120 matrices take about 12 MiB
    streamedIn(120 * 64 * 66 * 4, () => conform(fastCpuBackend, luCase('gesv', 'float32', 64, 800), 2, 'float32'));
    assert.ok(slot(0).heap.memory.buffer.byteLength > WORKER_MEMORY_BYTES, 'grown by the caller');
  });
});
