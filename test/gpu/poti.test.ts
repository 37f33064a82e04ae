/**
 * Batched poti (potrf + trtri + lauum) and potri (trtri + lauum) on a real GPU (skipped where none
 * is usable) against the CPU reference (src/cpu/lapack/inverse.ts): both uplo, both precisions,
 * n = 1..32 (the fused kernel), odd ld, gaps and offset, list and variable batches, matrices that
 * are not positive definite (poti: potrf's info, the matrix as potrf leaves it) and singular
 * factors (potri: trtri's info, untouched) among good ones; above the fused sizes (47 ... 512) the
 * composition through potrf, trtri and lauum.
 */
import { test } from 'node:test';

import type { DType } from '../../src/core/dtype.js';
import { cpuPoti, cpuPotri } from '../../src/cpu/lapack/index.js';
import { potiCuda, potriCuda } from '../../src/cuda/kernels/poti/index.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';
import { checkInverse, uniformCase, type InverseCase } from '../helpers/inverse-data.js';
import { Rng } from '../helpers/random.js';

const skip = gpuSkipReason();
const DTYPES: DType[] = ['float64', 'float32'];
const UPLOS = ['lower', 'upper'] as const;
const SMALL = [1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 23, 31, 32];
const LARGE = [33, 40, 47, 64, 100, 127, 128, 200, 256, 300, 512];

type Stage = 'poti' | 'potri';
const CPU = { poti: cpuPoti, potri: cpuPotri } as const;
const GPU = { poti: potiCuda, potri: potriCuda } as const;

function run(stage: Stage, c: Omit<InverseCase, 'content' | 'diag'>, rng: Rng, what: string): void {
  checkInverse(gpu(), rng, { ...c, diag: 'nonunit', content: stage === 'poti' ? 'spd' : 'triangle' },
    (r) => CPU[stage]({ uplo: r.uplo, a: r.a, info: r.info }),
    (r) => GPU[stage](gpu(), { uplo: r.uplo, a: r.a, info: r.info }),
    `${stage} ${c.dtype} ${c.uplo} ${what}`);
}

/** A failing diagonal for the stage: not positive definite (poti) or an exact zero in the factor (potri). */
const bad = (stage: Stage, matrix: number, at: number) => ({ matrix, at, value: stage === 'poti' ? -1 : 0 });

test('poti and potri, fused sizes n = 1..32: both uplo and precisions, failing matrices among good ones', { skip, timeout: 240_000 }, () => {
  const rng = new Rng(1401);
  for (const stage of ['poti', 'potri'] as const) for (const dtype of DTYPES) for (const uplo of UPLOS) {
    for (const n of SMALL) {
      run(stage, uniformCase({ dtype, uplo, form: 'strided', n, count: 41 }), rng, `n=${n}`);
      run(stage, uniformCase({ dtype, uplo, form: 'strided', n, count: 5, failures: [bad(stage, 1, n >> 1), bad(stage, 4, n - 1)] }), rng, `n=${n} failing #1, #4`);
    }
  }
});

test('poti and potri on list and variable batches of fused sizes', { skip, timeout: 240_000 }, () => {
  const rng = new Rng(1402);
  for (const stage of ['poti', 'potri'] as const) for (const dtype of DTYPES) for (const uplo of UPLOS) {
    run(stage, { dtype, uplo, form: 'variable', sizes: [5, 7, 0, 1, 6, 5, 3], failures: [bad(stage, 1, 3), bad(stage, 6, 0)] }, rng, 'variable');
    run(stage, uniformCase({ dtype, uplo, form: 'list', n: 9, count: 6, failures: [bad(stage, 0, 8)] }), rng, 'list n=9');
  }
});

test('poti and potri above the fused sizes (potrf, trtri, lauum composed)', { skip, timeout: 240_000 }, () => {
  const rng = new Rng(1403);
  for (const stage of ['poti', 'potri'] as const) for (const dtype of DTYPES) for (const uplo of UPLOS) {
    for (const n of LARGE) run(stage, uniformCase({ dtype, uplo, form: 'strided', n, count: n >= 256 ? 2 : 3, failures: n % 2 === 0 ? [bad(stage, 1, n - 5)] : [] }), rng, `n=${n}`);
    run(stage, { dtype, uplo, form: 'variable', sizes: [5, 100, 33, 0, 64, 100], failures: [bad(stage, 1, 50)] }, rng, 'variable');
  }
});

