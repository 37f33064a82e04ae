/**
 * potrf on a variable batch whose sizes and addresses are on the device (common/vdevice.ts):
 * zeroed tables from the device workspace, the classification kernel, then each class kernel of the host-sized path
 * (unchanged) over its region, largest class first; info through a scratch of count + 1 entries
 * (entry 0 the sink of the zero rows past a class's members), copied to info at the end. Nothing
 * is read back.
 */
import type { DeviceVariablePotrfRequest } from '../../../core/device-batch.js';
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import { MyriadError } from '../../../core/errors.js';
import type { DeviceStorage } from '../../../core/storage.js';
import { tuningFor, type PotrfTuning } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { kernelFor } from '../common/kernel-cache.js';
import { sharedLimit } from '../common/operands.js';
import { deviceRegions, inDeviceFrame, launchFactorClassify, onDevice, takeDeviceTables, type DeviceRegion, type DeviceTables } from '../common/vdevice.js';
import { POTRF_VBATCH_INTS } from './generate-vbatched.js';
import { generatePotrfClassify } from './generate-vdevice.js';
import { vbatchedPotrfLaunch, vbatchedPotrfSource } from './launch-vbatched.js';
import { potrfClassParams } from './plan-vbatched.js';
import type { PotrfVbatchedParams } from './params.js';

export interface PotrfDeviceOptions {
  readonly tuning?: PotrfTuning;
}

/** The class designs of a call's launches (a class whose panel fits no block's shared memory is an error naming a.maxRows). */
export function potrfDeviceDesigns(dev: GpuDevice, dtype: DType, uplo: Uplo, launches: readonly DeviceRegion[], tuning: PotrfTuning): PotrfVbatchedParams[] {
  const limit = sharedLimit(dev);
  return launches.map(({ bound }) => {
    try {
      return potrfClassParams(dtype, uplo, bound, limit, tuning);
    } catch (e) {
      throw new MyriadError('UNSUPPORTED', `members up to order ${bound} need a Cholesky panel that fits no block's shared memory on this device (${limit} bytes): ${(e as Error).message}`, 'a.maxRows');
    }
  });
}

/**
 * The class kernels over the regions of device-filled tables (`count` rows a region), largest
 * class first, info to `work` at each row's batch index (rows past a class's members are zero:
 * n = 0 at index 0, the sink). posv on device sizes factors its members here too.
 */
export function launchPotrfRegions(dev: GpuDevice, designs: readonly PotrfVbatchedParams[], launches: readonly DeviceRegion[], tables: DeviceTables, work: DeviceArray, count: number): void {
  launches.forEach(({ region }, l) => {
    const c = designs[l]!;
    const kernel = kernelFor(dev, `potrf-${c.variant}`, c.params, () => vbatchedPotrfSource(c));
    const at = tables.at(region);
    kernel.launch(vbatchedPotrfLaunch(c, count), [arg.ptr(at.pointers), arg.ptr(at.ints), arg.ptr(work), arg.i32(count)]);
  });
}

export function potrfDeviceVariableCuda(dev: GpuDevice, r: DeviceVariablePotrfRequest, opts: PotrfDeviceOptions = {}): void {
  const count = r.a.count;
  if (count === 0) return;
  const { launches, regions } = deviceRegions(Math.min(r.a.maxRows, r.a.maxCols));
  const designs = potrfDeviceDesigns(dev, r.a.dtype, r.uplo, launches, opts.tuning ?? tuningFor(dev.info.arch, 'potrf'));
  inDeviceFrame(dev, (frame) => {
    const tables = takeDeviceTables(dev, frame, regions, count, 1, POTRF_VBATCH_INTS, 'zeroed');
    const work = frame.take('int32', count + 1, 'the device form\'s info scratch');
    const classify = kernelFor(dev, 'potrf-vclassify', CLASSIFY_KEY, generatePotrfClassify);
    launchFactorClassify(classify, r.a, tables, work);
    launchPotrfRegions(dev, designs, launches, tables, work, count);
    dev.copy(work, 1, onDevice(r.info as DeviceStorage), 0, count);
  });
}

/** The classification kernel has no parameters: one memo key object. */
const CLASSIFY_KEY = Object.freeze({});
