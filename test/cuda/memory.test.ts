/**
 * DeviceArray lifetime without a GPU: a fake driver (alloc/free/set-current only) stands in
 * for libcuda, so dispose, double dispose, use after dispose, the GC safety net, the device's
 * close() and CudaError naming run in CI.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { DeviceContext } from '../../src/cuda/runtime/context.js';
import { CudaError } from '../../src/cuda/runtime/errors.js';
import type { CUcontext, CUstream, CudaDriverApi } from '../../src/cuda/runtime/ffi-cuda.js';
import { CudaDeviceArray, ownArray } from '../../src/cuda/runtime/memory.js';
import { MyriadError } from '../../src/core/errors.js';

function fakeDriver(failAlloc = 0): { api: CudaDriverApi; live: Set<bigint>; frees: bigint[] } {
  const live = new Set<bigint>();
  const frees: bigint[] = [];
  let next = 0x7f0000000000n;
  const fake = {
    cuCtxSetCurrent: () => 0,
    cuMemAlloc_v2: (out: [number | bigint], bytes: number) => {
      if (failAlloc) return failAlloc;
      out[0] = Number(next);
      live.add(next);
      next += BigInt(bytes + 256);
      return 0;
    },
    cuMemFree_v2: (ptr: bigint) => {
      assert.ok(live.delete(ptr), `free of ${ptr.toString(16)}: not live (double free?)`);
      frees.push(ptr);
      return 0;
    },
    cuGetErrorName: (r: number, out: [string | null]) => ((out[0] = r === 2 ? 'CUDA_ERROR_OUT_OF_MEMORY' : 'CUDA_ERROR_UNKNOWN'), 0),
    cuGetErrorString: (_r: number, out: [string | null]) => ((out[0] = 'out of memory'), 0),
  };
  return { api: fake as unknown as CudaDriverApi, live, frees };
}

const context = (api: CudaDriverApi): DeviceContext => new DeviceContext(api, 0, {} as CUcontext, {} as CUstream);

test('dispose frees once; use after dispose throws DISPOSED', () => {
  const { api, live, frees } = fakeDriver();
  const ctx = context(api);
  const a = new CudaDeviceArray(ctx, 'float64', 10);
  assert.equal(a.byteLength, 80);
  assert.equal(live.size, 1);
  const ptr = a.ptr;
  a.dispose();
  a.dispose();
  assert.deepEqual(frees, [ptr]);
  assert.equal(a.disposed, true);
  assert.throws(() => a.ptr, (e: MyriadError) => e.code === 'DISPOSED');
  assert.throws(() => ownArray(ctx, a, 'x'), (e: MyriadError) => e.code === 'DISPOSED');
});

test('zero-length arrays make no native call', () => {
  const { api, live } = fakeDriver();
  const a = new CudaDeviceArray(context(api), 'int32', 0);
  assert.equal(a.ptr, 0n);
  assert.equal(live.size, 0);
  a.dispose();
});

test('an array of another device (context) is refused', () => {
  const { api } = fakeDriver();
  const a = new CudaDeviceArray(context(api), 'float32', 4);
  assert.throws(() => ownArray(context(api), a, 'src'), (e: MyriadError) => e.code === 'INVALID_ARGUMENT' && e.argument === 'src');
});

test('a failed allocation is a CudaError naming the CUresult and the call', () => {
  const { api } = fakeDriver(2);
  assert.throws(() => new CudaDeviceArray(context(api), 'float64', 1 << 20), (e: unknown) => {
    assert.ok(e instanceof CudaError);
    assert.equal(e.code, 'CUDA');
    assert.equal(e.status, 'CUDA_ERROR_OUT_OF_MEMORY');
    assert.equal(e.call, 'cuMemAlloc_v2');
    assert.match(e.message, /^CUDA_ERROR_OUT_OF_MEMORY \(2\) from cuMemAlloc_v2: out of memory; 8388608 bytes on device 0/);
    return true;
  });
});

test('close() frees every live array and later dispose() is a no-op', () => {
  const { api, live, frees } = fakeDriver();
  const ctx = context(api);
  const arrays = [1, 2, 3].map((n) => new CudaDeviceArray(ctx, 'float64', n));
  arrays[1]?.dispose();
  ctx.close();
  assert.equal(live.size, 0);
  assert.equal(frees.length, 3);
  for (const a of arrays) {
    assert.equal(a.disposed, true);
    a.dispose();
  }
  assert.throws(() => new CudaDeviceArray(ctx, 'float64', 1), (e: MyriadError) => e.code === 'DISPOSED');
});

test('an array collected without dispose() is freed by the safety net', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const { api, live } = fakeDriver();
  const ctx = context(api);
  const keep = new CudaDeviceArray(ctx, 'float64', 1);
  (() => {
    for (let i = 0; i < 10; i++) new CudaDeviceArray(ctx, 'float32', 100);
  })();
  assert.equal(live.size, 11);
  for (let i = 0; i < 20 && live.size > 1; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(live.size, 1, 'only the array still referenced stays');
  assert.equal(ctx.liveAllocations, 1);
  keep.dispose();
});
