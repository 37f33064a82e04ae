/**
 * openMultiDevice: a MultiDeviceContext over the selected GPUs (the multi-GPU engine itself is
 * src/cuda/multi/; this is its public face, beside the one-GPU open()): one CudaDevice (primary
 * context + its own stream) and one single-device CudaBackend per ordinal. Kernels compile once per
 * architecture: the runtime's module cache is process-wide and keyed by source, options, arch and
 * versions (never by ordinal), so the second device of an arch finds the binary in memory and only
 * loads it (cuModuleLoadData per device).
 */
import { MyriadError } from '../core/errors.js';
import { CudaBackend } from '../cuda/backend.js';
import { MultiDeviceBackend, type MultiDeviceOptions } from '../cuda/multi/backend.js';
import type { Lane } from '../cuda/multi/lane.js';
import { resolveDevices, type DeviceSelection } from '../cuda/multi/open.js';
import { hasGpuOp } from '../cuda/router.js';
import { openDevice, prestartCompiles, probeCuda } from '../cuda/runtime/index.js';
import { MultiDeviceContext } from './multi-context.js';

const contexts = new Map<string, MultiDeviceContext>();

/**
 * A context spanning the selected GPUs, one per selection per process (like one-GPU contexts).
 * `options.weights` (and `spread`, `hostOutputs`), when given, replace those of that shared context.
 */
export function openMultiDevice(selection: DeviceSelection = 'all', options: MultiDeviceOptions = {}): MultiDeviceContext {
  const p = probeCuda();
  if (!p.usable) throw new MyriadError('BACKEND_UNAVAILABLE', `the CUDA backend is not usable: ${p.reason}`, 'backend');
  const ordinals = resolveDevices(selection, p.devices.length);
  const key = ordinals.join(',');
  let ctx = contexts.get(key);
  if (!ctx || ctx.disposed) {
    const versions = `driver CUDA ${p.driverVersion}, NVRTC ${p.nvrtcVersion}`;
    const lanes: Lane[] = [];
    try {
      for (const o of ordinals) {
        const device = openDevice(o);
        lanes.push({ device, backend: new CudaBackend(device, versions), hasKernel: hasGpuOp });
      }
    } catch (e) {
      for (const l of lanes) l.device.dispose();
      throw e;
    }
    ctx = new MultiDeviceContext(new MultiDeviceBackend(lanes, versions, options));
    contexts.set(key, ctx);
    prestartCompiles();
  } else {
    if (options.weights) ctx.weights = options.weights;
    if (options.spread !== undefined) ctx.spread = options.spread;
    if (options.hostOutputs !== undefined) ctx.hostOutputs = options.hostOutputs;
  }
  return ctx;
}
