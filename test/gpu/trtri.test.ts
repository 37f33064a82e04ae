/**
 * Batched trtri on a real GPU (skipped where none is usable) against the CPU reference
 * (src/cpu/lapack/inverse.ts) on fresh well-conditioned triangles: both uplo x diag, n = 1..40
 * (sampled; the register leaf), 47, 64, 100, 127, 128, 200, 256, 300, 512 (the recursion: every
 * leaf in one launch, the off-diagonal blocks by trmm), both precisions, odd ld, gaps and offset,
 * list and variable batches, and singular triangles (an exact zero at a chosen diagonal position)
 * in batches of good ones: info as LAPACK, the singular matrix untouched, the others right.
 * Everything a call must not touch is NaN and checked bit for bit (helpers/inverse-data.ts).
 */
import { test } from 'node:test';

import type { DType } from '../../src/core/dtype.js';
import { cpuTrtri } from '../../src/cpu/lapack/index.js';
import { trtriCuda } from '../../src/cuda/kernels/trtri/index.js';
import { gpu, gpuSkipReason } from '../helpers/gpu.js';
import { checkInverse, uniformCase, type InverseCase } from '../helpers/inverse-data.js';
import { Rng } from '../helpers/random.js';

const skip = gpuSkipReason();
const DTYPES: DType[] = ['float64', 'float32'];
const VARIANTS = [['lower', 'nonunit'], ['lower', 'unit'], ['upper', 'nonunit'], ['upper', 'unit']] as const;
const SMALL = [1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 23, 31, 32, 33, 40];
const LARGE = [47, 64, 100, 127, 128, 200, 256, 300, 512];

function run(c: InverseCase, rng: Rng, what: string, force?: number): void {
  checkInverse(gpu(), rng, c,
    (r) => cpuTrtri(r),
    (r) => trtriCuda(gpu(), r, force === undefined ? {} : { force: { leafMax: force } }),
    `trtri ${c.dtype} ${c.uplo} ${c.diag} ${what}`);
}

test('trtri, both uplo x diag, n = 1..40 sampled and 47 ... 512, both precisions', { skip, timeout: 300_000 }, () => {
  const rng = new Rng(1301);
  for (const dtype of DTYPES) for (const [uplo, diag] of VARIANTS) {
    for (const n of [...SMALL, ...LARGE]) {
      const count = n >= 256 ? 2 : n > 32 ? 3 : 37;
      run(uniformCase({ dtype, uplo, diag, content: 'triangle', form: 'strided', n, count }), rng, `n=${n} count=${count}`);
    }
  }
});

test('trtri: singular triangles in batches of good ones (leaf and recursion): LAPACK info, untouched, neighbours right', { skip, timeout: 180_000 }, () => {
  const rng = new Rng(1302);
  for (const dtype of DTYPES) for (const uplo of ['lower', 'upper'] as const) {
    for (const n of [1, 5, 32, 33, 100, 300]) {
      const failures = [{ matrix: 1, at: Math.floor(n / 2), value: 0 }, { matrix: 3, at: n - 1, value: 0 }, { matrix: 3, at: n > 1 ? n - 2 : 0, value: 0 }];
      run(uniformCase({ dtype, uplo, diag: 'nonunit', content: 'triangle', form: 'strided', n, count: 5, failures }), rng, `n=${n} singular #1, #3`);
      // Every matrix singular: nothing to do past the scan.
      run(uniformCase({ dtype, uplo, diag: 'nonunit', content: 'triangle', form: 'strided', n, count: 2, failures: [{ matrix: 0, at: 0, value: 0 }, { matrix: 1, at: n - 1, value: 0 }] }), rng, `n=${n} all singular`);
      // diag 'unit' never reads the diagonal: no failure.
      run(uniformCase({ dtype, uplo, diag: 'unit', content: 'triangle', form: 'strided', n, count: 3 }), rng, `n=${n} unit`);
    }
  }
});

test('trtri on list and variable batches (groups by size, pointer arrays, zero sizes, singular members); forced small leaves', { skip, timeout: 180_000 }, () => {
  const rng = new Rng(1303);
  for (const dtype of DTYPES) for (const [uplo, diag] of VARIANTS) {
    const failures = diag === 'nonunit' ? [{ matrix: 2, at: 3, value: 0 }] : [];
    run({ dtype, uplo, diag, content: 'triangle', form: 'variable', sizes: [5, 40, 7, 0, 1, 100, 5, 33, 5, 70], failures }, rng, 'variable');
    run(uniformCase({ dtype, uplo, diag, content: 'triangle', form: 'list', n: 70, count: 4, failures }), rng, 'list n=70');
    run(uniformCase({ dtype, uplo, diag, content: 'triangle', form: 'list', n: 9, count: 4, failures }), rng, 'list n=9');
    run(uniformCase({ dtype, uplo, diag, content: 'triangle', form: 'strided', n: 47, count: 3, failures }), rng, 'n=47 leaves of 4', 4);
  }
});
