/**
 * Device-resident calls over several GPUs, enqueued without the host-staging machinery: where every
 * storage of a request is device memory (sharded, or one GPU's) and every batch is strided, each
 * part's request for its lane is written in one pass over the request's fields: a batch moves onto
 * the shard that holds its matrices, an int field (info, ipiv) becomes the shard that begins at
 * the part's first integer. Nothing is copied, no staging call is built, and the only objects made
 * are the lane requests and their batches. Anything else (host arrays, list and variable batches)
 * returns undefined and takes the general path (backend.ts with host/staging.ts).
 */
import type { StridedBatch } from '../../core/batch.js';
import { MyriadError } from '../../core/errors.js';
import { isDeviceStorage, type DeviceStorage } from '../../core/storage.js';
import type { GpuDevice, DeviceArray } from '../runtime/types.js';
import { footprint, INT_FIELDS, intsPerMatrix, isBatch, type Request } from '../host/request.js';
import { isSharded } from './sharded.js';
import type { Part } from './split.js';

/** What the rewriting needs of a lane: its GPU (ordinal, and views of int arrays). */
export interface ResidentLane {
  readonly device: GpuDevice;
}

/**
 * The request of each part on its lane, or undefined where the request is not resident and
 * strided throughout. Throws (before anything is enqueued) where a part's data is not on its GPU.
 */
export function residentRequests(request: Request, parts: readonly Part[], lanes: readonly ResidentLane[]): Request[] | undefined {
  if (!isResidentStrided(request)) return undefined;
  const out: Request[] = new Array<Request>(parts.length);
  for (let k = 0; k < parts.length; k++) {
    const p = parts[k]!;
    out[k] = laneRequest(request, p.start, p.end, lanes[p.lane]!.device);
  }
  return out;
}

/** True when every batch is strided over device memory and every int field is device memory (or absent). */
export function isResidentStrided(request: Request): boolean {
  let batches = 0;
  for (const key in request) {
    const v = request[key];
    if (isBatch(v)) {
      if (v.kind !== 'strided' || !isDeviceStorage(v.data)) return false;
      batches++;
    } else if (v !== undefined && v !== null && INT_FIELDS.includes(key) && !isDeviceStorage(v)) return false;
  }
  return batches > 0;
}

/** Matrices [start, end) of a resident strided request, rewritten onto `device`'s memory. */
function laneRequest(request: Request, start: number, end: number, device: GpuDevice): Request {
  const ordinal = device.info.ordinal;
  const out: Request = {};
  for (const key in request) {
    const v = request[key];
    if (isBatch(v)) out[key] = laneBatch(v as StridedBatch<DeviceStorage>, start, end, ordinal, key);
    else if (v !== undefined && v !== null && INT_FIELDS.includes(key)) {
      const per = intsPerMatrix(request, key);
      out[key] = laneInts(v as DeviceStorage, start * per, end * per, device, key);
    } else out[key] = v;
  }
  return out;
}

function laneBatch(b: StridedBatch<DeviceStorage>, start: number, end: number, ordinal: number, field: string): StridedBatch<DeviceStorage> {
  const offset = b.offset + start * b.stride;
  const count = end - start;
  const s = b.data;
  if (isSharded(s)) {
    const hi = count === 0 ? offset : offset + (count - 1) * b.stride + footprint(b.rows, b.cols, b.ld);
    const shard = s.shardOn(ordinal, offset, hi);
    if (!shard)
      throw new MyriadError('LAYOUT', `elements [${offset}, ${hi}) of a sharded array are not on GPU ${ordinal}, where the other operands of these matrices are`, field);
    return { ...b, data: shard.array, offset: offset - shard.start, count };
  }
  if (s.device !== ordinal) throw new MyriadError('INVALID_ARGUMENT', `device memory of GPU ${s.device} in a part that runs on GPU ${ordinal}`, field);
  return start === 0 && count === b.count ? b : { ...b, offset, count };
}

/** Integers [lo, hi) of an int field on `device`: the shard (or plain array, or a view of it) that begins at `lo`. */
function laneInts(s: DeviceStorage, lo: number, hi: number, device: GpuDevice, field: string): DeviceStorage {
  const ordinal = device.info.ordinal;
  if (isSharded(s)) {
    const shard = s.shardOn(ordinal, lo, hi);
    if (!shard) throw new MyriadError('LAYOUT', `integers [${lo}, ${hi}) of a sharded array are not on GPU ${ordinal}, where their matrices are`, field);
    if (shard.start !== lo)
      throw new MyriadError('LAYOUT', `the integers of these matrices start at element ${lo}, but the memory that holds them on this device starts at element ${shard.start}`, field);
    return shard.array;
  }
  if (s.device !== ordinal) throw new MyriadError('INVALID_ARGUMENT', `device memory of GPU ${s.device} in a part that runs on GPU ${ordinal}`, field);
  return lo === 0 ? s : device.view(s as DeviceArray, lo, hi - lo);
}
