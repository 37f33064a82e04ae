/**
 * What the host emulations of the device-sized table kernels share (test/cuda/vdevice-*-classify.test.ts):
 * stand-in device arrays, a planning device that records the host launcher's uploaded tables, and
 * the text form of an operand's members that the host harnesses read.
 */
import { PlanningDevice } from '../../src/cuda/runtime/planning-device.js';
import type { DeviceArray, HostArray } from '../../src/cuda/runtime/types.js';

/** Bytes of an element (float64): member addresses are base + offset * BYTES. */
export const BYTES = 8;

/** A device array that holds nothing: only its address matters to the tables. */
export function fakeArray(ptr: bigint): DeviceArray {
  return { kind: 'device', dtype: 'float64', length: 2 ** 45, device: 0, ptr, byteLength: 2 ** 48, disposed: false, dispose: () => {} };
}

/** A planning device that keeps a copy of every host array uploaded (the host launcher's tables). */
export class Recording extends PlanningDevice {
  readonly uploads: HostArray[] = [];
  override upload(host: HostArray, dst?: DeviceArray): DeviceArray {
    this.uploads.push(host.slice());
    return super.upload(host, dst);
  }
}

export interface Stored { rows: number; cols: number; ld: number; offset: number }
export interface Operand { maxRows: number; maxCols: number; members: Stored[]; base: bigint }

/** An operand as the harnesses read it: `1 maxRows maxCols`, then a line a member (rows cols ld address). */
export const operandText = (o: Operand): string =>
  `1 ${o.maxRows} ${o.maxCols}\n${o.members.map((m) => `${m.rows} ${m.cols} ${m.ld} ${o.base + BigInt(m.offset * BYTES)}`).join('\n')}\n`;
