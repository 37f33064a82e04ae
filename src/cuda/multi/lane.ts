/**
 * A lane: one GPU of a multi-device backend. Its device holds memory and the stream (CudaDevice:
 * primary context + one stream); its backend enqueues one operation on device-resident data
 * (the single-device CudaBackend, so one device behaves exactly as a plain CUDA context).
 * Tests substitute a host-memory fake for both, which lets the splitting, staging and ordering
 * run without a GPU.
 */
import { MyriadError, type ErrorCode } from '../../core/errors.js';
import type { DeviceBackend } from '../../core/device-backend.js';
import type { Backend, OpName } from '../../core/ops.js';
import type { IntStorage, Storage } from '../../core/storage.js';
import type { GpuDevice } from '../runtime/types.js';

/** A lane's one-GPU backend, with what ctx.capture() asks of it where it can record (CudaBackend can). */
export type LaneBackend = Backend<Storage, IntStorage> & Pick<DeviceBackend, 'captureScope' | 'capturable'>;

export interface Lane {
  readonly device: GpuDevice;
  readonly backend: LaneBackend;
  /** True where `op` has a GPU kernel (else the backend runs it on the CPU reference with copies). */
  hasKernel(op: OpName): boolean;
}

/** One device's failure within a multi-device call. */
export interface LaneFailure {
  readonly ordinal: number;
  readonly name: string;
  readonly error: unknown;
}

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * A failure of one or more GPUs of a multi-device call. The message names each GPU (ordinal and
 * name) and says what became of the outputs; `failures` keeps the original errors, and `code`
 * is the first one's (CUDA for a driver error such as CUDA_ERROR_OUT_OF_MEMORY).
 */
export class DeviceFailure extends MyriadError {
  constructor(readonly failures: readonly LaneFailure[], what: string, readonly outputs: string) {
    const first = failures[0]?.error;
    const code: ErrorCode = first instanceof MyriadError ? first.code : 'CUDA';
    super(code, `${what} failed on ${failures.map((f) => `GPU ${f.ordinal} (${f.name}): ${messageOf(f.error)}`).join('; ')}. ${outputs}`);
  }
  /** The GPU ordinal of the first failure. */
  get ordinal(): number {
    return this.failures[0]!.ordinal;
  }
}

export const failureOf = (lane: Lane, error: unknown): LaneFailure => ({ ordinal: lane.device.info.ordinal, name: lane.device.info.name, error });

/** Runs `fn` on every lane, collecting failures instead of stopping at the first. */
export function onEveryLane(lanes: Iterable<Lane>, fn: (lane: Lane) => void): LaneFailure[] {
  const failures: LaneFailure[] = [];
  for (const lane of lanes) {
    try {
      fn(lane);
    } catch (e) {
      failures.push(failureOf(lane, e));
    }
  }
  return failures;
}
