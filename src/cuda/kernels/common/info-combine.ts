/**
 * The recursive Cholesky's info (the real family's large path, the complex family's recursion): a leaf factors a diagonal block whose first column is column
 * `offset` of the matrix and reports failures 1-based within the block, into a scratch array.
 * This kernel keeps each matrix's first failure: info[i] = offset + scratch[i] where info[i] is
 * still 0 (LAPACK's info: the order of the leading minor that is not positive definite).
 */
import { arg, type DeviceArray, type GpuDevice, type KernelSource } from '../../runtime/types.js';
import { kernelFor } from './kernel-cache.js';

export function infoCombineSource(): KernelSource {
  const entry = 'potrf_info_combine';
  const source = `extern "C" __global__ void ${entry}(int* __restrict__ info, const int* __restrict__ scratch, int count, int offset) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count && info[i] == 0 && scratch[i] > 0) info[i] = offset + scratch[i];
}
`;
  return { name: `${entry}.cu`, source, entry };
}

/** The combine kernel has no parameters: one memo key object. */
const COMBINE_KEY = {};

/** info[i] := offset + scratch[i] where info[i] is 0 and scratch[i] > 0, for the `count` matrices of a batch. */
export function combineInfo(dev: GpuDevice, info: DeviceArray, scratch: DeviceArray, count: number, offset: number): void {
  if (count === 0) return;
  const combine = kernelFor(dev, 'potrf-info-combine', COMBINE_KEY, infoCombineSource);
  combine.launch({ grid: [Math.ceil(count / 256), 1, 1], block: [256, 1, 1] }, [arg.ptr(info), arg.ptr(scratch), arg.i32(count), arg.i32(offset)]);
}
