/**
 * open(): a context bound to a backend. 'cpu' always works; 'cuda' needs a usable NVIDIA driver,
 * NVRTC and a GPU and throws BACKEND_UNAVAILABLE with the reason otherwise; 'auto' (the default)
 * takes CUDA where it is usable and the CPU otherwise.
 */
import { MyriadError } from '../core/errors.js';
import { parseBackendName, type BackendChoice, probeBackends, openCudaContext } from './backends.js';
import { Context, cpuContext } from './context.js';

export interface OpenOptions {
  backend?: BackendChoice;
  /** CUDA device ordinal (default 0). */
  device?: number;
}

export function open(options: OpenOptions = {}): Context {
  const choice = parseBackendName(options.backend ?? 'auto');
  const device = options.device ?? 0;
  if (!Number.isSafeInteger(device) || device < 0)
    throw new MyriadError('INVALID_ARGUMENT', `expected a non-negative device ordinal, got ${String(options.device)}`, 'device');
  if (choice === 'cpu') return cpuContext;
  const cuda = probeBackends().cuda;
  if (!cuda.usable) {
    if (choice === 'auto') return cpuContext;
    throw new MyriadError('BACKEND_UNAVAILABLE', `the CUDA backend is not usable: ${cuda.reason}`, 'backend');
  }
  return openCudaContext(device);
}
