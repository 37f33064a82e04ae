/**
 * Batched thin SVD for max(m, n) <= 32 on complex data (zgesvd / cgesvd): one-sided (Hestenes)
 * Jacobi on complex columns, the real warp design (jacobi/generate-warp.ts) over `real2` pairs.
 *
 * G is M x K (M = max(m, n), K = min(m, n)): A where m >= n, A^H where m < n (the complex
 * reference's choice, cpu/complex/zgesvd.ts). Layout as the heev kernel's: `threads` lanes per
 * matrix, `perBlock` matrices per block, G and V (pairs) in the matrix's slot of shared memory,
 * __syncwarp the only barrier, the matrices of a warp sweeping until all have converged.
 *
 * A round of the circle tournament over N2 = K rounded up to even columns: one lane per pair forms
 * the Gram block [[alpha, g], [conj(g), beta]] (alpha = ||g_p||^2, beta = ||g_q||^2, g = g_p^H g_q)
 * and, where |g| > sqrt(M) eps sqrt(alpha) sqrt(beta) (the reference's test), the rotation that
 * zeroes g (the Hermitian 2 x 2 rotation of cpu/complex/zrotation.ts, as the heev kernel's); then
 * the lanes rotate the pairs' columns of G and of V. G is scaled by a power of two first where its
 * largest part lies outside [2^-RANGE, 2^RANGE], so the squares stay normal and finite (exact; the
 * singular values are scaled back). 30 sweeps, then the absolute test of common/gesvd-settle.ts (info
 * K + 1 where it fails too, G's columns made orthonormal either way); NaN or Inf in A: info K + 2, S, U
 * and VT NaN.
 *
 * After the sweeps: the singular values are the column norms, in descending order (ties by index);
 * G's columns divided by them are the left vectors (tall: U; wide: V's), and a column for an exact
 * zero singular value is completed as the reference does (the first unit vector that stays longer
 * than 1/2 after two Gram-Schmidt passes against the columns before it, else the one that stays
 * longest; one lane: a rare path). Tall: U = G, VT = V^H; wide: U = V, VT = G^H. No Gram-Schmidt
 * pass over V: the reference makes one only above 32 columns (REORTHOGONALIZE_ABOVE). Launch bounds
 * with a minimum of one block, as the heev kernel's.
 */
import { byPrecision, cudaMath } from '../../../core/dtype-table.js';
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { complexLetter, complexPrelude } from '../common/complex.js';
import { gesvdSettleCalls, gesvdSettleSource } from '../common/gesvd-settle.js';
import { GROUP_MAX, identityOrder, jacobiConstants, PAIR_OF, WARP_SLOT } from '../common/jacobi-rotation.js';
import { elementBytes, mathHelpers, precisionPrelude } from '../common/precision.js';
import type { GesvdWarpParams } from './params.js';
import { pairLoop, rotationHelpers } from './snippets.js';

/** Shared bytes of one block (static shared memory: at most 48 KiB): G and V (pairs), each pair's e, the c / s / sigma buffers, the order. */
export function gesvdWarpSharedBytes(p: Pick<GesvdWarpParams, 'dtype' | 'm' | 'n' | 'perBlock'>): number {
  const big = Math.max(p.m, p.n);
  const k = Math.min(p.m, p.n);
  const k2 = k + (k & 1);
  const el = elementBytes(p.dtype);
  return p.perBlock * ((big * k2 + k2 * (k2 + 1)) * 2 * el + (k2 / 2) * 2 * el + 2 * k2 * el + k2 * 4);
}

/** The kernel's entry name: precision letter (z, c), operand form, m x n, which vectors, then the shape. */
const gesvdWarpEntry = (p: GesvdWarpParams): string =>
  `gesvd_warp_${complexLetter(p.dtype)}_${kindTag(p.kind)}_${p.m}x${p.n}_${p.wantU ? 'u' : 'n'}${p.wantVt ? 'v' : 'n'}_t${p.threads}x${p.perBlock}_s${p.maxSweeps}`;

export function gesvdWarpSource(p: GesvdWarpParams): KernelSource {
  const { dtype, m, n, wantU, wantVt, kind, threads, perBlock, maxSweeps } = p;
  const tall = m >= n;
  const needV = tall ? wantVt : wantU;
  const completes = tall ? wantU : wantVt;
  const entry = gesvdWarpEntry(p);
  const ldexp = cudaMath(dtype, 'ldexp');
  const source = `${precisionPrelude(dtype)}
${mathHelpers(dtype)}
${jacobiConstants(dtype)}
${complexPrelude(dtype)}
${rotationHelpers(dtype)}
constexpr int M = ${Math.max(m, n)};
constexpr int K = ${Math.min(m, n)};
constexpr int N2 = K + (K & 1);
constexpr int HALF = N2 / 2;
constexpr int LDV = N2 + 1;
constexpr int T = ${threads};
constexpr int MPB = ${perBlock};
constexpr int MAX_SWEEPS = ${maxSweeps};
// Squares of parts of magnitude in [2^-RANGE, 2^RANGE] (after scaling) stay normal and finite.
constexpr int RANGE = ${byPrecision(dtype, { double: 500, single: 40 })};
${PAIR_OF}
${gesvdSettleSource(true)}

extern "C" __global__ void __launch_bounds__(${threads * perBlock}, 1) ${entry}(
    ${operandParameters('A', kind, false, 'real2')},
    ${operandParameters('S', kind, true)},
    ${operandParameters('U', kind, true, 'real2')},
    ${operandParameters('V', kind, true, 'real2')},
    int* __restrict__ info, const int* __restrict__ index, int count) {
  __shared__ real2 sG[MPB * M * N2];
  __shared__ real2 sV[MPB * N2 * LDV];
  __shared__ real2 sE[MPB * HALF];
  __shared__ real sC[MPB * N2];
  __shared__ real sS[MPB * N2];
  __shared__ int sP[MPB * N2];
${WARP_SLOT}
  real2* g = sG + slot * (M * N2);
  real2* v = sV + slot * (N2 * LDV);
  real2* ph = sE + slot * HALF;
  real* cs = sC + slot * N2;
  real* sn = sS + slot * N2;
  real* sig = cs;   // after the sweeps
  int* perm = sP + slot * N2;
  const real tol = sqrtReal(real(M)) * EPS;
  int bad = 0;
  real amax = real(0);
  if (active) {
    const real2* ga = ${matrixPointer('A', kind, 'mat')};
    // G: ${tall ? 'A' : 'A^H'}, zero columns past K.
    for (int idx = tid; idx < M * N2; idx += T) {
      const int i = idx % M, j = idx / M;
      real2 x = makeReal2(real(0), real(0));
      if (j < K) {${tall ? ' x = ga[i + (long long)j * ldA];' : ' x = ga[j + (long long)i * ldA]; x.y = -x.y;'} }
      if (!(absReal(x.x) <= MAXR) || !(absReal(x.y) <= MAXR)) bad = 1;
      else {
        const real ax = absReal(x.x) > absReal(x.y) ? absReal(x.x) : absReal(x.y);
        amax = amax > ax ? amax : ax;
      }
      g[idx] = x;
    }
    for (int idx = tid; idx < N2 * N2; idx += T) {
      const int i = idx % N2, j = idx / N2;
      v[i + j * LDV] = makeReal2(i == j ? real(1) : real(0), real(0));
    }
  }
  const bool failed = (__ballot_sync(FULL, bad) & group) != 0u;
${GROUP_MAX}
  // Scale G by 2^-ex where its largest part lies outside [2^-RANGE, 2^RANGE] (exact).
  int ex = 0;
  if (!failed && amax > real(0)) {
    const int lg = ${cudaMath(dtype, 'ilogb')}(amax);
    if (lg > RANGE || lg < -RANGE) ex = lg;
  }
  if (active && ex != 0)
    for (int idx = tid; idx < M * N2; idx += T) g[idx] = makeReal2(${ldexp}(g[idx].x, -ex), ${ldexp}(g[idx].y, -ex));
  bool done = !active || failed || K < 2;
  __syncwarp();
  for (int sweep = 0; sweep < MAX_SWEEPS; ++sweep) {
    if (__all_sync(FULL, done)) break;
    int rotated = 0;
    for (int r = 0; r < N2 - 1; ++r) {
      if (!done && tid < HALF) {
        int p, q;
        pairOf(r, tid, p, q);
        real alpha = real(0), beta = real(0);
        real2 gm = makeReal2(real(0), real(0));
        for (int i = 0; i < M; ++i) {
          const real2 x = g[i + p * M], y = g[i + q * M];
          alpha = fmaReal(x.x, x.x, fmaReal(x.y, x.y, alpha));
          beta = fmaReal(y.x, y.x, fmaReal(y.y, y.y, beta));
          // g_p^H g_q
          gm.x = fmaReal(x.x, y.x, fmaReal(x.y, y.y, gm.x));
          gm.y = fmaReal(x.x, y.y, fmaReal(-x.y, y.x, gm.y));
        }
        const real gamma = modulusReal2(gm);
        real c = real(1), s = real(0);
        real2 e = makeReal2(real(1), real(0));
        if (gamma != real(0) && gamma > tol * sqrtReal(alpha) * sqrtReal(beta)) {
          const real t = tangent((beta - alpha) / (real(2) * gamma));
          c = real(1) / sqrtReal(real(1) + t * t);
          s = t * c;
          e = unitPhase(gm, gamma);
          rotated = 1;
        }
        cs[tid] = c;
        sn[tid] = s;
        ph[tid] = e;
      }
      __syncwarp();
      if (!done) {
        // G := G J${needV ? ' and V := V J' : ''}.
${pairLoop('M', 'i', ['rotColumns(g[i + pp * M], g[i + qq * M], c, s, e);'])}
${needV ? pairLoop('N2', 'i', ['rotColumns(v[i + pp * LDV], v[i + qq * LDV], c, s, e);']) : ''}
      }
      __syncwarp();
    }
    if ((__ballot_sync(FULL, rotated) & group) == 0u) done = true;
  }
${identityOrder('K', '__syncwarp()')}
  // Column norms, descending order by rank (ties by index), then G's columns normalised.
  if (active && !failed) {
    for (int j = tid; j < K; j += T) {
      real nrm = real(0);
      for (int i = 0; i < M; ++i) nrm = fmaReal(g[i + j * M].x, g[i + j * M].x, fmaReal(g[i + j * M].y, g[i + j * M].y, nrm));
      sig[j] = sqrtReal(nrm);
    }
  }
  __syncwarp();
  if (active && !failed) {
    for (int j = tid; j < K; j += T) {
      const real sj = sig[j];
      int rank = 0;
      for (int k = 0; k < K; ++k) rank += (sig[k] > sj || (sig[k] == sj && k < j)) ? 1 : 0;
      perm[rank] = j;
    }
    for (int idx = tid; idx < M * K; idx += T) {
      const real sj = sig[idx / M];
      if (sj > real(0)) g[idx] = makeReal2(g[idx].x / sj, g[idx].y / sj);
    }
  }
  __syncwarp();
${gesvdSettleCalls('active && !failed && tid == 0', completes, '__syncwarp()')}
  if (!active) return;
  if (tid == 0) info[index ? index[mat] : mat] = failed ? K + 2 : (done ? 0 : K + 1);
  real* so = ${matrixPointer('S', kind, 'mat')};
  for (int r = tid; r < K; r += T) so[r] = failed ? nanReal() : ${ldexp}(sig[perm[r]], ex);
${wantU ? `  real2* uo = ${matrixPointer('U', kind, 'mat')};
  for (int idx = tid; idx < ${m} * K; idx += T) {
    const int i = idx % ${m}, r = idx / ${m};
    uo[i + (long long)r * ldU] = failed ? makeReal2(nanReal(), nanReal()) : ${tall ? 'g[i + perm[r] * M]' : 'v[i + perm[r] * LDV]'};
  }
` : ''}${wantVt ? `  real2* vo = ${matrixPointer('V', kind, 'mat')};
  for (int idx = tid; idx < K * ${n}; idx += T) {
    const int r = idx % K, j = idx / K;
    const real2 x = ${tall ? 'v[j + perm[r] * LDV]' : 'g[j + perm[r] * M]'};
    vo[r + (long long)j * ldV] = failed ? makeReal2(nanReal(), nanReal()) : makeReal2(x.x, -x.y);
  }
` : ''}}
`;
  return { name: `${entry}.cu`, source, entry };
}
