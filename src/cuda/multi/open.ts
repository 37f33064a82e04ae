/**
 * Opening several GPUs: one CudaDevice (primary context + its own stream) and one single-device
 * CudaBackend per ordinal. Kernels compile once per architecture: the runtime's module cache is
 * process-wide and keyed by source, options, arch and versions (never by ordinal), so the second
 * device of an arch finds the binary in memory and only loads it (cuModuleLoadData per device).
 */
import { MyriadError } from '../../core/errors.js';
import { CudaBackend } from '../backend.js';
import { hasGpuOp } from '../registry.js';
import { openDevice, probeCuda } from '../runtime/index.js';
import { MultiDeviceBackend, type MultiDeviceOptions } from './backend.js';
import { MultiDeviceContext } from './context.js';
import type { Lane } from './lane.js';

/** Which GPUs: every visible one, or a list of ordinals. */
export type DeviceSelection = readonly number[] | 'all';

/** The ordinals a selection names, checked against the `available` devices. */
export function resolveDevices(selection: DeviceSelection, available: number): number[] {
  if (selection === 'all') return Array.from({ length: available }, (_, i) => i);
  if (!Array.isArray(selection) || selection.length === 0)
    throw new MyriadError('INVALID_ARGUMENT', `expected 'all' or a non-empty list of device ordinals, got ${JSON.stringify(selection)}`, 'devices');
  for (const d of selection)
    if (!Number.isSafeInteger(d) || d < 0 || d >= available)
      throw new MyriadError('INVALID_ARGUMENT', `no CUDA device ${String(d)} (this machine has ${available})`, 'devices');
  if (new Set(selection).size !== selection.length) throw new MyriadError('INVALID_ARGUMENT', `a device is listed twice: ${selection.join(',')}`, 'devices');
  return [...selection];
}

/** Parses the CLI form: 'all' or '0,1'. */
export function parseDevices(text: string): DeviceSelection {
  if (text.trim() === 'all') return 'all';
  const list = text.split(',').map((s) => Number(s.trim()));
  if (list.length === 0 || list.some((n) => !Number.isSafeInteger(n) || n < 0))
    throw new MyriadError('INVALID_ARGUMENT', `expected 'all' or a comma-separated list of device ordinals, got '${text}'`, '--devices');
  return list;
}

const contexts = new Map<string, MultiDeviceContext>();

/**
 * A context spanning the selected GPUs, one per selection per process (like one-GPU contexts).
 * `options.weights`, when given, replaces the weights of that shared context.
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
  } else if (options.weights) {
    ctx.weights = options.weights;
  }
  return ctx;
}
