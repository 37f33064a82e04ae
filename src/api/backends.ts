/** Which backends this machine can use, and why not (for open() and `myriad info`). */
import { parseEnumValue } from '../core/enums.js';
import { MyriadError } from '../core/errors.js';
import type { Context } from './context.js';

export type BackendChoice = 'cpu' | 'cuda' | 'auto';
export const parseBackendName = (v: unknown): BackendChoice => parseEnumValue(v, ['cpu', 'cuda', 'auto'] as const, 'backend');

export interface BackendStatus { usable: boolean; reason?: string; detail?: string }

export function probeBackends(): { cpu: BackendStatus; cuda: BackendStatus } {
  return { cpu: { usable: true, detail: 'TypeScript reference backend' }, cuda: { usable: false, reason: 'the CUDA backend is not built yet' } };
}

export function openCudaContext(_device: number): Context {
  throw new MyriadError('BACKEND_UNAVAILABLE', 'the CUDA backend is not built yet', 'backend');
}
