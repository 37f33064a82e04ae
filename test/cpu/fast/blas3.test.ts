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
        // Up to 20 (the kernels and the first fallback sizes) every variant meets every batch kind
        // and every alpha at every size, the two paired in a Latin square (kind k with alpha
        // k + variant + size, mod 3: a batch kind only changes how matrices reach the kernel, alpha
        // only what it computes, and alpha 0 never reaches a kernel); B's other dimension (narrow,
        // or wider than the triangle) alternates within it, so each (variant, size) meets both and,
        // the square shifting with the size, every (variant, kind, alpha, other) runs every sixth
        // size. Above 20, one variant and alpha in turn, with every kind.
        for (const s of SIZES) KINDS.forEach((kind, k) => {
          const variants = s <= 20 ? TRIANGULAR_VARIANTS : [TRIANGULAR_VARIANTS[s % TRIANGULAR_VARIANTS.length]!];
          const others = s <= 20 ? [1 + ((s * 7) % 5), s + 3] : [3];
          variants.forEach((v, t) => {
            const turn = k + t + s;
            const alpha = s <= 20 ? ALPHAS[turn % 3]! : ALPHAS[(s + t) % 3]!;
            const other = others[turn % others.length]!;
            conform(serialKernels, triangularCase(op, kind, dtype, s, other, v, alpha), s * 1000 + t * 10 + other, dtype);
          });
        });
      });
    }
    test(`syrk ${dtype}`, () => {
      // every alpha and beta up to 20, where the inner dimension (1 or n + 2) takes turns: each
      // (size, kind, uplo, trans) meets both, as does each (size, pair, uplo, trans); above (the
      // blocked syrk, where alpha and beta only scale), one pair in turn, both inner dimensions
      for (const n of SYRK_SIZES) KINDS.forEach((kind, c) => (['lower', 'upper'] as const).forEach((uplo, u) =>
        (['N', 'T'] as const).forEach((trans, t) => {
          const pairs = n <= 20 ? SYRK_SCALARS : [SYRK_SCALARS[(n + c) % SYRK_SCALARS.length]!];
          pairs.forEach(([alpha, beta], p) => {
            const inner = n <= 20 ? [[1, n + 2][(n + c + u + t + p) % 2]!] : [1, n + 2];
            for (const k of inner) conform(serialKernels, syrkCase(kind, dtype, n, k, uplo, trans, alpha, beta), n * 100 + k, dtype);
          });
        })));
    });
    test(`trtri, lauum, potri ${dtype}`, () => {
      // every batch kind up to 40 (the kernels and the first levels of the recursion); above, one in turn
      for (const n of SIZES) for (const kind of n <= 40 ? KINDS : [KINDS[SIZES.indexOf(n) % KINDS.length]!]) for (const uplo of ['lower', 'upper'] as const) {
        for (const diag of ['nonunit', 'unit'] as const) conform(serialKernels, inverseCase('trtri', kind, dtype, n, uplo, diag), n, dtype);
        conform(serialKernels, inverseCase('lauum', kind, dtype, n, uplo), n, dtype);
        conform(serialKernels, inverseCase('potri', kind, dtype, n, uplo), n, dtype);
      }
    });
  }
});
