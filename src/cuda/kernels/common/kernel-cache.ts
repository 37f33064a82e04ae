/**
 * Per-device memo of loaded kernels by generator parameters, so a hot launcher neither regenerates
 * source nor re-hashes it. The runtime's own cache (keyed by a hash of the source) stays the
 * authority; this only skips the work of asking it. Every family uses this one memo; its keys are
 * `<family design>/<JSON of the generator parameters>` (distinct per family, complete per kernel).
 *
 * The hot path does not even serialise: `kernelFor` first looks the parameter object itself up
 * (launchers get the same object back from `plannedOnce` for a repeated problem), and only a
 * parameter object not seen before is serialised into the key above. `plannedOnce` memoises a
 * pure planner's answer per device under a short key the launcher builds from its problem.
 */
import type { GpuDevice, Kernel, KernelSource } from '../../runtime/types.js';

const loaded = new WeakMap<GpuDevice, Map<string, Kernel>>();
const byParams = new WeakMap<GpuDevice, WeakMap<object, Map<string, Kernel>>>();
const plans = new WeakMap<GpuDevice, Map<string, unknown>>();

/** Plans kept per device before the memo starts afresh (a bound, never reached by real programs). */
const PLAN_MEMO_LIMIT = 4096;

export function cachedKernel(dev: GpuDevice, key: string, generate: () => KernelSource): Kernel {
  let perDevice = loaded.get(dev);
  if (perDevice === undefined) {
    perDevice = new Map();
    loaded.set(dev, perDevice);
  }
  let k = perDevice.get(key);
  if (k === undefined) {
    k = dev.kernel(generate());
    perDevice.set(key, k);
  }
  return k;
}

/** `cachedKernel(dev, `${design}/${JSON.stringify(params)}`, generate)`, found by the identity of `params` once seen. */
export function kernelFor(dev: GpuDevice, design: string, params: object, generate: () => KernelSource): Kernel {
  let perDevice = byParams.get(dev);
  if (perDevice === undefined) byParams.set(dev, (perDevice = new WeakMap()));
  let byDesign = perDevice.get(params);
  if (byDesign === undefined) perDevice.set(params, (byDesign = new Map()));
  let k = byDesign.get(design);
  if (k === undefined) {
    k = cachedKernel(dev, `${design}/${JSON.stringify(params)}`, generate);
    byDesign.set(design, k);
  }
  return k;
}

/** The planner's answer for `key` on `dev`, computed once (`plan` must be pure in what `key` names). */
export function plannedOnce<P>(dev: GpuDevice, key: string, plan: () => P): P {
  let perDevice = plans.get(dev);
  if (perDevice === undefined) plans.set(dev, (perDevice = new Map()));
  let p = perDevice.get(key) as P | undefined;
  if (p === undefined) {
    p = plan();
    if (perDevice.size >= PLAN_MEMO_LIMIT) perDevice.clear();
    perDevice.set(key, p);
  }
  return p;
}
