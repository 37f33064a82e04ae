/**
 * The GPU of a test process: one shared device, opened on first use; where no GPU is usable,
 * GPU tests skip with one line saying why (CI has no GPU and stays green).
 *
 *   test('...', { skip: gpuSkipReason() }, () => { const dev = gpu(); ... });
 *   test('...', (t) => { const dev = gpuOrSkip(t); if (!dev) return; ... });
 */
import type { TestContext } from 'node:test';
import { Context } from '../../src/api/context.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { openDevice, probeCuda, type CudaDevice } from '../../src/cuda/runtime/index.js';

let device: CudaDevice | undefined;
let reason: string | undefined;
let probed = false;

function probeOnce(): void {
  if (probed) return;
  probed = true;
  const p = probeCuda();
  if (!p.usable) {
    reason = `no usable GPU: ${p.reason}`;
    return;
  }
  try {
    device = openDevice(0);
  } catch (e) {
    reason = `no usable GPU: ${(e as Error).message}`;
  }
}

/** Undefined where a GPU is usable, else the one-line reason (for `{ skip: gpuSkipReason() }`). */
export function gpuSkipReason(): string | undefined {
  probeOnce();
  return reason;
}

/** The shared device; throws where none is usable (use inside tests guarded by gpuSkipReason). */
export function gpu(): CudaDevice {
  probeOnce();
  if (!device) throw new Error(reason ?? 'no GPU');
  return device;
}

/** The shared device, or undefined after marking the test skipped with the reason. */
export function gpuOrSkip(t: TestContext): CudaDevice | undefined {
  probeOnce();
  if (!device) t.skip(reason);
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
