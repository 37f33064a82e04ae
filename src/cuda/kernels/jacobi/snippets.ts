/**
 * CUDA text the Jacobi designs share: the warp design (generate-warp.ts, a lane group per matrix,
 * __syncwarp), the block design (generate-block.ts, a block per matrix, __syncthreads) and, for the
 * constants, the per-thread design (generate-thread.ts). Each builder returns whole lines; where
 * the designs differ only in a guard (`active && ...` in the warp design, whose lane groups may
 * hold no matrix), a leading dimension's name or the indentation, the caller passes it.
 */
import type { DType } from '../../../core/dtype.js';
import { byPrecision, cudaMath } from '../../../core/dtype-table.js';
import type { Uplo } from '../../../core/enums.js';
import { kindTag, matrixPointer, type OperandKind } from '../common/batch-pointer.js';
import { identityOrder, jacobiConstants, PAIR_OF } from '../common/jacobi-rotation.js';
import { mathHelpers, precisionLetter, precisionPrelude } from '../common/precision.js';
import type { GesvdKernel, SyevKernel } from './params.js';

export { jacobiConstants, PAIR_OF };

/** `text` with every line but empty ones indented by `by` more spaces. */
const indent = (text: string, by: number): string => text.split('\n').map((line) => (line === '' ? line : ' '.repeat(by) + line)).join('\n');

/** The start of every Jacobi kernel: the precision prelude, the math helpers and jacobiConstants. */
export function jacobiPrelude(dtype: DType): string {
  return `${precisionPrelude(dtype)}
${mathHelpers(dtype)}
${jacobiConstants(dtype)}`;
}

/** The problem's part of a syev entry name (precision, operand form, n, uplo, vectors); the design adds its own. */
export const syevTag = (p: SyevKernel): string =>
  `${precisionLetter(p.dtype)}_${kindTag(p.kind)}_n${p.n}_${p.uplo === 'lower' ? 'l' : 'u'}${p.vectors ? 'v' : 'n'}`;

/** The problem's part of a gesvd entry name (precision, operand form, m x n, which vectors). */
export const gesvdTag = (p: GesvdKernel): string =>
  `${precisionLetter(p.dtype)}_${kindTag(p.kind)}_${p.m}x${p.n}_${p.wantU ? 'u' : 'n'}${p.wantVt ? 'v' : 'n'}`;

/** syev's sizes: N, N2 (N rounded up to even: a zero dummy index for odd N) and HALF pairs a round. */
export function syevDims(n: number): string {
  return `constexpr int N = ${n};
constexpr int N2 = N + (N & 1);
constexpr int HALF = N2 / 2;`;
}

/** gesvd's sizes: G is M x K (A for m >= n, A^T otherwise), N2 its column count rounded up to even. */
export function gesvdDims(m: number, n: number): string {
  return `constexpr int M = ${Math.max(m, n)};
constexpr int K = ${Math.min(m, n)};
constexpr int N2 = K + (K & 1);
constexpr int HALF = N2 / 2;`;
}

/** gesvd's scaling range (see gesvdScale). */
export function gesvdRange(dtype: DType): string {
  return `// Squares of entries of magnitude in [2^-RANGE, 2^RANGE] (after scaling) stay normal and finite.
constexpr int RANGE = ${byPrecision(dtype, { double: 500, single: 40 })};`;
}

/**
 * The reference's rotation test and cot(2 theta) of the two-sided (syev) and one-sided (gesvd)
 * methods; `block`: the names of the symmetric 2 x 2 block [p r; r q] whose off-diagonal the rotation zeroes.
 */
export const SYEV_TEST = {
  rotates: 'apq != real(0) && absReal(apq) > tol * sqrtReal(absReal(app)) * sqrtReal(absReal(aqq))',
  zeta: '(aqq - app) / (real(2) * apq)',
  block: ['app', 'aqq', 'apq'],
} as const;
export const GESVD_TEST = {
  rotates: 'gamma != real(0) && absReal(gamma) > tol * sqrtReal(alpha) * sqrtReal(beta)',
  zeta: '(beta - alpha) / (real(2) * gamma)',
  block: ['alpha', 'beta', 'gamma'],
} as const;

/** What a pair rotation's test gives pairRotation. */
export interface PairTest {
  readonly rotates: string;
  readonly zeta: string;
  readonly block: readonly [string, string, string];
}

/**
 * How pairRotation finds (c, s): from t = tangent(zeta) with c = 1 / sqrt(1 + t^2) by a division
 * and a square root (correctly rounded each: 'divide') or by the reciprocal square root ('rsqrt');
 * or by half-angle formulas on the block, two reciprocal square roots and no division
 * ('halfAngle': common/rotation.ts, halfAngleRotation, which the kernel must include).
 */
export type PairAngle = 'divide' | 'rsqrt' | 'halfAngle';

/**
 * One pair's (c, s), identity unless `test` says it rotates: then also the lines `onRotate` (the
 * 2 x 2 block's exact result in syev, from t = s / c) and `rotated = 1`; then the lines `stores`.
 * Indented `by`. `angle` (PairAngle): the reciprocal square roots are for the rows design, where
 * the rotation's latency is on every round's critical path.
 */
export function pairRotation(by: number, test: PairTest, onRotate: readonly string[], stores: readonly string[],
  angle: PairAngle = 'divide'): string {
  const [p, q, r] = test.block;
  const rotation = angle === 'halfAngle'
    ? `  real t;
  halfAngle(${p}, ${q}, ${r}, c, s, t);`
    : `  const real t = tangent(${test.zeta});
  c = ${angle === 'divide' ? 'real(1) / sqrtReal(real(1) + t * t)' : 'rsqrtReal(real(1) + t * t)'};
  s = t * c;`;
  return indent(`real c = real(1), s = real(0);
if (${test.rotates}) {
${rotation}
${onRotate.map((line) => `  ${line}\n`).join('')}  rotated = 1;
}
${stores.join('\n')}`, by);
}

/** syev's load: the `uplo` triangle of A mirrored into a (leading dimension `ldA`), V := I; a bad entry sets `bad`. */
export function syevLoad(by: number, uplo: Uplo, vectors: boolean, ldA: string, ldV: string): string {
  return indent(`for (int idx = tid; idx < N2 * N2; idx += T) {
  const int i = idx % N2, j = idx / N2;
  real x = real(0);
  if (i < N && j < N) x = (${uplo === 'lower' ? 'i >= j' : 'i <= j'}) ? g[i + (long long)j * ldA] : g[j + (long long)i * ldA];
  if (!(absReal(x) <= MAXR)) bad = 1;
  a[i + j * ${ldA}] = x;
${vectors ? `  v[i + j * ${ldV}] = i == j ? real(1) : real(0);\n` : '\n'}}`, by);
}

/** gesvd's load: G from A (`tall`) or A^T, zero columns past K; `amax` its largest magnitude, a bad entry sets `bad`. */
export function gesvdLoad(by: number, tall: boolean): string {
  return indent(`for (int idx = tid; idx < M * N2; idx += T) {
  const int i = idx % M, j = idx / M;
  real x = real(0);
  if (j < K) x = ga[${tall ? 'i + (long long)j * ldA' : 'j + (long long)i * ldA'}];
  if (!(absReal(x) <= MAXR)) bad = 1;
  else amax = amax > absReal(x) ? amax : absReal(x);
  g[idx] = x;
}`, by);
}

/** V := I (N2 x N2, leading dimension LDV). */
export function identityV(by: number): string {
  return indent(`for (int idx = tid; idx < N2 * N2; idx += T) {
  const int i = idx % N2, j = idx / N2;
  v[i + j * LDV] = i == j ? real(1) : real(0);
}`, by);
}

/**
 * gesvd's power-of-two scaling of G by 2^-e (exact), applied where `applies`; `e` is multiplied back
 * into the singular values. `scale(x)`: the statement that scales every element of G (default: the
 * loop over G in shared memory, M x N2 column-major, by the lanes of the matrix).
 */
export function gesvdScale(dtype: DType, applies: string, scale?: (ldexp: string) => string): string {
  const ldexp = cudaMath(dtype, 'ldexp');
  return `  // Scale G by 2^-e where its largest entry lies outside [2^-RANGE, 2^RANGE] (exact).
  int e = 0;
  if (!failed && amax > real(0)) {
    const int lg = ${cudaMath(dtype, 'ilogb')}(amax);
    if (lg > RANGE || lg < -RANGE) e = lg;
  }
  if (${applies})
    ${scale === undefined ? `for (int idx = tid; idx < M * N2; idx += T) g[idx] = ${ldexp}(g[idx], -e);` : scale(ldexp)}`;
}

/** syev's order: perm[rank] = j over the diagonal of a (leading dimension `ld`), ascending, ties by index. */
export function syevSort(guard: string, ld: string, barrier: string): string {
  return `${identityOrder('N', barrier)}
  // Ascending order by rank (ties by index): perm[rank] = j.
  if (${guard}) {
    for (int j = tid; j < N; j += T) {
      const real dj = a[j * (${ld} + 1)];
      int rank = 0;
      for (int k = 0; k < N; ++k) {
        const real dk = a[k * (${ld} + 1)];
        rank += (dk < dj || (dk == dj && k < j)) ? 1 : 0;
      }
      perm[rank] = j;
    }
  }`;
}

/** gesvd's order: perm[rank] = j over sig, descending, ties by index; then G's columns divided by their norms. */
export function gesvdSortNormalise(guard: string, barrier: string): string {
  return `${identityOrder('K', barrier)}
  if (${guard}) {
    for (int j = tid; j < K; j += T) {
      const real sj = sig[j];
      int rank = 0;
      for (int k = 0; k < K; ++k) rank += (sig[k] > sj || (sig[k] == sj && k < j)) ? 1 : 0;
      perm[rank] = j;
    }
    for (int idx = tid; idx < M * K; idx += T) {
      const real sj = sig[idx / M];
      if (sj > real(0)) g[idx] /= sj;
    }
  }`;
}

/**
 * syev's outputs: info, W (a's diagonal in perm's order) and the eigenvectors (V's columns in that
 * order) over A, NaN where A was bad. `declareG`: the pointer g to A is declared here.
 */
export function syevOutputs(kind: OperandKind, vectors: boolean, ldA: string, ldV: string, declareG: boolean, io = 'real'): string {
  return `  if (tid == 0) info[index ? index[mat] : mat] = failed ? N + 2 : (done ? 0 : N + 1);
  ${io}* w = ${matrixPointer('W', kind, 'mat')};
  for (int j = tid; j < N; j += T) w[j] = failed ? nanReal() : a[perm[j] * (${ldA} + 1)];
${vectors ? `${declareG ? `  ${io}* g = ${matrixPointer('A', kind, 'mat')};\n` : ''}  for (int idx = tid; idx < N * N; idx += T) {
    const int i = idx % N, j = idx / N;
    g[i + (long long)j * ldA] = failed ? nanReal() : v[i + perm[j] * ${ldV}];
  }` : ''}`;
}

/**
 * gesvd's outputs: info, S (2^e sig in perm's order), U and VT from G's normalised columns and V
 * as in the CPU reference. `gPad` follows each read of G (the warp design's text has a space
 * there, kept so that its kernels' text, and hashes, stay as they were). `dtype`: the arithmetic's;
 * `io`: the element type of S, U and VT where it is not `real`.
 */
export function gesvdOutputs(p: { readonly dtype: DType; readonly m: number; readonly n: number; readonly wantU: boolean; readonly wantVt: boolean; readonly kind: OperandKind }, gPad: '' | ' ', io = 'real'): string {
  const { dtype, m, n, wantU, wantVt, kind } = p;
  const tall = m >= n;
  const gOut = (row: string, col: string): string => `g[${row} + perm[${col}] * M]${gPad}`;
  return `  if (tid == 0) info[index ? index[mat] : mat] = failed ? K + 2 : (done ? 0 : K + 1);
  ${io}* so = ${matrixPointer('S', kind, 'mat')};
  for (int r = tid; r < K; r += T) so[r] = failed ? nanReal() : ${cudaMath(dtype, 'ldexp')}(sig[perm[r]], e);
${wantU ? `  ${io}* uo = ${matrixPointer('U', kind, 'mat')};
  for (int idx = tid; idx < ${m} * K; idx += T) {
    const int i = idx % ${m}, r = idx / ${m};
    uo[i + (long long)r * ldU] = failed ? nanReal() : ${tall ? gOut('i', 'r') : 'v[i + perm[r] * LDV]'};
  }` : ''}
${wantVt ? `  ${io}* vo = ${matrixPointer('V', kind, 'mat')};
  for (int idx = tid; idx < K * ${n}; idx += T) {
    const int r = idx % K, j = idx / K;
    vo[r + (long long)j * ldV] = failed ? nanReal() : ${tall ? 'v[j + perm[r] * LDV]' : gOut('j', 'r')};
  }` : ''}`;
}
