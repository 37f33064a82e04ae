/** Which backends this machine can use, and why not (for open() and `myriad info`). */
import { parseEnumValue } from '../core/enums.js';
import { CudaBackend } from '../cuda/backend.js';
import { openDevice, probeCuda, type CudaProbe } from '../cuda/runtime/index.js';
import { Context } from './context.js';

export type BackendChoice = 'cpu' | 'reference' | 'cuda' | 'auto';
export const parseBackendName = (v: unknown): BackendChoice => parseEnumValue(v, ['cpu', 'cuda', 'auto', 'reference'] as const, 'backend');

export interface BackendStatus { usable: boolean; reason?: string; detail?: string }

let cudaProbe: CudaProbe | undefined;

/** Probes once per process (the driver does not appear or vanish while we run). */
export function probeBackends(): { cpu: BackendStatus; cuda: BackendStatus } {
  cudaProbe ??= probeCuda();
  const p = cudaProbe;
  const cuda: BackendStatus = p.usable
    ? { usable: true, detail: `${p.devices.length} device(s): ${p.devices.map((d) => `${d.ordinal}: ${d.name} (${d.arch})`).join(', ')}; driver CUDA ${p.driverVersion}, NVRTC ${p.nvrtcVersion}` }
    : { usable: false, reason: p.reason };
  return { cpu: { usable: true, detail: 'generated JavaScript/WebAssembly kernels on every core; reference: the TypeScript reference backend' }, cuda };
}

const cudaContexts = new Map<number, Context>();

/** One context per device ordinal per process (its stream, modules and handles are shared). */
export function openCudaContext(ordinal: number): Context {
  let ctx = cudaContexts.get(ordinal);
  if (!ctx || ctx.disposed) {
    const p = probeCuda();
    const versions = p.usable ? `driver CUDA ${p.driverVersion}, NVRTC ${p.nvrtcVersion}` : '';
    const backend = new CudaBackend(openDevice(ordinal), versions);
    ctx = new Context('cuda', backend, backend);
    cudaContexts.set(ordinal, ctx);
  }
  return ctx;
}
