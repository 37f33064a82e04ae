/** Which backends this machine can use, and why not (for open() and `myriad info`). */
import { parseEnumValue } from '../core/enums.js';
import { CudaBackend } from '../cuda/backend.js';
import { openDevice, prestartCompiles, prestartCompilesIfGpu, probeCuda, type CudaProbe } from '../cuda/runtime/index.js';
import { Context } from './context.js';

export type BackendChoice = 'cpu' | 'reference' | 'cuda' | 'auto';
export const parseBackendName = (v: unknown): BackendChoice => parseEnumValue(v, ['cpu', 'cuda', 'auto', 'reference'] as const, 'backend');

export interface BackendStatus { usable: boolean; reason?: string; detail?: string }

let cudaProbe: CudaProbe | undefined;

/**
 * Probes once per process (the driver does not appear or vanish while we run). `opening`: a
 * context is about to open, so the first probe starts the compile workers as soon as cuInit finds a
 * device (they load NVRTC while the probe and the context's opening go on).
 */
export function probeBackends(how: { opening?: boolean } = {}): { cpu: BackendStatus; cuda: BackendStatus } {
  if (cudaProbe === undefined && how.opening === true) prestartCompilesIfGpu();
  cudaProbe ??= probeCuda();
  const p = cudaProbe;
  const cuda: BackendStatus = p.usable
    ? { usable: true, detail: `${p.devices.length} device(s): ${p.devices.map((d) => `${d.ordinal}: ${d.name} (${d.arch})`).join(', ')}; driver CUDA ${p.driverVersion}, NVRTC ${p.nvrtcVersion}` }
    : { usable: false, reason: p.reason };
  return { cpu: { usable: true, detail: 'generated JavaScript/WebAssembly kernels on every core; reference: the TypeScript reference backend' }, cuda };
}

/** The device state of each opened ordinal (stream, modules, handles) and how many contexts hold it. */
const cudaDevices = new Map<number, { backend: CudaBackend; holders: number }>();

/**
 * A new context on GPU `ordinal`, the caller's own: contexts of one device share its stream and
 * compiled kernels, and the device is released when the last of them is disposed.
 */
export function openCudaContext(ordinal: number): Context {
  let shared = cudaDevices.get(ordinal);
  if (!shared) {
    const p = probeCuda();
    const versions = p.usable ? `driver CUDA ${p.driverVersion}, NVRTC ${p.nvrtcVersion}` : '';
    shared = { backend: new CudaBackend(openDevice(ordinal), versions), holders: 0 };
    cudaDevices.set(ordinal, shared);
    prestartCompiles();
  }
  const device = shared;
  device.holders++;
  return new Context('cuda', device.backend, device.backend, () => {
    if (--device.holders > 0) return;
    cudaDevices.delete(ordinal);
    device.backend.dispose();
  });
}
