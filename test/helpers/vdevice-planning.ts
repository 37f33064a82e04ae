/**
 * A CUDA context over a device that runs nothing and counts launches, and device-sized batches on
 * it: what the planning-device tests of the device forms (test/cuda/vdevice-*.test.ts) share.
 */
import { Context } from '../../src/api/context.js';
import { LaunchCounter } from '../../src/bench/vbatched.js';
import { variableDevice, type DeviceVariableBatch } from '../../src/core/device-batch.js';
import { CudaBackend } from '../../src/cuda/backend.js';
import { H100 } from './devices.js';

/** A context over a device that runs nothing, counting launches. */
export function planning(): { ctx: Context; dev: LaunchCounter } {
  const dev = new LaunchCounter(H100);
  const backend = new CudaBackend(dev, 'planning');
  return { ctx: new Context('cuda', backend, backend, () => {}), dev };
}

/** `count` square members of at most `maxRows`, their sizes and addresses in (zeroed) device arrays of `ctx`. */
export function deviceBatch(ctx: Context, count: number, maxRows: number, dtype: 'float64' | 'float32' = 'float64'): DeviceVariableBatch {
  return variableDevice({ count, rows: ctx.alloc('int32', count), ld: ctx.alloc('int32', count), pointers: ctx.upload(new BigInt64Array(count)), maxRows, dtype });
}
