/**
 * The matrix kinds of the bidiagonalization gesvd's tests (host emulation and GPU): the Jacobi tests'
 * general kinds and three more that reach its special paths: exact zero columns (rows for m < n: zero
 * singular values, B split), clustered singular values (a cluster near 1 and one near 1e-3), and a
 * diagonal with zeros on it.
 */
import { generalCase, mat, randomMat, withSingularValues, type Mat } from './jacobi-checks.js';
import type { Rng } from './random.js';

export type BidiagKind = 'random' | 'rank-deficient' | 'zero-columns' | 'repeated' | 'clustered' | 'diagonal' | 'graded' | 'zero';
export const BIDIAG_KINDS: readonly BidiagKind[] = ['random', 'rank-deficient', 'zero-columns', 'repeated', 'clustered', 'diagonal', 'graded', 'zero'];

export function bidiagCase(rng: Rng, kind: BidiagKind, m: number, n: number): Mat {
  const k = Math.min(m, n);
  switch (kind) {
    case 'random': case 'rank-deficient': case 'repeated': case 'graded': case 'zero': return generalCase(rng, kind, m, n).a;
    case 'zero-columns': {
      const a = randomMat(rng, m, n);
      for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) if ((m >= n ? j : i) % 3 === 1) a.d[i + j * m] = 0;
      return a;
    }
    case 'clustered': return withSingularValues(rng, m, n, Array.from({ length: k }, (_, i) => (i < k / 2 ? 1 + 1e-12 * i : 1e-3 * (1 + 1e-12 * i))));
    case 'diagonal': {
      const a = mat(m, n);
      for (let i = 0; i < k; i++) a.d[i + i * m] = i % 5 === 2 ? 0 : rng.uniform(-10, 10);
      return a;
    }
  }
}
