/**
 * ctx.capture() over several GPUs: one CUDA graph per lane. Stream capture is per stream, so the
 * lanes' captures are nested: lane 0 begins recording its stream, then lane 1 inside it, and so on;
 * the pipeline runs once in the innermost (each lane's share enqueued on its own stream, recorded
 * there), and the captures end from the inside out. A replay launches the lanes' graphs in lane
 * order: one cuGraphLaunch a GPU instead of every kernel of the call, which is what a short
 * replayed call spends its host time on when it is spread over several GPUs.
 */
import { MyriadError } from '../../core/errors.js';
import type { OpName } from '../../core/ops.js';
import type { DeviceGraph } from '../runtime/types.js';
import type { Lane } from './lane.js';

/** Whether every lane can record: its device captures and its backend says which operations can be recorded. */
export function lanesCapture(lanes: readonly Lane[]): boolean {
  return lanes.every((l) => l.device.capture !== undefined && l.backend.capturable !== undefined);
}

/** Whether every lane can record `op`'s work. */
export function lanesCapturable(lanes: readonly Lane[], op: OpName): boolean {
  return lanes.every((l) => l.backend.capturable?.(op) === true);
}

/** Runs `fn` inside every lane backend's capture scope (only routes a graph can record, on every lane). */
export function inLaneScopes<T>(lanes: readonly Lane[], fn: () => T): T {
  const nest = (k: number): T => {
    const backend = lanes[k]?.backend;
    if (backend === undefined) return fn();
    return backend.captureScope ? backend.captureScope(() => nest(k + 1)) : nest(k + 1);
  };
  return nest(0);
}

/** Records what `fn` enqueues on every lane's stream, one graph a lane; nothing runs now. */
export function captureLanes(lanes: readonly Lane[], fn: () => void): DeviceGraph {
  const graphs: DeviceGraph[] = new Array<DeviceGraph>(lanes.length);
  const nest = (k: number): void => {
    if (k === lanes.length) {
      fn();
      return;
    }
    const device = lanes[k]!.device;
    if (device.capture === undefined) throw new MyriadError('UNSUPPORTED', `${device.info.name} (GPU ${device.info.ordinal}) cannot record a capture`, 'capture');
    graphs[k] = device.capture(() => nest(k + 1));
  };
  try {
    nest(0);
  } catch (e) {
    // The inner lanes' captures may have ended before an outer one failed: free what they recorded.
    for (const g of graphs) g?.dispose();
    throw e;
  }
  let live = true;
  return {
    launch: () => {
      if (!live) throw new MyriadError('DISPOSED', 'captured graph used after dispose()');
      for (const g of graphs) g.launch();
    },
    dispose: () => {
      if (!live) return;
      live = false;
      for (const g of graphs) g.dispose();
    },
  };
}
