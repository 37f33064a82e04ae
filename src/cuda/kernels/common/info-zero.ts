/**
 * info[index[i]] = 0 for the matrices of a group that needs no work (n = 0: LAPACK returns 0).
 */
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { cachedKernel } from './kernel-cache.js';

const SOURCE = `extern "C" __global__ void info_zero(int* __restrict__ info, const int* __restrict__ index, int count) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) info[index ? index[i] : i] = 0;
}
`;

export function zeroInfo(dev: GpuDevice, info: DeviceArray, index: DeviceArray | null, count: number): void {
  if (count === 0) return;
  const k = cachedKernel(dev, 'info_zero', () => ({ name: 'info_zero.cu', source: SOURCE, entry: 'info_zero' }));
  k.launch({ grid: [Math.ceil(count / 256), 1, 1], block: [256, 1, 1] },
    [arg.ptr(info), arg.ptr(index === null ? 0n : index.ptr), arg.i32(count)]);
}
