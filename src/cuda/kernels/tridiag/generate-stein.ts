/**
 * The inverse-iteration design of the tridiagonal syev (with vectors; values only from the table's
 * steinPanelFrom): the eigenvectors of the tridiagonal T = Q^T A Q without QL's serial chain of ~n^2
 * dependent rotations.
 *
 * Per workspace chunk, one slice per matrix (snippets.ts `steinSlice`):
 * 1. reduce (generate-syev.ts, stage 'reduce'): load and dsytd2 as the one-kernel design, the
 *    reflectors in the slice's Z, their scalars, d, e, the scale and the failure saved; from the
 *    table's steinPanelFrom instead stage 'load' and the blocked reduction (generate-panel.ts: a
 *    launch per panel of 32 columns, each followed by two GEMMs over the chunk).
 * 2, 3. values and vectors (this file): a thread per eigenvalue, `threads` of them a thread block
 *    (several blocks per matrix from n > threads: the matrix's chains spread over the SMs), everything
 *    in float64; each block first splits the tridiagonal as dstebz does (e_i with e_i^2 <= ulp^2
 *    |d_i d_i+1| + safmin set to zero: unreduced blocks; a row's eigenvalue and eigenvector belong to
 *    its block), every block of a matrix to the same bits;
 *    - values: eigenvalue k by bisection on its block (Sturm counts, snippets.ts BISECT_EIGENVALUE):
 *      the (k - b1)-th of the block [b1, bn] holding row k, into the slice's lam;
 *    - vectors: eigenvector k by dstein's inverse iteration: a pseudo-random start, T(b1:bn) - x I = P L U
 *      with partial pivoting (dlagtf), the scaled right-hand side solved with tiny pivots perturbed
 *      (dlagts, job -1), until the iterate's max norm reaches sqrt(0.1 / size) and two iterations
 *      more, at most `maxits` (then the matrix reports no convergence, info n + 1); normalised with
 *      its largest element positive. Eigenvalues of a block within 1e-3 ||T_block||_1 of the one
 *      before form a cluster, whose vectors are computed in turn, each shift kept 10 eps |x| above the
 *      previous and each iterate orthogonalised against the cluster's earlier vectors (dstein's rule,
 *      which bounds the loss of orthogonality between vectors of different clusters by about
 *      eps ||T|| / gap with gap > 1e-3 ||T||): by the cluster's first thread with modified Gram-Schmidt
 *      up to SERIAL_CLUSTER vectors; larger clusters are left to the next kernel. A thread's factors
 *      live in the slice, column k with stride n, and so does its iterate (Wt), so a warp's accesses
 *      are coalesced; the normalised vector goes to column j of V.
 * 3b. clusters (one block a matrix): the clusters of more than SERIAL_CLUSTER vectors, each vector's
 *    solves by one thread and its scaling, norms and Gram-Schmidt (classical, twice) by the block. A
 *    spectrum that is mostly one cluster (a diagonally dominant matrix of order 512: about 500 of its
 *    eigenvalues within 1e-3 ||T|| of their neighbours) costs one chain of solves per vector instead
 *    of one thread's O(c^2 n) Gram-Schmidt steps.
 * 4. V := Q V by the reflectors (the project's batched ormqr over the chunk's slices: Q = diag(1, Q'),
 *    Q' = H(0) ... H(n-3) over rows 1 ... n-1, geqrf's storage of A(1:n, 0:n-2)): blocked WY with GEMMs
 *    from its table's size on, never Q formed.
 * 5. store (generate-syev.ts, stage 'store'): eigenvalues (lam) ascending with their columns of V, scaled
 *    back, over A; info. Values only: steps 1, 2 and 5 (no vectors or clusters kernel, no ormqr).
 *
 * Against the QL designs: the same normwise guarantees (residual and orthogonality of order n eps),
 * work O(n^2) per matrix on the tridiagonal spread over n threads, where QL's chain is O(n^2) on one
 * thread; the back-transformation is ormqr's blocked WY (GEMMs) instead of dorgtr in one block and
 * rotations applied to Z.
 */
import type { KernelSource } from '../../runtime/types.js';
import { blockReduceSource } from '../common/block-reduce.js';
import { mathHelpers, precisionPrelude } from '../common/precision.js';
import type { TridiagSteinParams } from './params.js';
import { BISECT_EIGENVALUE, slicePointers, steinSlice } from './snippets.js';

export const steinEntry = (p: TridiagSteinParams): string =>
  `syev_stein_${p.stage}_n${p.n}_t${p.threads}${p.stage !== 'values' ? `_i${p.maxits}` : ''}${p.upperHalf === true ? '_h' : ''}`;

/**
 * What the values kernel writes for a row whose eigenvalue it skips (TridiagSteinParams `upperHalf`):
 * -DBL_MAX, below every eigenvalue of a scaled matrix.
 */
export const STEIN_SKIPPED = '-1.7976931348623157e308';

/** CUDA text (`upperHalf`): this row's block offset below the block's upper half returns (the values kernel marks it skipped first). */
const upperHalfOnly = (mark: string): string => `  const int lowest = a + (b - a + 2) / 2;   // the block's first row of its upper half
  if (k < lowest) { ${mark}return; }
`;

/** The start vector's element i of eigenvector j: a counter-based hash to uniform (-1, 1) (dstein: dlarnv). */
const START_VALUE = `static __device__ __forceinline__ real startValue(int j, int i) {
  unsigned long long x = ((unsigned long long)(j + 1) << 32) ^ ((unsigned long long)(i + 1) * 0x9E3779B97F4A7C15ULL);
  x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL; x ^= x >> 33;
  return (real)(x >> 11) * real(2.220446049250313e-16) - real(1);
}`;

/**
 * dlagtf with lambda = x on the block's rows a ... a + bs - 1 (d, e in shared memory), tol 0: the
 * factors into this thread's columns (A: ua, B: ub, C: uc, D: ud, IN: up, stride N); returns dlagts's
 * tol (eps times the largest factor element, or eps).
 */
const FACTOR = `static __device__ __forceinline__ real factorShifted(const real* __restrict__ d, const real* __restrict__ e, int a, int bs, real x,
    real* __restrict__ ua, real* __restrict__ ub, real* __restrict__ uc, real* __restrict__ ud, int* __restrict__ up) {
  real ak = d[a] - x, bk = bs > 1 ? e[a] : real(0);
  real scale1 = absReal(ak) + absReal(bk);
  real big = real(0);
  for (int r = 0; r < bs - 1; ++r) {
    real ak1 = d[a + r + 1] - x;
    const real ck = e[a + r];
    const real bk1 = r < bs - 2 ? e[a + r + 1] : real(0);
    real scale2 = absReal(ck) + absReal(ak1);
    if (r < bs - 2) scale2 += absReal(bk1);
    const real piv1 = ak == real(0) ? real(0) : absReal(ak) / scale1;
    real outA = ak, outB = bk, outC = ck, dk = real(0), nextB = bk1;
    int in = 0;
    if (ck == real(0)) {
      scale1 = scale2;
    } else if (absReal(ck) / scale2 <= piv1) {
      scale1 = scale2;
      outC = ck / ak;
      ak1 -= outC * bk;
    } else {
      in = 1;
      const real mult = ak / ck;
      outA = ck;
      outB = ak1;
      ak1 = bk - mult * ak1;
      if (r < bs - 2) { dk = bk1; nextB = -mult * dk; }
      outC = mult;
    }
    ua[r * N] = outA; ub[r * N] = outB; uc[r * N] = outC; ud[r * N] = dk; up[r * N] = in;
    big = fmax(big, fmax(absReal(outA), fmax(absReal(outB), absReal(dk))));
    ak = ak1; bk = nextB;
  }
  ua[(bs - 1) * N] = ak;
  big = fmax(big, absReal(ak)) * EPS;
  return big == real(0) ? EPS : big;
}`;

/**
 * dlagts, job -1: y (stride YS: N for a thread's column of Wt, 1 for the clusters kernel's shared
 * iterate) := (P L U)^-1 y, U's tiny diagonal elements perturbed by tol (doubling).
 */
const SOLVE = `template <int YS>
static __device__ __forceinline__ void solveShifted(int bs, real tol, const real* __restrict__ ua, const real* __restrict__ ub,
    const real* __restrict__ uc, const real* __restrict__ ud, const int* __restrict__ up, real* __restrict__ y) {
  real prev = y[0];
  // Unrolled: the loads of a few steps in flight at once (each step's chain is one FMA; a thread's
  // elements are n apart, L2 latency per step otherwise).
#pragma unroll 4
  for (int k = 1; k < bs; ++k) {
    const real yk = y[k * YS], c = uc[(k - 1) * N];
    if (up[(k - 1) * N] == 0) { prev = yk - c * prev; y[k * YS] = prev; }
    else { y[(k - 1) * YS] = yk; prev = prev - c * yk; y[k * YS] = prev; }
  }
  real y1 = real(0), y2 = real(0);   // y[k + 1], y[k + 2] (already solved)
#pragma unroll 4
  for (int k = bs - 1; k >= 0; --k) {
    real temp = y[k * YS];
    if (k <= bs - 2) temp -= ub[k * N] * y1;
    if (k <= bs - 3) temp -= ud[k * N] * y2;
    real ak = ua[k * N], pert = copysign(tol, ak);
    for (;;) {
      const real absak = absReal(ak);
      if (absak < real(1)) {
        if (absak < SAFMIN) {
          if (absak == real(0) || absReal(temp) * SAFMIN > absak) { ak += pert; pert *= real(2); continue; }
          temp *= BIGNUM; ak *= BIGNUM;
        } else if (absReal(temp) > absak * BIGNUM) { ak += pert; pert *= real(2); continue; }
      }
      break;
    }
    const real yk = temp / ak;
    y[k * YS] = yk;
    y2 = y1; y1 = yk;
  }
}`;

/**
 * The kernels' common opening: the matrix's slice, its tridiagonal split into unreduced blocks; the
 * values and vectors kernels then take this thread's row k (`rowBlock`).
 */
const opening = (n: number): string => {
  const l = steinSlice(n);
  return `  const int tid = threadIdx.x;
  const long long mat = blockIdx.x / PARTS;
  const int part = blockIdx.x % PARTS;
  if (first + mat >= count) return;
  real* Z = work + mat * SLICE;
${slicePointers(n, 0)}  real* lamg = Z + ${l.lam};
  __shared__ real d[N], e[N], e2[N], red[32];
  if (hdr[2] != 0) return;   // NaN or Inf in A: the store writes NaN
  // d_{n-1} from Z (the blocked reduction's last update leaves it there; the unblocked one too).
  for (int i = tid; i < N; i += T) { d[i] = i < N - 1 ? sd[i] : Z[(long long)(N - 1) * (N + 1)]; e[i] = se[i]; }
  __syncthreads();
  // dstebz's splitting: a negligible e_i becomes zero (e2 the squares, zero there); every block of
  // the matrix computes the same bits.
  real e2max = real(0);
  for (int i = tid; i < N; i += T) {
    real t = real(0);
    if (i < N - 1) { t = e[i] * e[i]; if (absReal(d[i] * d[i + 1]) * (ULP * ULP) + SAFMIN > t) t = real(0); }
    e2[i] = t;
    e2max = fmax(e2max, t);
  }
  e2max = blockMax(e2max, red);   // its barriers publish e2
  for (int i = tid; i < N; i += T) if (e2[i] == real(0)) e[i] = real(0);
  __syncthreads();
`;
};

/** CUDA text: this thread's row k (eigenvalue k) and its unreduced block [a, b]. */
const rowBlock = `  // This thread's row k (eigenvalue k) and its unreduced block [a, b].
  const int k = part * T + tid;
  int a = k, b = k;
  if (k < N) {
    while (a > 0 && e2[a - 1] != real(0)) --a;
    while (b < N - 1 && e2[b] != real(0)) ++b;
  }
`;

/**
 * CUDA text: dstein's tolerances for the unreduced block [a, b] (of bs > 1 rows): its 1-norm, the
 * cluster test (eigenvalues within ortol of the one before share a cluster) and the norm an iterate
 * must reach. The vectors and clusters kernels compute the same bits, so they agree on every cluster.
 */
const BLOCK_TOLERANCES = `real onenrm = fmax(absReal(d[a]) + absReal(e[a]), absReal(d[b]) + absReal(e[b - 1]));
  for (int i = a + 1; i < b; ++i) onenrm = fmax(onenrm, absReal(d[i]) + absReal(e[i - 1]) + absReal(e[i]));
  const real ortol = real(1e-3) * onenrm;
  const real dtpcrt = sqrtReal(real(0.1) / real(bs));`;

/**
 * Stage 'values': eigenvalue k, the (k - a)-th of its block [a, b], by bisection on the block's
 * Gershgorin interval, into the slice's lam.
 */
const values = (upperHalf: boolean): string => `  if (k >= N) return;
${upperHalf ? upperHalfOnly(`lamg[k] = ${STEIN_SKIPPED}; `) : ''}  real x = d[k];
  if (b > a) {
    const real pivmin = SAFMIN * fmax(real(1), e2max);
    real gl = MAXR, gu = -MAXR;
    for (int r = a; r <= b; ++r) {
      const real em = r > a ? absReal(e[r - 1]) : real(0), ep = r < b ? absReal(e[r]) : real(0);
      gl = fmin(gl, d[r] - em - ep);
      gu = fmax(gu, d[r] + em + ep);
    }
    const real tnorm = fmax(absReal(gl), absReal(gu));
    const real widen = real(2.1) * (real(2) * EPS * (b - a + 1) * tnorm + real(2) * pivmin);
    if (tnorm > real(0)) x = bisectEigenvalue(d, e2, a, b, k - a, gl - widen, gu + widen, pivmin, tnorm);
  }
  lamg[k] = x;
}
`;

/** Stage 'vectors': eigenvector k (column k of V) by dstein on its block; a cluster's vectors by its first member's thread. */
const vectorsStep = (n: number, upperHalf: boolean): string => {
  const l = steinSlice(n);
  return `  real* V = Z + ${l.v};
  real* Wt = Z + ${l.wt};
  if (k >= N) return;
${upperHalf ? upperHalfOnly('') : ''}  const int bs = b - a + 1;
  if (bs == 1) {
    // Rolled: unrolled n times, this loop made ptxas spill the whole kernel (n = 128, 256).
#pragma unroll 1
    for (int i = 0; i < N; ++i) V[i + (long long)k * N] = i == k ? real(1) : real(0);
    return;
  }
  const real* lam = lamg;
  ${BLOCK_TOLERANCES}
  if (k > ${upperHalf ? 'lowest' : 'a'} && lam[k] - lam[k - 1] <= ortol) return;
  // A cluster of more than SERIAL_CLUSTER vectors is the clusters kernel's (the whole block on it).
  int members = 1;
  while (k + members <= b && members <= SERIAL_CLUSTER && lam[k + members] - lam[k + members - 1] <= ortol) ++members;
  if (members > SERIAL_CLUSTER) return;
  real* ua = Z + ${l.fa} + k;
  real* ub = Z + ${l.fb} + k;
  real* uc = Z + ${l.fc} + k;
  real* ud = Z + ${l.fd} + k;
  int* up = (int*)(Z + ${l.piv}) + k;
  bool allConverged = true;
  real xjm = real(0);
  for (int j = k; j <= b && (j == k || lam[j] - lam[j - 1] <= ortol); ++j) {
    real xj = lam[j];
    if (j > k) { const real pertol = real(10) * absReal(ULP * xj); if (xj - xjm < pertol) xj = xjm + pertol; }
    real* y = Wt + k + (long long)a * N;   // y[i * N]: element a + i of the iterate (this thread's column of Wt)
    for (int i = 0; i < bs; ++i) y[i * N] = startValue(j, a + i);
    const real tol = factorShifted(d, e, a, bs, xj, ua, ub, uc, ud, up);
    const real unn = absReal(ua[(bs - 1) * N]);
    int nrmchk = 0;
    bool converged = false;
    for (int its = 1; its <= MAXITS && !converged; ++its) {
      // Scale the right-hand side: bs ||T||_1 max(ulp, |u_nn|) / max |y_i|.
      real ymax = real(0);
      for (int i = 0; i < bs; ++i) ymax = fmax(ymax, absReal(y[i * N]));
      if (!(ymax > real(0))) {   // every component removed (a cluster's subspace exhausted): a fresh start
        for (int i = 0; i < bs; ++i) y[i * N] = startValue(j + N * its, a + i);
        ymax = real(1);
      }
      const real scl = real(bs) * onenrm * fmax(ULP, unn) / ymax;
      for (int i = 0; i < bs; ++i) y[i * N] *= scl;
      solveShifted<N>(bs, tol, ua, ub, uc, ud, up, y);
      // Modified Gram-Schmidt against the cluster's earlier vectors.
      for (int jj = k; jj < j; ++jj) {
        const real* z = V + a + (long long)jj * N;
        real dot = real(0);
        for (int i = 0; i < bs; ++i) dot = fmaReal(y[i * N], z[i], dot);
        for (int i = 0; i < bs; ++i) y[i * N] = fmaReal(-dot, z[i], y[i * N]);
      }
      real nrm = real(0);
      for (int i = 0; i < bs; ++i) nrm = fmax(nrm, absReal(y[i * N]));
      if (nrm >= dtpcrt && ++nrmchk >= EXTRA + 1) converged = true;
    }
    allConverged = allConverged && converged;
    // Unit 2-norm (scaled by the largest magnitude first), the largest element positive.
    real ymax = real(0), ysgn = real(1);
    for (int i = 0; i < bs; ++i) { const real v = y[i * N]; if (absReal(v) > ymax) { ymax = absReal(v); ysgn = v; } }
    real ss = real(0);
    if (ymax > real(0)) for (int i = 0; i < bs; ++i) { const real v = y[i * N] / ymax; ss = fmaReal(v, v, ss); }
    const real scl = ymax > real(0) ? copysign(real(1) / (ymax * sqrtReal(ss)), ysgn) : real(0);
    real* vj = V + (long long)j * N;
    for (int i = 0; i < a; ++i) vj[i] = real(0);
    for (int i = 0; i < bs; ++i) vj[a + i] = y[i * N] * scl;
    for (int i = b + 1; i < N; ++i) vj[i] = real(0);
    xjm = xj;
  }
  if (!allConverged) hdr[9] = 1;   // info n + 1 (every writer writes 1)
}
`;
};

/**
 * Stage 'clusters': the vectors of every cluster of more than SERIAL_CLUSTER eigenvalues, by the
 * whole block (one block per matrix), in dstein's order: vector j from its shift and start, each
 * iteration's solve by thread 0 (a chain), the iterate scaled, normed and orthogonalised against the
 * cluster's earlier vectors (classical Gram-Schmidt twice, warps over the vectors, then threads over
 * the rows) by all threads. One thread serially, as the vectors kernel does a small cluster, takes
 * O(c^2 bs) dependent steps through memory for c vectors: minutes where most of a spectrum is one
 * cluster (a diagonally dominant matrix of order 512). Here a cluster still costs c chains of solves
 * in turn (the factors in global memory, one thread): about 1 ms a vector at 512 on an H200.
 */
const clustersStep = (n: number, upperHalf: boolean): string => {
  const l = steinSlice(n);
  return `  real* V = Z + ${l.v};
  const real* lam = lamg;
  const int warp = tid >> 5, lane = tid & 31;
  __shared__ real ys[N], coef[N], held[2];
  bool allConverged = true;
  for (int a = 0, b = 0; a < N; a = b + 1) {
    b = a;
    while (b < N - 1 && e2[b] != real(0)) ++b;
    const int bs = b - a + 1;
    if (bs == 1) continue;
    ${BLOCK_TOLERANCES}
    for (int k = ${upperHalf ? 'a + (bs + 1) / 2' : 'a'}, members = 1; k <= b; k += members) {
      members = 1;
      while (k + members <= b && lam[k + members] - lam[k + members - 1] <= ortol) ++members;
      if (members <= SERIAL_CLUSTER) continue;
      // The factors in the cluster's first thread's columns (the vectors kernel left them unused).
      real* ua = Z + ${l.fa} + k;
      real* ub = Z + ${l.fb} + k;
      real* uc = Z + ${l.fc} + k;
      real* ud = Z + ${l.fd} + k;
      int* up = (int*)(Z + ${l.piv}) + k;
      real xjm = real(0);
      for (int j = k; j < k + members; ++j) {
        real xj = lam[j];
        if (j > k) { const real pertol = real(10) * absReal(ULP * xj); if (xj - xjm < pertol) xj = xjm + pertol; }
        for (int i = tid; i < bs; i += T) ys[i] = startValue(j, a + i);
        if (tid == 0) { held[0] = factorShifted(d, e, a, bs, xj, ua, ub, uc, ud, up); held[1] = absReal(ua[(bs - 1) * N]); }
        __syncthreads();
        const real tol = held[0], unn = held[1];
        int nrmchk = 0;
        bool converged = false;
        for (int its = 1; its <= MAXITS && !converged; ++its) {
          real big = real(0);
          for (int i = tid; i < bs; i += T) big = fmax(big, absReal(ys[i]));
          real ymax = blockMax(big, red);
          if (!(ymax > real(0))) {   // every component removed: a fresh start
            for (int i = tid; i < bs; i += T) ys[i] = startValue(j + N * its, a + i);
            ymax = real(1);
          }
          const real scl = real(bs) * onenrm * fmax(ULP, unn) / ymax;
          for (int i = tid; i < bs; i += T) ys[i] *= scl;
          __syncthreads();
          if (tid == 0) solveShifted<1>(bs, tol, ua, ub, uc, ud, up, ys);
          __syncthreads();
          for (int pass = 0; pass < 2; ++pass) {
            for (int jj = k + warp; jj < j; jj += T / 32) {
              const real* z = V + a + (long long)jj * N;
              real dot = real(0);
              for (int i = lane; i < bs; i += 32) dot = fmaReal(ys[i], z[i], dot);
              dot = groupSum(dot, 32);
              if (lane == 0) coef[jj - k] = dot;
            }
            __syncthreads();
            for (int i = tid; i < bs; i += T) {
              real v = ys[i];
              for (int jj = k; jj < j; ++jj) v = fmaReal(-coef[jj - k], V[a + i + (long long)jj * N], v);
              ys[i] = v;
            }
            __syncthreads();
          }
          big = real(0);
          for (int i = tid; i < bs; i += T) big = fmax(big, absReal(ys[i]));
          const real nrm = blockMax(big, red);
          if (nrm >= dtpcrt && ++nrmchk >= EXTRA + 1) converged = true;
        }
        allConverged = allConverged && converged;
        // Unit 2-norm (scaled by the largest magnitude first), the first largest element positive.
        real big = real(0);
        for (int i = tid; i < bs; i += T) big = fmax(big, absReal(ys[i]));
        const real ymax = blockMax(big, red);
        real first = real(-bs);   // minus the first row holding ymax, by a max
        for (int i = tid; i < bs; i += T) if (absReal(ys[i]) == ymax) { first = real(-i); break; }
        const int at = (int)(-blockMax(first, red));
        real ss = real(0);
        if (ymax > real(0)) for (int i = tid; i < bs; i += T) { const real v = ys[i] / ymax; ss = fmaReal(v, v, ss); }
        ss = blockSum(ss, red);
        const real scl = ymax > real(0) ? copysign(real(1) / (ymax * sqrtReal(ss)), ys[at]) : real(0);
        real* vj = V + (long long)j * N;
        for (int i = tid; i < N; i += T) vj[i] = i >= a && i <= b ? ys[i - a] * scl : real(0);
        __syncthreads();   // V's column j and ys before the next vector
        xjm = xj;
      }
    }
  }
  if (!allConverged && tid == 0) hdr[9] = 1;   // info n + 1
}
`;
};

/** Thread blocks per matrix of a stein kernel: its n eigenvalues over blocks of `threads`. */
export const steinParts = (p: Pick<TridiagSteinParams, 'n' | 'threads' | 'stage'>): number => (p.stage === 'clusters' ? 1 : Math.ceil(p.n / p.threads));

/**
 * The largest cluster the vectors kernel computes on one thread (the cluster's first); larger ones
 * are the clusters kernel's. One thread takes about c^2 bs / 2 dependent steps per iteration for c
 * vectors against the clusters kernel's c serial solves with the rest spread over its block.
 */
export const SERIAL_CLUSTER = 8;

const STAGE_BODY: Record<TridiagSteinParams['stage'], (n: number, upperHalf: boolean) => string> = {
  values: (_n, upperHalf) => rowBlock + values(upperHalf),
  vectors: (n, upperHalf) => rowBlock + vectorsStep(n, upperHalf),
  clusters: clustersStep,
};

export function tridiagSteinSource(p: TridiagSteinParams): KernelSource {
  const { n, threads, maxits, stage } = p;
  const upperHalf = p.upperHalf === true;
  const l = steinSlice(n);
  const entry = steinEntry(p);
  const source = `${precisionPrelude('float64')}
${mathHelpers('float64')}
constexpr int N = ${n};
constexpr int T = ${threads};
constexpr int PARTS = ${steinParts(p)};   // blocks per matrix
constexpr long long SLICE = ${l.slice};   // float64 elements per matrix
constexpr int MAXITS = ${maxits};
constexpr int EXTRA = 2;   // iterations after the norm test passes (dstein)
constexpr real EPS = 1.1102230246251565e-16;
constexpr real ULP = 2.220446049250313e-16;
constexpr real SAFMIN = 2.2250738585072014e-308;
constexpr real BIGNUM = 1.0 / SAFMIN;
constexpr real MAXR = 1.7976931348623157e308;
${stage === 'values' ? '' : `constexpr int SERIAL_CLUSTER = ${SERIAL_CLUSTER};   // larger clusters: the clusters kernel\n`}${blockReduceSource('max')}
${stage === 'clusters' ? `${blockReduceSource('sum')}\n` : ''}${stage === 'values' ? BISECT_EIGENVALUE : `${START_VALUE}\n${FACTOR}\n${SOLVE}`}

// At least 512 threads an SM's worth of registers (128 a thread at 64 a block): without a minimum
// ptxas picked 80-96 registers at some orders and spilled.
extern "C" __global__ void __launch_bounds__(T, ${Math.max(1, Math.floor(512 / threads))}) ${entry}(real* __restrict__ work, long long first, int count) {
${opening(n)}${STAGE_BODY[stage](n, upperHalf)}`;
  return { name: `${entry}.cu`, source, entry };
}
