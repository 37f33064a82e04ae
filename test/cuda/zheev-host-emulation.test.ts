/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the complex heev kernels (zjacobi/,
 * complex128 and complex64, lower and upper, with and without vectors) as the launcher plans and
 * launches them, run on the host against the complex reference (test/helpers/zheev-host-emulation.ts
 * says how and what is checked), n = 1 ... 32, strided and list batches. The rows design forced:
 * test/cuda/zheev-rows-host-emulation.test.ts. A check of the CUDA source without a GPU;
 * test/gpu/zheev.test.ts is the real one.
 */
import { describeHeevHostEmulation, type Case } from '../helpers/zheev-host-emulation.js';

function cases(): Case[] {
  const out: Case[] = [];
  let i = 0;
  for (const dtype of ['float64', 'float32'] as const) for (const n of [1, 2, 3, 5, 8, 13, 16, 31, 32]) for (const vectors of [true, false]) {
    out.push({ dtype, n, uplo: i % 2 === 0 ? 'lower' : 'upper', vectors, form: (i >> 1) % 2 === 0 ? 'strided' : 'list' });
    i++;
  }
  return out;
}

describeHeevHostEmulation('complex heev kernel runs on the host', cases(), 0);
