/** Which GPUs a multi-device context spans: the selection, checked, and its CLI form. */
import { MyriadError } from '../../core/errors.js';

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
