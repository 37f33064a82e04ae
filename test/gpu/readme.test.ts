/**
 * The README's examples on GPUs: the first takes the CUDA path of `open()` (device-resident
 * posv), the second on host arrays (the async host path), the third needs two GPUs. Skips with one line where they are missing.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { probeCuda } from '../../src/cuda/runtime/index.js';
import { gpuSkipReason } from '../helpers/gpu.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const probe = probeCuda();
const gpus = probe.usable ? probe.devices.length : 0;
const skip = gpuSkipReason();
const skip2 = skip ?? (gpus < 2 ? `needs 2 GPUs; this machine has ${gpus}` : undefined);
const run = (n: number): string => execFileSync(process.execPath, [join(root, 'dist', 'test', 'readme', `example-${n}.js`)], { encoding: 'utf8' });

describe('README examples on GPUs', () => {
  it('the first example on the CUDA backend', { skip }, () => {
    const out = run(1);
    assert.match(out, /^0 of 100000 matrices not positive definite$/m);
    assert.match(out, /Int32Array\(100000\)/); // the device-resident info, downloaded
  });
  it('the host-path example (async posv on host arrays) on the CUDA backend', { skip }, () => {
    assert.match(run(2), /^1 0\.25 true\n2 0\.0625 true\n3 0\.015625 true$/m);
  });
  it('the prepared and captured calls example', { skip }, () => {
    assert.match(run(4), /^2$/m);
  });
  it('the multi-GPU example', { skip: skip2 }, () => {
    const out = run(3);
    assert.match(out, /Float64Array\(2560000\)/);
    assert.match(out, /Int32Array\(10000\)/);
  });
});
