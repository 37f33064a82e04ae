/**
 * Per-matrix integers (info, pivots) between a batch's places and a launch group's: a group of
 * matrices gathered from a batch (the members of one shape, as a list batch) reads and writes its
 * own compact arrays, q = 0 .. count - 1 with `width` entries each; `index[q]` is the matrix's
 * place in the batch. Scatter: batch[index[q] * batchStride + j] := group[q * groupStride + j];
 * gather: the other way. A thread per entry.
 */
import { arg, type DeviceArray, type GpuDevice, type KernelSource } from '../../runtime/types.js';
import { cachedKernel } from './kernel-cache.js';

export function intMoveSource(): KernelSource {
  const entry = 'int_move';
  const source = `extern "C" __global__ void ${entry}(int* __restrict__ batch, int* __restrict__ group, const int* __restrict__ index,
    int count, int width, long long batchStride, long long groupStride, int gather) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (long long)count * width) return;
  const long long q = t / width, j = t - q * width;
  int* b = batch + (long long)index[q] * batchStride + j;
  int* g = group + q * groupStride + j;
  if (gather) *g = *b; else *b = *g;
}
`;
  return { name: `${entry}.cu`, source, entry };
}

/** One direction of a move between a batch's places and a group's compact array. */
export interface IntMove {
  /** The batch's array and the distance between its matrices' entries. */
  readonly batch: DeviceArray;
  readonly batchStride: number;
  /** The group's array and the distance between its matrices' entries. */
  readonly group: DeviceArray;
  readonly groupStride: number;
  /** The group's places in the batch (int32, `count` entries). */
  readonly index: DeviceArray;
  readonly count: number;
  /** Entries per matrix moved (info: 1; pivots: min(m, n) of the group). */
  readonly width: number;
}

function launch(dev: GpuDevice, m: IntMove, gather: boolean): void {
  const total = m.count * m.width;
  if (total === 0) return;
  const k = cachedKernel(dev, 'int_move', intMoveSource);
  k.launch({ grid: [Math.ceil(total / 256), 1, 1], block: [256, 1, 1] }, [
    arg.ptr(m.batch), arg.ptr(m.group), arg.ptr(m.index), arg.i32(m.count), arg.i32(m.width),
    arg.i64(m.batchStride), arg.i64(m.groupStride), arg.i32(gather ? 1 : 0),
  ]);
}

/** batch[index[q] * batchStride + j] := group[q * groupStride + j] (a group's results to the batch's places). */
export function scatterInts(dev: GpuDevice, m: IntMove): void {
  launch(dev, m, false);
}

/** group[q * groupStride + j] := batch[index[q] * batchStride + j] (a group's inputs from the batch's places). */
export function gatherInts(dev: GpuDevice, m: IntMove): void {
  launch(dev, m, true);
}
