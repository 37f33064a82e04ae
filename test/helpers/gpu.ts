/**
 * The GPU of a test process: one shared device, opened on first use.
 *
 * Skipping is for machines without a GPU only (CI: GPU tests skip with one line saying why). On a
 * machine that has one, a GPU test never skips: where the device cannot be used (a driver error,
 * out of memory, busy, NVRTC missing) `gpu()` throws the reason and the test fails. The suite's
 * runner (scripts/gpu-tests.ts) sets MYRIAD_REQUIRE_GPU=1 once it has found a GPU, so that no
 * test of its run can skip for want of one either.
 *
 *   test('...', { skip: gpuSkipReason() }, () => { const dev = gpu(); ... });
 */
import { Context } from '../../src/api/context.js';
import { list, strided, type Batch } from '../../src/core/batch.js';
import type { DeviceStorage, Storage } from '../../src/core/storage.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { openDevice, type CudaDevice } from '../../src/cuda/runtime/index.js';
import { gpuPresence } from './gpu-presence.js';

let device: CudaDevice | undefined;
let openError: Error | undefined;

/** MYRIAD_REQUIRE_GPU=1: a missing GPU fails the tests instead of skipping them. */
export const GPU_REQUIRED = process.env['MYRIAD_REQUIRE_GPU'] === '1';

/**
 * The one-line reason to skip GPU tests: set only where this machine has no GPU at all (and
 * MYRIAD_REQUIRE_GPU is not set). Undefined wherever a GPU is present, usable or not.
 */
export function gpuSkipReason(): string | undefined {
  const p = gpuPresence();
  return p.state === 'absent' && !GPU_REQUIRED ? `no usable GPU: ${p.reason}` : undefined;
}

/** The shared device (device 0); throws the reason where it cannot be opened (the test then fails). */
export function gpu(): CudaDevice {
  if (device) return device;
  if (openError) throw openError;
  const p = gpuPresence();
  if (p.state !== 'usable') {
    openError = new Error(p.state === 'absent' ? `no GPU (and MYRIAD_REQUIRE_GPU=1): ${p.reason}` : `a GPU is present but unusable: ${p.reason}`);
    throw openError;
  }
  try {
    device = openDevice(0);
  } catch (e) {
    openError = new Error(`a GPU is present but device 0 could not be opened: ${(e as Error).message}`, { cause: e });
    throw openError;
  }
  return device;
}

/**
 * A CUDA context on `dev` whose backend sees the device through a proxy that counts every host <->
 * device copy (upload, download): a test runs an operation on device data and asserts none happened.
 */
export function countingContext(dev: CudaDevice): { readonly ctx: Context; copies(): number } {
  let copies = 0;
  const counting = new Proxy(dev, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      const f = value as (...args: unknown[]) => unknown;
      if (prop === 'upload' || prop === 'download') return (...args: unknown[]) => { copies++; return f.apply(target, args); };
      return f.bind(target);
    },
  });
  const backend = new CudaBackend(counting, 'test');
  return { ctx: new Context('cuda', backend, backend), copies: () => copies };
}

let sharedContext: { ctx: Context; backend: CudaBackend } | undefined;
/** One CUDA context over the shared device for a whole test file (its backend for `force` and `warm`), made on first use. */
export function gpuContext(): { ctx: Context; backend: CudaBackend } {
  if (sharedContext === undefined) {
    const backend = new CudaBackend(gpu(), 'test');
    sharedContext = { ctx: new Context('cuda', backend, backend), backend };
  }
  return sharedContext;
}

/**
 * Compiles every kernel a test file will use, at once, before its tests (`record` makes the file's
 * calls on a context over a device that runs nothing, `planning` its backend for `force`), and logs
 * what was planned, compiled and cached. Nothing where the file skips.
 */
export async function warmFileKernels(file: string, record: (ctx: Context, planning: CudaBackend | undefined) => void): Promise<void> {
  if (gpuSkipReason() !== undefined) return;
  const t0 = performance.now();
  const warmed = await gpuContext().backend.warm((planning) => {
    record(new Context('cuda', planning, planning, () => {}), planning instanceof CudaBackend ? planning : undefined);
  });
  const r = warmed.report;
  console.log(`${file}: ${warmed.sources.length} kernels planned, ${r?.compiled ?? '?'} compiled, ${r?.cached ?? '?'} cached, ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

/** Uploads a placed batch's arrays; `back` downloads them over the host arrays. */
export function onDevice(ctx: Context, b: Batch<Float64Array | Float32Array>): { batch: Batch<Storage>; back(): void; dispose(): void } {
  const copy = (to: Float64Array | Float32Array, from: DeviceStorage): void => { to.set(ctx.download(from) as Float64Array | Float32Array); };
  const free = (d: DeviceStorage): void => (d as { dispose?: () => void }).dispose?.();
  if (b.kind === 'strided') {
    const d = ctx.upload(b.data);
    return {
      batch: strided(d, { rows: b.rows, cols: b.cols, ld: b.ld, stride: b.stride, offset: b.offset, count: b.count, ...(b.dtype ? { dtype: b.dtype } : {}) }),
      back: () => copy(b.data, d), dispose: () => free(d),
    };
  }
  if (b.kind !== 'list') throw new Error('strided and list batches only');
  const ds = b.matrices.map((m) => ctx.upload(m.data as Float64Array | Float32Array));
  return {
    batch: list(ds.map((data, q) => ({ data, offset: b.matrices[q]!.offset })), { rows: b.rows, cols: b.cols, ld: b.ld, ...(b.dtype ? { dtype: b.dtype } : {}) }),
    back: () => b.matrices.forEach((m, q) => copy(m.data as Float64Array | Float32Array, ds[q]!)),
    dispose: () => ds.forEach(free),
  };
}
