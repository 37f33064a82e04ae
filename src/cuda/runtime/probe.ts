/**
 * probeCuda(): can this process use the CUDA backend, and on which devices? Never throws:
 * `open({backend: 'auto'})` and `myriad info` show its one-line reason as is.
 */
import { cudaRuntime, unusableReason } from './runtime.js';
import { readDeviceInfo } from './device-info.js';
import type { DeviceInfo } from './types.js';

export type CudaProbe =
  | {
      readonly usable: true;
      readonly devices: readonly DeviceInfo[];
      /** 'major.minor' CUDA version of the driver. */
      readonly driverVersion: string;
      readonly nvrtcVersion: string;
      /** Where the libraries were found. */
      readonly libcuda: string;
      readonly libnvrtc: string;
    }
  | { readonly usable: false; readonly reason: string };

export function probeCuda(): CudaProbe {
  try {
    const rt = cudaRuntime();
    if (rt.deviceCount === 0) return { usable: false, reason: 'no CUDA device (cuDeviceGetCount returned 0)' };
    const devices: DeviceInfo[] = [];
    for (let i = 0; i < rt.deviceCount; i++) devices.push(readDeviceInfo(rt.api, i));
    const nvrtc = rt.compiler();
    return { usable: true, devices, driverVersion: rt.driverVersion, nvrtcVersion: nvrtc.version, libcuda: rt.api.path, libnvrtc: nvrtc.path };
  } catch (e) {
    return { usable: false, reason: unusableReason(e) };
  }
}
