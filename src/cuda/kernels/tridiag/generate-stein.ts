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
 *      before form a cluster; each of its shifts is kept 10 eps |x| above the previous one (dstein's
 *      rule). A cluster of up to SERIAL_CLUSTER vectors is computed by its first member's thread in
 *      turn, each iterate orthogonalised against the cluster's earlier vectors by modified Gram-Schmidt
 *      (dstein, which bounds the loss of orthogonality between vectors of different clusters by about
 *      eps ||T|| / gap with gap > 1e-3 ||T||); in a larger cluster every member's thread computes its
 *      vector alone, as for an isolated eigenvalue, and the next kernel orthogonalises them. A
 *      thread's factors live in the slice, column k with stride n, and so does its iterate (Wt), so a
 *      warp's accesses are coalesced; the normalised vector goes to column j of V.
 * 3b. clusters (one block a matrix): the vectors of the clusters of more than SERIAL_CLUSTER
 *    eigenvalues orthogonalised in the cluster's order, panels of them in shared memory, by blocked
 *    classical Gram-Schmidt twice; a vector left with less than a quarter of its norm (a nearly
 *    degenerate cluster) computed again by dstein's serial iteration. A spectrum that is mostly one
 *    cluster (a diagonally dominant matrix of order 512: about 500 of its eigenvalues within
 *    1e-3 ||T|| of their neighbours) costs the parallel solves and O(c^2 n) Gram-Schmidt work spread
 *    over a block, instead of c chains of solves in turn.
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
  `syev_stein_${p.stage}_n${p.n}_t${p.threads}${p.stage !== 'values' ? `_i${p.maxits}` : ''}${p.upperHalf === true ? '_h' : ''}${p.stage !== 'values' && p.serialCluster !== undefined ? `_s${p.serialCluster}` : ''}`;

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

/** dstein's shift of a cluster's vector after the one shifted to prev: x, kept 10 ulp |x| above prev. */
const CLUSTER_SHIFT = `static __device__ __forceinline__ real clusterShift(real prev, real x) {
  const real pertol = real(10) * absReal(ULP * x);
  return x - prev < pertol ? prev + pertol : x;
}`;

/**
 * The clusters kernel's Gram-Schmidt of one vector (classical, twice): y (bs rows) -= Q (Q^T y), Q's
 * `count` columns at q with column stride N; coef holds `count` reals of shared scratch. Warps over
 * the columns for the coefficients, then threads over the rows; every thread of the block calls it.
 */
const PROJECT_OUT = `static __device__ __forceinline__ void projectOut(real* y, const real* q, int count, int bs, real* coef) {
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  for (int pass = 0; pass < 2; ++pass) {
    for (int jj = warp; jj < count; jj += T / 32) {
      const real* z = q + (long long)jj * N;
      real dot = real(0);
      for (int i = lane; i < bs; i += 32) dot = fmaReal(z[i], y[i], dot);
      dot = groupSum(dot, 32);
      if (lane == 0) coef[jj] = dot;
    }
    __syncthreads();
    for (int i = tid; i < bs; i += T) {
      real v = y[i];
      for (int jj = 0; jj < count; ++jj) v = fmaReal(-coef[jj], q[i + (long long)jj * N], v);
      y[i] = v;
    }
    __syncthreads();
  }
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
  // The cluster holding k (eigenvalues within ortol of the one before share one): its first member c0, its size.
  int c0 = k;
  while (c0 > ${upperHalf ? 'lowest' : 'a'} && lam[c0] - lam[c0 - 1] <= ortol) --c0;
  int members = 1;
  while (c0 + members <= b && members <= SERIAL_CLUSTER && lam[c0 + members] - lam[c0 + members - 1] <= ortol) ++members;
  // A small cluster: its vectors in turn by its first member's thread, orthogonalised as they go (dstein).
  // A larger one: every member's vector alone from its own shift in the chain, orthogonalised by the
  // clusters kernel afterwards.
  const bool serial = members <= SERIAL_CLUSTER;
  if (serial && k != c0) return;
  const int last = serial ? c0 + members - 1 : k;
  real xjm = real(0);   // the shift of the cluster's vector before j
  if (!serial) for (int j = c0; j < k; ++j) xjm = j == c0 ? lam[j] : clusterShift(xjm, lam[j]);
  real* ua = Z + ${l.fa} + k;
  real* ub = Z + ${l.fb} + k;
  real* uc = Z + ${l.fc} + k;
  real* ud = Z + ${l.fd} + k;
  int* up = (int*)(Z + ${l.piv}) + k;
  bool allConverged = true;
  for (int j = k; j <= last; ++j) {
    const real xj = j == c0 ? lam[j] : clusterShift(xjm, lam[j]);
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
 * Stage 'clusters': the clusters of more than SERIAL_CLUSTER eigenvalues, one block a matrix. The
 * vectors kernel has computed each member's vector alone (its own shift in dstein's chain, its own
 * start, unit 2-norm, a thread each); here they are orthogonalised in the cluster's order, a panel of
 * PANEL vectors at a time in shared memory: against the cluster's finished vectors by classical
 * Gram-Schmidt in chunks of CHUNK of them (warps over the finished vectors for the coefficients, then
 * threads over the rows, each finished vector's element read once a chunk), twice; then within the
 * panel vector by vector, twice. A vector of a nearly degenerate cluster may lie mostly in its
 * predecessors' span (inverse iteration from different starts at shifts ulps apart gives combinations
 * of the cluster's eigenvectors): where less than KEEP of its norm is left, it is computed again by
 * dstein's serial iteration (each solve by thread 0, the iterate orthogonalised against the cluster's
 * finished vectors at every step), as the vectors kernel does a small cluster. Each vector then gets
 * unit 2-norm and its first largest element positive.
 *
 * Why the rest is safe: an eigenvector computed alone at a shift within eps ||T|| of its eigenvalue
 * differs from the true one by components along the cluster's other eigenvectors (mixing within the
 * cluster only moves its residual by the cluster's width times the mixing, and the orthogonalisation
 * removes it) and along the rest of the spectrum of relative size eps ||T|| / gap, gap > 1e-3 ||T||;
 * a remainder of at least KEEP amplifies those by 1 / KEEP at most.
 */
const clustersStep = (n: number, upperHalf: boolean): string => {
  const l = steinSlice(n);
  const panel = clusterPanel(n);
  return `  real* V = Z + ${l.v};
  const real* lam = lamg;
  const int warp = tid >> 5, lane = tid & 31;
  constexpr int NW = T / 32;
  constexpr int PANEL = ${panel};   // vectors a panel (shared memory)
  constexpr int CHUNK = ${CLUSTER_CHUNK};   // finished vectors a Gram-Schmidt step
  constexpr real KEEP = real(${CLUSTER_KEEP});
  __shared__ real P[PANEL * N], coef[${clusterCoefLength(n)}], held[2];
  bool allConverged = true;
  for (int a = 0, b = 0; a < N; a = b + 1) {
    b = a;
    while (b < N - 1 && e2[b] != real(0)) ++b;
    const int bs = b - a + 1;
    if (bs == 1) continue;
    ${BLOCK_TOLERANCES}
    for (int c0 = ${upperHalf ? 'a + (bs + 1) / 2' : 'a'}, members = 1; c0 <= b; c0 += members) {
      members = 1;
      while (c0 + members <= b && lam[c0 + members] - lam[c0 + members - 1] <= ortol) ++members;
      if (members <= SERIAL_CLUSTER) continue;
      const int cEnd = c0 + members;
      for (int p0 = c0; p0 < cEnd; p0 += PANEL) {
        const int w = min(PANEL, cEnd - p0);
        for (int i = tid; i < bs; i += T)
          for (int m = 0; m < w; ++m) P[m * N + i] = V[a + i + (long long)(p0 + m) * N];
        __syncthreads();
        // Against the cluster's finished vectors c0 ... p0 - 1, CHUNK of them a step, twice.
        for (int pass = 0; pass < 2; ++pass)
          for (int q0 = c0; q0 < p0; q0 += CHUNK) {
            const int nq = min(CHUNK, p0 - q0);
            for (int t = warp; t < nq; t += NW) {
              const real* z = V + a + (long long)(q0 + t) * N;
              real dot[PANEL];
#pragma unroll
              for (int m = 0; m < PANEL; ++m) dot[m] = real(0);
              for (int i = lane; i < bs; i += 32) {
                const real zi = z[i];
#pragma unroll
                for (int m = 0; m < PANEL; ++m) if (m < w) dot[m] = fmaReal(P[m * N + i], zi, dot[m]);
              }
#pragma unroll
              for (int m = 0; m < PANEL; ++m) {
                const real s = groupSum(dot[m], 32);
                if (lane == 0) coef[t * PANEL + m] = s;
              }
            }
            __syncthreads();
            for (int i = tid; i < bs; i += T) {
              real acc[PANEL];
#pragma unroll
              for (int m = 0; m < PANEL; ++m) acc[m] = m < w ? P[m * N + i] : real(0);
              for (int t = 0; t < nq; ++t) {
                const real zi = V[a + i + (long long)(q0 + t) * N];
#pragma unroll
                for (int m = 0; m < PANEL; ++m) acc[m] = fmaReal(-coef[t * PANEL + m], zi, acc[m]);
              }
#pragma unroll
              for (int m = 0; m < PANEL; ++m) if (m < w) P[m * N + i] = acc[m];
            }
            __syncthreads();
          }
        // Within the panel, vector by vector; each finished one into V before the next.
        for (int m = 0; m < w; ++m) {
          const int j = p0 + m;
          real* y = P + m * N;
          projectOut(y, P, m, bs, coef);
          real ss = real(0);
          for (int i = tid; i < bs; i += T) ss = fmaReal(y[i], y[i], ss);
          if (!(sqrtReal(blockSum(ss, red)) >= KEEP)) {
            // Mostly in its predecessors' span: dstein's serial iteration for this vector (its shift in
            // the cluster's chain; the factors in column c0's slots, free since the vectors kernel).
            real xj = lam[c0];
            for (int jj = c0 + 1; jj <= j; ++jj) xj = clusterShift(xj, lam[jj]);
            real* ua = Z + ${l.fa} + c0;
            real* ub = Z + ${l.fb} + c0;
            real* uc = Z + ${l.fc} + c0;
            real* ud = Z + ${l.fd} + c0;
            int* up = (int*)(Z + ${l.piv}) + c0;
            for (int i = tid; i < bs; i += T) y[i] = startValue(j, a + i);
            if (tid == 0) { held[0] = factorShifted(d, e, a, bs, xj, ua, ub, uc, ud, up); held[1] = absReal(ua[(bs - 1) * N]); }
            __syncthreads();
            const real tol = held[0], unn = held[1];
            int nrmchk = 0;
            bool converged = false;
            for (int its = 1; its <= MAXITS && !converged; ++its) {
              real big = real(0);
              for (int i = tid; i < bs; i += T) big = fmax(big, absReal(y[i]));
              real ymax = blockMax(big, red);
              if (!(ymax > real(0))) {   // every component removed: a fresh start
                for (int i = tid; i < bs; i += T) y[i] = startValue(j + N * its, a + i);
                ymax = real(1);
              }
              const real scl = real(bs) * onenrm * fmax(ULP, unn) / ymax;
              for (int i = tid; i < bs; i += T) y[i] *= scl;
              __syncthreads();
              if (tid == 0) solveShifted<1>(bs, tol, ua, ub, uc, ud, up, y);
              __syncthreads();
              projectOut(y, V + a + (long long)c0 * N, j - c0, bs, coef);
              big = real(0);
              for (int i = tid; i < bs; i += T) big = fmax(big, absReal(y[i]));
              const real nrm = blockMax(big, red);
              if (nrm >= dtpcrt && ++nrmchk >= EXTRA + 1) converged = true;
            }
            allConverged = allConverged && converged;
          }
          // Unit 2-norm (scaled by the largest magnitude first), the first largest element positive.
          real big = real(0);
          for (int i = tid; i < bs; i += T) big = fmax(big, absReal(y[i]));
          const real ymax = blockMax(big, red);
          real first = real(-bs);   // minus the first row holding ymax, by a max
          for (int i = tid; i < bs; i += T) if (absReal(y[i]) == ymax) { first = real(-i); break; }
          const int at = (int)(-blockMax(first, red));
          real s2 = real(0);
          if (ymax > real(0)) for (int i = tid; i < bs; i += T) { const real v = y[i] / ymax; s2 = fmaReal(v, v, s2); }
          s2 = blockSum(s2, red);
          const real scl = ymax > real(0) ? copysign(real(1) / (ymax * sqrtReal(s2)), y[at]) : real(0);
          __syncthreads();   // y[at] read by every thread before y is scaled
          real* vj = V + (long long)j * N;
          for (int i = tid; i < N; i += T) {
            const bool inside = i >= a && i <= b;
            const real v = inside ? y[i - a] * scl : real(0);
            if (inside) y[i - a] = v;
            vj[i] = v;
          }
          __syncthreads();   // y and V's column j before the next vector
        }
      }
    }
  }
  if (!allConverged && tid == 0) hdr[9] = 1;   // info n + 1
}
`;
};

/** Finished vectors a Gram-Schmidt step of the clusters kernel (its coefficients' shared scratch is CHUNK x PANEL). */
const CLUSTER_CHUNK = 64;
/** The share of its norm a cluster's vector must keep after orthogonalisation, else it is computed again serially. */
const CLUSTER_KEEP = 0.25;
const clusterCoefLength = (n: number): number => Math.max(n, CLUSTER_CHUNK * clusterPanel(n));

/**
 * The clusters kernel's panel: as many vectors as fit the static shared memory (48 KiB) beside the
 * opening's d, e, e2 and red and the coefficients (counted here for the largest panel, 8, so the
 * count does not depend on its own result), 8 at most, 1 at least.
 */
export function clusterPanel(n: number): number {
  const fixed = 3 * 8 * n + 8 * 32 + 8 * Math.max(n, CLUSTER_CHUNK * 8) + 16;
  return Math.max(1, Math.min(8, Math.floor((48 * 1024 - fixed) / (8 * n))));
}

/** Thread blocks per matrix of a stein kernel: its n eigenvalues over blocks of `threads`. */
export const steinParts = (p: Pick<TridiagSteinParams, 'n' | 'threads' | 'stage'>): number => (p.stage === 'clusters' ? 1 : Math.ceil(p.n / p.threads));

/**
 * The largest cluster the vectors kernel computes on one thread (the cluster's first) in turn; the
 * members of a larger one get a thread each and the clusters kernel orthogonalises them. One thread
 * takes c chains of solves and about c^2 bs / 2 dependent Gram-Schmidt steps per iteration for c
 * vectors; 1 (every cluster of two or more a thread a vector) measured faster than 8 on an H200 at
 * every order and spectrum timed: float64 128 x 500, 256 x 100, 512 x 20, 4.3 / 8.3 / 32.5 ms against
 * 9.0 / 16.4 / 38.5 on diagonally dominant matrices, 4.3 / 6.8 / 14.5 against 4.8 / 8.0 / 18.2 on
 * random ones (scripts/probe/syev-clusters.mjs, SERIAL=8,1).
 */
export const SERIAL_CLUSTER = 1;

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
${stage === 'values' ? '' : `constexpr int SERIAL_CLUSTER = ${p.serialCluster ?? SERIAL_CLUSTER};   // larger clusters: a thread a vector, then the clusters kernel\n`}${blockReduceSource('max')}
${stage === 'clusters' ? `${blockReduceSource('sum')}\n${PROJECT_OUT}\n` : ''}${stage === 'values' ? BISECT_EIGENVALUE : `${START_VALUE}\n${CLUSTER_SHIFT}\n${FACTOR}\n${SOLVE}`}

// At least 512 threads an SM's worth of registers (128 a thread at 64 a block): without a minimum
// ptxas picked 80-96 registers at some orders and spilled.
extern "C" __global__ void __launch_bounds__(T, ${Math.max(1, Math.floor(512 / threads))}) ${entry}(real* __restrict__ work, long long first, int count) {
${opening(n)}${STAGE_BODY[stage](n, upperHalf)}`;
  return { name: `${entry}.cu`, source, entry };
}
