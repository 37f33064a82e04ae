/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): the complex heev rows design
 * (zjacobi/generate-heev-rows.ts) forced through the launcher, run on the host against the complex
 * reference (test/helpers/zheev-host-emulation.ts says how and what is checked: random, clustered,
 * repeated, diagonal, zero, graded and positive definite matrices and a NaN one in each batch; info,
 * untouched elements, eigenvalues, ||A V - V W|| and ||V^H V - I|| below 30 n eps), n = 9, 16, 17,
 * 24, 31, 32, both dtypes, vectors and values, strided and list batches, lower and upper; with
 * vectors V where the plan keeps it and, at 16, 17 and 24, in the other place (registers or shared
 * memory). test/gpu/zjacobi-rows.test.ts makes the checks on a GPU.
 */
import { planHeevRows, type ZjacobiForce } from '../../src/cuda/kernels/zjacobi/index.js';
import { describeHeevHostEmulation, type Case } from '../helpers/zheev-host-emulation.js';

function cases(): Case[] {
  const out: Case[] = [];
  let i = 0;
  for (const dtype of ['float64', 'float32'] as const) for (const n of [9, 16, 17, 24, 31, 32]) for (const vectors of [true, false]) {
    const at = (force: ZjacobiForce): void => {
      out.push({ dtype, n, uplo: i % 2 === 0 ? 'lower' : 'upper', vectors, form: (i >> 1) % 2 === 0 ? 'strided' : 'list', force });
      i++;
    };
    at({ design: 'rows' });
    if (vectors && (n === 16 || n === 17 || n === 24)) at({ design: 'rows', vShared: !planHeevRows({ dtype, n, uplo: 'lower', vectors, kind: 'strided' }).vShared });
  }
  return out;
}

describeHeevHostEmulation('complex heev rows design runs on the host', cases(), 100);
