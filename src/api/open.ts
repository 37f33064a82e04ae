/**
 * open(): a context bound to a backend. 'cpu' (the fast CPU backend) and 'reference' (the plain
 * TypeScript reference, the oracle) always work; 'cuda' needs a usable NVIDIA driver,
 * NVRTC and a GPU and throws BACKEND_UNAVAILABLE with the reason otherwise; 'auto' (the default)
 * takes CUDA where it is usable and the CPU otherwise.
 *
 * `devices` ('all' or a list of ordinals) spreads every call over several GPUs and returns a
 * MultiDeviceContext (src/cuda/multi/): host batches are split among the devices, and
 * `scatter` keeps a batch resident across them. One listed device runs the same code.
 */
import { MyriadError } from '../core/errors.js';
import { parseBackendName, type BackendChoice, probeBackends, openCudaContext } from './backends.js';
import { Context, cpuContext, referenceContext } from './context.js';
import { openMultiDevice, type DeviceSelection } from '../cuda/multi/open.js';
import { startCpuWorkers } from '../cpu-fast/threads/pool.js';

export interface OpenOptions {
  backend?: BackendChoice;
  /** CUDA device ordinal (default 0). */
  device?: number;
  /** Several GPUs behind one context: 'all' visible ones or a list of ordinals (overrides `device`). */
  devices?: DeviceSelection;
  /** With `devices`: each device's share of a host batch (default: equal for identical GPUs). */
  weights?: readonly number[];
}

export function open(options: OpenOptions = {}): Context {
  const choice = parseBackendName(options.backend ?? 'auto');
  const device = options.device ?? 0;
  if (!Number.isSafeInteger(device) || device < 0)
    throw new MyriadError('INVALID_ARGUMENT', `expected a non-negative device ordinal, got ${String(options.device)}`, 'device');
  if (choice === 'cpu') return cpuWithWorkers();
  if (choice === 'reference') return referenceContext;
  const cuda = probeBackends().cuda;
  if (!cuda.usable) {
    if (choice === 'auto') return cpuWithWorkers();
    throw new MyriadError('BACKEND_UNAVAILABLE', `the CUDA backend is not usable: ${cuda.reason}`, 'backend');
  }
  if (options.devices !== undefined) return openMultiDevice(options.devices, options.weights ? { weights: options.weights } : {});
  return openCudaContext(device);
}

/** The fast CPU context, its worker threads started in the background (they boot while the caller prepares data). */
function cpuWithWorkers(): Context {
  startCpuWorkers();
  return cpuContext;
}
