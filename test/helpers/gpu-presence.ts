/**
 * Is there a GPU on this machine, and can this process use it? Three answers, because they must
 * be told apart: a machine without one (CI: GPU tests skip with one line), a machine whose GPU
 * works, and a machine that has one but cannot use it right now (a driver error, out of memory,
 * the device busy, NVRTC missing): there a GPU test must fail with the reason, never skip.
 */
import { MyriadError } from '../../src/core/errors.js';
import { cudaRuntime, unusableReason } from '../../src/cuda/runtime/runtime.js';
import { CudaError } from '../../src/cuda/runtime/errors.js';

export type GpuPresence =
  | { readonly state: 'absent'; readonly reason: string }
  | { readonly state: 'unusable'; readonly reason: string }
  | { readonly state: 'usable'; readonly devices: number };

/** What an error from loading or initialising the driver says about the machine (pure). */
export function classifyDriverError(e: unknown): GpuPresence {
  const reason = unusableReason(e);
  // libcuda not found, or found but the machine has no device: no GPU here.
  if (e instanceof CudaError) return e.status === 'CUDA_ERROR_NO_DEVICE' ? { state: 'absent', reason } : { state: 'unusable', reason };
  if (e instanceof MyriadError && e.code === 'BACKEND_UNAVAILABLE') return { state: 'absent', reason };
  return { state: 'unusable', reason };
}

let cached: GpuPresence | undefined;

/** Probes once per process: the driver, its device count, NVRTC. Never throws. */
export function gpuPresence(): GpuPresence {
  if (cached) return cached;
  let devices: number;
  let compilerError: unknown;
  try {
    const rt = cudaRuntime();
    devices = rt.deviceCount;
    try { rt.compiler(); } catch (e) { compilerError = e; }
  } catch (e) {
    return (cached = classifyDriverError(e));
  }
  if (devices === 0) cached = { state: 'absent', reason: 'no CUDA device (cuDeviceGetCount returned 0)' };
  else if (compilerError !== undefined) cached = { state: 'unusable', reason: `the driver sees ${devices} GPU(s) but NVRTC is unusable: ${unusableReason(compilerError)}` };
  else cached = { state: 'usable', devices };
  return cached;
}
