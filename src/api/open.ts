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
import { MyriadError, check, checkKeys, describeValue } from '../core/errors.js';
import { parseBackendName, type BackendChoice, probeBackends, openCudaContext } from './backends.js';
import { Context, newCpuContext, newReferenceContext } from './context.js';
import type { DeviceSelection } from '../cuda/multi/open.js';
import { openMultiDevice } from './multi-open.js';
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

/**
 * A context on the best usable backend (CUDA where a GPU works, else the CPU), or the one asked
 * for: `open({ backend: 'cpu' })`. Dispose it when done (`ctx.dispose()`).
 */
export function open(options: OpenOptions = {}): Context {
  check(typeof options === 'object' && options !== null && !Array.isArray(options), 'INVALID_ARGUMENT', 'options',
    `expected { backend?, device?, devices?, weights? }, got ${describeValue(options)}`);
  checkKeys(options, ['backend', 'device', 'devices', 'weights']);
  const choice = parseBackendName(options.backend ?? 'auto');
  const device = options.device ?? 0;
  if (!Number.isSafeInteger(device) || device < 0)
    throw new MyriadError('INVALID_ARGUMENT', `expected a non-negative device ordinal, got ${describeValue(options.device)}`, 'device');
  checkDeviceOptions(options, choice);
  if (choice === 'cpu') return cpuWithWorkers();
  if (choice === 'reference') return newReferenceContext();
  const cuda = probeBackends({ opening: true }).cuda;
  if (!cuda.usable) {
    // Several GPUs asked for: a CPU context would not have the multi-device methods.
    if (choice === 'auto' && options.devices === undefined) return cpuWithWorkers();
    throw new MyriadError('BACKEND_UNAVAILABLE', `the CUDA backend is not usable: ${cuda.reason}`, options.devices === undefined ? 'backend' : 'devices');
  }
  if (options.devices !== undefined) return openMultiDevice(options.devices, options.weights ? { weights: options.weights } : {});
  return openCudaContext(device);
}

/** `devices` and `weights`, checked in shape before any device is probed (ordinals are checked against the machine later). */
function checkDeviceOptions(options: OpenOptions, choice: BackendChoice): void {
  const { devices, weights } = options;
  if (devices !== undefined) {
    const ok = devices === 'all' || (Array.isArray(devices) && devices.length > 0 && devices.every((d) => Number.isSafeInteger(d) && d >= 0));
    check(ok, 'INVALID_ARGUMENT', 'devices', `expected 'all' or a non-empty list of device ordinals, got ${describeValue(devices)}`);
    check(choice !== 'cpu' && choice !== 'reference', 'INVALID_ARGUMENT', 'devices', `several GPUs need backend 'cuda' or 'auto', not '${choice}'`);
  }
  if (weights !== undefined) {
    check(devices !== undefined, 'INVALID_ARGUMENT', 'weights', 'weights apply to several devices: give devices too');
    check(Array.isArray(weights) && weights.every((w) => typeof w === 'number' && Number.isFinite(w) && w >= 0) && weights.some((w) => w > 0),
      'INVALID_ARGUMENT', 'weights', `expected a list of finite numbers >= 0, at least one > 0, got ${describeValue(weights)}`);
    if (Array.isArray(devices))
      check(weights.length === devices.length, 'INVALID_ARGUMENT', 'weights', `${weights.length} weights for ${devices.length} devices`);
  }
}

/** The fast CPU context, its worker threads started in the background (they boot while the caller prepares data). */
function cpuWithWorkers(): Context {
  startCpuWorkers();
  return newCpuContext();
}
