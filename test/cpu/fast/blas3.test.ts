/**
 * trsm, trmm, syrk, trtri, lauum and potri of the fast CPU backend against the reference, bit for
 * bit up to the unrolled sizes (within a tolerance above, where the kernels are blocked over
 * gemm, on well-conditioned finite data; infos and the untouched elements still exact): every side x uplo x trans x diag, alpha 0 (B poisoned), 1 and -2.5, rectangular B, beta 0
 * with C poisoned, 1 and other, padded ld, strided/list/variable batches, exact zeros the
 * reference skips, singular triangles (trsm's Inf/NaN, trtri's and potri's info), the other
 * triangle untouched (conform compares every element of every array).
 */
import { describe, test } from 'node:test';
import { serialKernels } from '../../../src/cpu-fast/backend.js';
import type { DType } from '../../../src/core/dtype.js';
import { conform, type Kind } from './harness.js';
import { SIZES } from './cases.js';
import { TRIANGULAR_VARIANTS, inverseCase, syrkCase, triangularCase } from './cases-blas3.js';

const DTYPES: readonly DType[] = ['float64', 'float32'];
const KINDS: readonly Kind[] = ['strided', 'list', 'variable'];
const ALPHAS = [1, -2.5, 0] as const;
const SYRK_SCALARS = [[1, 0], [-2.5, 1], [0.5, -0.75], [0, 0.5], [0, 0]] as const;
const SYRK_SIZES = SIZES.filter((n) => n <= 100);

describe('cpu-fast trsm, trmm, syrk, trtri, lauum, potri match the reference', () => {
  for (const dtype of DTYPES) {
    for (const op of ['trsm', 'trmm'] as const) {
      test(`${op} ${dtype}`, () => {
        // Up to 20 (the kernels and the first fallback sizes) every variant runs at every size, once:
        // its batch kind turns with size + variant and its alpha with size / 3 + variant, so over any
        // nine consecutive sizes each variant meets every (kind, alpha) pair (a batch kind only
        // changes how matrices reach the kernel, alpha only what it computes, and alpha 0 never
        // reaches a kernel); B's other dimension (narrow, or wider than the triangle) alternates, and
        // the two dtypes take the turns one step apart. Above 20, one variant and alpha in turn, with
        // every kind.
        const d = DTYPES.indexOf(dtype);
        for (const s of SIZES) {
          if (s <= 20) TRIANGULAR_VARIANTS.forEach((v, t) => {
            const kind = KINDS[(s + t + d) % 3]!;
            const alpha = ALPHAS[(Math.floor(s / 3) + t) % 3]!;
            const other = [1 + ((s * 7) % 5), s + 3][(s + t + d + Math.floor(s / 9)) % 2]!;
            conform(serialKernels, triangularCase(op, kind, dtype, s, other, v, alpha), s * 1000 + t * 10 + other, dtype);
          });
          else KINDS.forEach((kind) => {
            const t = s % TRIANGULAR_VARIANTS.length;
            conform(serialKernels, triangularCase(op, kind, dtype, s, 3, TRIANGULAR_VARIANTS[t]!, ALPHAS[(s + t) % 3]!), s * 1000 + t * 10 + 3, dtype);
          });
        }
      });
    }
    test(`syrk ${dtype}`, () => {
      // every alpha and beta up to 20, each (size, pair, uplo, trans) once, its batch kind and inner
      // dimension (1 or n + 2) in turn, so each (size, uplo, trans) meets every kind and both inner
      // dimensions; above (the blocked syrk, where alpha and beta only scale), one pair in turn,
      // every kind, both inner dimensions
      for (const n of SYRK_SIZES) (['lower', 'upper'] as const).forEach((uplo, u) => (['N', 'T'] as const).forEach((trans, t) => {
        if (n <= 20) SYRK_SCALARS.forEach(([alpha, beta], p) => {
          const k = [1, n + 2][(n + u + t + p) % 2]!;
          conform(serialKernels, syrkCase(KINDS[(n + u + p) % 3]!, dtype, n, k, uplo, trans, alpha, beta), n * 100 + k, dtype);
        });
        else KINDS.forEach((kind, c) => {
          const [alpha, beta] = SYRK_SCALARS[(n + c) % SYRK_SCALARS.length]!;
          for (const k of [1, n + 2]) conform(serialKernels, syrkCase(kind, dtype, n, k, uplo, trans, alpha, beta), n * 100 + k, dtype);
        });
      }));
    });
    test(`trtri, lauum, potri ${dtype}`, () => {
      // every batch kind up to 20 (the kernels, whose triangle is in locals to 16, and the first level
      // of the recursion); above, one in turn with the triangle
      for (const n of SIZES) for (const kind of n <= 20 ? KINDS : [KINDS[SIZES.indexOf(n) % KINDS.length]!]) for (const uplo of ['lower', 'upper'] as const) {
        for (const diag of ['nonunit', 'unit'] as const) conform(serialKernels, inverseCase('trtri', kind, dtype, n, uplo, diag), n, dtype);
        conform(serialKernels, inverseCase('lauum', kind, dtype, n, uplo), n, dtype);
        conform(serialKernels, inverseCase('potri', kind, dtype, n, uplo), n, dtype);
      }
    });
  }
});
