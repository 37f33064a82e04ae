/**
 * Compiling before a context is open: a program that knows its first calls starts their kernels'
 * compiles as soon as the driver has found the GPU, and opens the context (and makes its data)
 * while the compile workers run. The context's calls, and `ctx.warm`, then wait for those builds
 * where they need them rather than compiling them again. `npm start` (the demo) starts its cases'
 * compiles this way: with an empty kernel cache, opening the context is no longer on the path to
 * its first result.
 */
import { planKernels } from '../cuda/backend.js';
import { compileAhead, prestartCompilesIfGpu } from '../cuda/runtime/index.js';
import { readDeviceInfo } from '../cuda/runtime/device-info.js';
import { cudaRuntime } from '../cuda/runtime/runtime.js';
import { check, describeValue } from '../core/errors.js';
import { probeBackends } from './backends.js';
import { Context } from './context.js';

/**
 * Starts compiling, on GPU `device`'s behalf, the kernels that the calls `record` makes on a
 * planning context would need (the calls run nothing: their arguments' shapes, dtypes and layouts
 * decide the plan, as for `ctx.warm`). Settles when the kernels are in the kernel cache; undefined
 * where this machine has no usable GPU (nothing to compile; `open()` then gives the CPU backend).
 * Calls planned here for a device the context then does not use cost their compile time and nothing else.
 *
 *   const ready = warmAhead((ctx) => ctx.getrf({ a: strided(ctx.alloc('float64', 64 * 64 * 1000), { rows: 64, count: 1000 }) }));
 *   const ctx = open();   // meanwhile the kernels compile; the first getrf waits for them where needed
 */
export function warmAhead(record: (planning: Context) => void, device = 0): Promise<void> | undefined {
  check(typeof record === 'function', 'INVALID_ARGUMENT', 'record', `expected a function of a planning context, got ${describeValue(record)}`);
  check(Number.isSafeInteger(device) && device >= 0, 'INVALID_ARGUMENT', 'device', `expected a non-negative device ordinal, got ${describeValue(device)}`);
  // The workers first (they load NVRTC meanwhile), then the probe open() makes and keeps: no driver,
  // no device or no NVRTC is "no usable GPU".
  prestartCompilesIfGpu();
  if (!probeBackends().cuda.usable) return undefined;
  const runtime = cudaRuntime();
  check(device < runtime.deviceCount, 'INVALID_ARGUMENT', 'device', `no CUDA device ${device} (this machine has ${runtime.deviceCount})`);
  const info = readDeviceInfo(runtime.api, device);
  const sources = planKernels(info, (planning) => record(new Context('cuda', planning, planning, () => {})));
  return compileAhead(info, sources);
}
