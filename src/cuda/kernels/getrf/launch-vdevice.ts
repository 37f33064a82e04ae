/**
 * getrf on a variable batch whose sizes and addresses are on the device (common/vdevice.ts):
 * zeroed tables from the device workspace, the classification kernel, then each class of the
 * host-sized path (unchanged kernels) over its region, largest class first (launchGetrfRegions,
 * which gesv's device form shares): the warp and register classes one launch, the blocked classes
 * a panel and an update launch per panel, sized for the class's largest member the maxima allow (a
 * member whose panels are done leaves at once, as on the host-sized path). Nothing is read back.
 *
 * The class kernels write member q's pivots at ipiv + index * pivotStride and its info at
 * info[index], index the row's batch index, i + 1 for member i (common/vdevice.ts: index 0 is
 * the zero rows past a class's members). So info goes through a scratch of count + 1 entries
 * copied to info at the end, and the kernels get ipiv's address less one stride: member i's pivots
 * land at ipiv[i * pivotStride], and the zero rows, which write no pivot (min(m, n) = 0), only
 * form that address.
 */
import type { DeviceVariableGetrfRequest } from '../../../core/device-batch.js';
import type { DType } from '../../../core/dtype.js';
import { MyriadError } from '../../../core/errors.js';
import type { DeviceStorage } from '../../../core/storage.js';
import { tuningFor, type GetrfTuning } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { kernelFor } from '../common/kernel-cache.js';
import { sharedLimit } from '../common/operands.js';
import { deviceRegions, inDeviceFrame, launchFactorClassify, onDevice, takeDeviceTables, type DeviceRegion, type DeviceTables } from '../common/vdevice.js';
import { driverSection } from '../common/driver-section.js';
import { getrfPanelVbatchedSource, getrfUpdateVbatchedSource } from './generate-panel.js';
import { GETRF_VBATCH_INTS } from './generate-vbatched.js';
import { generateGetrfClassify } from './generate-vdevice.js';
import { vbatchedGetrfLaunch, vbatchedGetrfPanelSteps, vbatchedGetrfSource } from './launch-vbatched.js';
import { getrfClassParams, getrfMemberSize } from './plan-vbatched.js';
import type { GetrfVbatchedParams } from './params.js';

export interface GetrfDeviceOptions {
  readonly tuning?: GetrfTuning;
}

/** The classification kernel has no parameters: one memo key object. */
const CLASSIFY_KEY = Object.freeze({});

/** The class designs of a call's launches (a class whose panel fits no block's shared memory is an error naming a.maxRows). */
export function getrfDeviceDesigns(dev: GpuDevice, dtype: DType, launches: readonly DeviceRegion[], tuning: GetrfTuning): GetrfVbatchedParams[] {
  const limit = sharedLimit(dev);
  return launches.map(({ bound }): GetrfVbatchedParams => {
    const c = getrfClassParams(dtype, bound, tuning, limit);
    if (c === undefined) throw new MyriadError('UNSUPPORTED', `members up to ${bound} rows need an LU panel that fits no block's shared memory on this device (${limit} bytes)`, 'a.maxRows');
    return c;
  });
}

/** Where the class kernels write: pivots with their stride, info at each row's batch index (a scratch of count + 1, entry 0 the zero rows' sink). */
export interface GetrfDeviceOutputs {
  readonly ipiv: DeviceArray;
  readonly pivotStride: number;
  readonly work: DeviceArray;
}

/**
 * The class kernels over the regions of device-filled tables (`count` rows a region), largest
 * class first; the blocked classes a panel and an update launch per panel of the class's largest
 * member the maxima allow (`maxRows` x `maxCols` cut to the bound), every launch over the region.
 * gesv on device sizes factors its members here too.
 */
export function launchGetrfRegions(
  dev: GpuDevice, designs: readonly GetrfVbatchedParams[], launches: readonly DeviceRegion[], tables: DeviceTables, out: GetrfDeviceOutputs,
  count: number, maxRows: number, maxCols: number,
): void {
  // Row q's pivots land at ipiv + index * pivotStride, index = i + 1 for member i: the address less one stride.
  const ipiv = BigInt.asIntN(64, out.ipiv.ptr - BigInt(out.pivotStride * 4));
  launches.forEach(({ region, bound }, l) => {
    const c = designs[l]!;
    const at = tables.at(region);
    const member = [arg.ptr(at.pointers), arg.ptr(at.ints)];
    if (c.variant === 'vpanel') {
      const panel = kernelFor(dev, 'getrf-vpanel', c.params, () => getrfPanelVbatchedSource(c.params));
      const update = kernelFor(dev, 'getrf-vupdate', c.params, () => getrfUpdateVbatchedSource(c.params));
      // The steps of the class's largest member the maxima allow, over every row of the region.
      const largest = { rows: Math.min(bound, maxRows), cols: Math.min(bound, maxCols) };
      driverSection(dev, () => {
        for (const st of vbatchedGetrfPanelSteps(c.params, [largest])) {
          panel.launch({ ...st.panel, grid: [count, 1, 1] }, [...member, arg.ptr(ipiv), arg.i32(out.pivotStride), arg.ptr(out.work), arg.i32(count), arg.i32(st.i0)]);
          if (st.update !== null) update.launch({ ...st.update, grid: [count, st.update.grid[1], 1] }, [...member, arg.ptr(ipiv), arg.i32(out.pivotStride), arg.i32(count), arg.i32(st.i0)]);
        }
      });
      return;
    }
    const kernel = kernelFor(dev, `getrf-${c.variant}`, c.params, () => vbatchedGetrfSource(c));
    kernel.launch(vbatchedGetrfLaunch(c, count), [...member, arg.ptr(ipiv), arg.i32(out.pivotStride), arg.ptr(out.work), arg.i32(count)]);
  });
}

export function getrfDeviceVariableCuda(dev: GpuDevice, r: DeviceVariableGetrfRequest, opts: GetrfDeviceOptions = {}): void {
  const { a } = r;
  const count = a.count;
  if (count === 0) return;
  const { launches, regions } = deviceRegions(getrfMemberSize(a.maxRows, a.maxCols));
  const designs = getrfDeviceDesigns(dev, a.dtype, launches, opts.tuning ?? tuningFor(dev.info.arch, 'getrf'));
  inDeviceFrame(dev, (frame) => {
    const tables = takeDeviceTables(dev, frame, regions, count, 1, GETRF_VBATCH_INTS, 'zeroed');
    const work = frame.take('int32', count + 1, 'the device form\'s info scratch');
    const classify = kernelFor(dev, 'getrf-vclassify', CLASSIFY_KEY, generateGetrfClassify);
    launchFactorClassify(classify, a, tables, work);
    launchGetrfRegions(dev, designs, launches, tables, { ipiv: onDevice(r.ipiv as DeviceStorage), pivotStride: r.pivotStride, work }, count, a.maxRows, a.maxCols);
    dev.copy(work, 1, onDevice(r.info as DeviceStorage), 0, count);
  });
}
