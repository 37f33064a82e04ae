/**
 * The README's examples on GPUs: the first takes the CUDA path of `open()` (device-resident
 * posv), the second on host arrays (the async host path), the fourth prepared and captured calls,
 * the third needs two GPUs. Every printed value (captured whole) is compared with the CPU
 * backend's (test/helpers/readme-checks.ts). Skips with one line where no GPU exists.
 */
import { describe, it } from 'node:test';
import { probeCuda } from '../../src/cuda/runtime/index.js';
import { gpuSkipReason } from '../helpers/gpu.js';
import { checkExample1, checkExample2, checkExample3, checkExample4 } from '../helpers/readme-checks.js';
import { runExample } from '../helpers/readme-run.js';

const probe = probeCuda();
const gpus = probe.usable ? probe.devices.length : 0;
const skip = gpuSkipReason();
const skip2 = skip ?? (gpus < 2 ? `needs 2 GPUs; this machine has ${gpus}` : undefined);
describe('README examples on GPUs: printed values against the CPU backend', () => {
  it('the first example on the CUDA backend (its device-resident branch included)', { skip }, () => {
    checkExample1(runExample(1), 'required');
  });
  it('the host-path example (async posv on host arrays) on the CUDA backend', { skip }, () => {
    checkExample2(runExample(2));
  });
  it('the prepared and captured calls example', { skip }, () => {
    checkExample4(runExample(4));
  });
  it('the multi-GPU example', { skip: skip2 }, () => {
    checkExample3(runExample(3));
  });
});
