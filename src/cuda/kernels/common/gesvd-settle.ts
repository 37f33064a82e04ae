/**
 * The end of a one-sided Jacobi gesvd whose sweeps did not settle, as CUDA source for the real and
 * the complex Jacobi families (kernels/jacobi/, kernels/zjacobi/): the reference's rules
 * (cpu/lapack/jacobi.ts `gramOffNegligible`, `orthonormalizeColumns`). On a graded matrix the
 * relative rotation test keeps rotating the small columns on rounding noise until the sweep limit,
 * although G^H G's off-diagonal part has long fallen below the level LAPACK's bidiagonal QR stops
 * at; the matrix then counts as converged where that part is below K eps of G^H G's norm, and G's
 * normalised columns (U, or VT's rows for a wide A), which carry errors of eps ||A|| / s_j, are made
 * orthonormal in the singular values' order.
 *
 * Serial (one thread of the matrix: a rare path) over G in memory the matrix's threads share: M x K,
 * column-major (ld M), each column divided by its norm sig[j] where sig[j] > 0, perm[rank] = j in
 * descending order of sig. The same functions complete the columns of zero singular values (the
 * first unit vector that stays longer than 1/2 after two Gram-Schmidt passes against the columns
 * before it; the longest where none does). Needs `real`, `fmaReal`, `sqrtReal` (and `real2`,
 * `makeReal2` for complex: common/complex.ts).
 */

/**
 * The element helpers of the serial code: `SE` the element, `seDot` acc + conj(u) y, `seAxpy` y - d u,
 * `seNorm2` acc + |y|^2. Spelled as the designs' completion code had them (so a matrix whose sweeps
 * settle keeps its bits), not common/complex.ts's fused mulReal2.
 */
function elementHelpers(complex: boolean): string {
  return complex
    ? `typedef real2 SE;
static __device__ __forceinline__ SE seZero() { return makeReal2(real(0), real(0)); }
static __device__ __forceinline__ SE seUnit(bool one) { return makeReal2(one ? real(1) : real(0), real(0)); }
static __device__ __forceinline__ SE seDot(SE acc, SE u, SE y) {
  return makeReal2(fmaReal(u.x, y.x, fmaReal(u.y, y.y, acc.x)), fmaReal(u.x, y.y, fmaReal(-u.y, y.x, acc.y)));
}
static __device__ __forceinline__ SE seAxpy(SE y, SE d, SE u) { return makeReal2(y.x - (d.x * u.x - d.y * u.y), y.y - (d.x * u.y + d.y * u.x)); }
static __device__ __forceinline__ real seNorm2(real acc, SE y) { return fmaReal(y.x, y.x, fmaReal(y.y, y.y, acc)); }
static __device__ __forceinline__ SE seDiv(SE y, real f) { return makeReal2(y.x / f, y.y / f); }`
    : `typedef real SE;
static __device__ __forceinline__ SE seZero() { return real(0); }
static __device__ __forceinline__ SE seUnit(bool one) { return one ? real(1) : real(0); }
static __device__ __forceinline__ SE seDot(SE acc, SE u, SE y) { return fmaReal(u, y, acc); }
static __device__ __forceinline__ SE seAxpy(SE y, SE d, SE u) { return y - d * u; }
static __device__ __forceinline__ real seNorm2(real acc, SE y) { return fmaReal(y, y, acc); }
static __device__ __forceinline__ SE seDiv(SE y, real f) { return y / f; }`;
}

/**
 * `settleGramOff(g, sig, M, K)`: whether G = (g's columns) diag(sig) has G^H G's off-diagonal part
 * below K EPS of its Frobenius norm (the dot products taken relative to the largest sig^2, so no
 * square overflows); `settleColumns(g, sig, perm, M, K, all)`: with `all`, every column made
 * orthonormal to the ones before it in perm's order (two Gram-Schmidt passes, two more where half
 * the length went, then unit length), else only the columns of zero singular values completed;
 * `sig` null: every column counts (V's columns, whose rotations lost orthogonality).
 */
export function gesvdSettleSource(complex: boolean): string {
  return `${elementHelpers(complex)}
static __device__ __noinline__ bool settleGramOff(const SE* g, const real* sig, int M, int K) {
  real top = real(0);
  #pragma unroll 1
  for (int j = 0; j < K; ++j) top = sig[j] > top ? sig[j] : top;
  if (!(top > real(0))) return top == real(0);
  real off = real(0), all = real(0);
  #pragma unroll 1
  for (int p = 0; p < K; ++p) {
    const real rp = sig[p] / top;
    #pragma unroll 1
    for (int q = p; q < K; ++q) {
      const real w = rp * (sig[q] / top);
      SE d = seZero();
      #pragma unroll 1
      for (int i = 0; i < M; ++i) d = seDot(d, g[i + p * M], g[i + q * M]);
      const real sq = seNorm2(real(0), d) * (w * w);
      all += p == q ? sq : real(2) * sq;
      if (p != q) off += real(2) * sq;
    }
  }
  return off <= (real(K) * EPS) * (real(K) * EPS) * all;
}
// ||g_j||^2 after two passes of modified Gram-Schmidt against the columns perm[0 ... r - 1].
static __device__ real settleProject(SE* g, const int* perm, int M, int r, int j) {
  SE* y = g + j * M;
  #pragma unroll 1
  for (int pass = 0; pass < 2; ++pass)
    #pragma unroll 1
    for (int c = 0; c < r; ++c) {
      const SE* u = g + perm[c] * M;
      SE d = seZero();
      #pragma unroll 1
      for (int i = 0; i < M; ++i) d = seDot(d, u[i], y[i]);
      #pragma unroll 1
      for (int i = 0; i < M; ++i) y[i] = seAxpy(y[i], d, u[i]);
    }
  real nn = real(0);
  #pragma unroll 1
  for (int i = 0; i < M; ++i) nn = seNorm2(nn, y[i]);
  return nn;
}
static __device__ __noinline__ void settleColumns(SE* g, const real* sig, const int* perm, int M, int K, bool all) {
  #pragma unroll 1
  for (int r = 0; r < K; ++r) {
    const int j = perm[r];
    SE* y = g + j * M;
    bool fill = sig != nullptr && !(sig[j] > real(0));
    if (!fill && all) {
      real nrm = sqrtReal(settleProject(g, perm, M, r, j));
      if (nrm < real(0.5) && nrm > real(0)) {
        #pragma unroll 1
        for (int i = 0; i < M; ++i) y[i] = seDiv(y[i], nrm);
        nrm = sqrtReal(settleProject(g, perm, M, r, j));
      }
      if (nrm > real(0)) for (int i = 0; i < M; ++i) y[i] = seDiv(y[i], nrm);
      else fill = true;
    }
    if (!fill) continue;
    int best = 0;
    real bestNorm = real(-1);
    #pragma unroll 1
    for (int eu = 0; eu <= M; ++eu) {
      const int unit = eu < M ? eu : best;   // eu = M: the longest again, kept whatever its length
      #pragma unroll 1
      for (int i = 0; i < M; ++i) y[i] = seUnit(i == unit);
      const real nrm = sqrtReal(settleProject(g, perm, M, r, j));
      if (nrm > real(0.5) || eu == M) {
        #pragma unroll 1
        for (int i = 0; i < M; ++i) y[i] = seDiv(y[i], nrm);
        break;
      }
      if (nrm > bestNorm) { bestNorm = nrm; best = eu; }
    }
  }
}`;
}

/**
 * A warp design's end, after the sort and the normalisation (g, sig, perm, done and failed as
 * there; `guard` picks the matrix's one thread): the test where the sweeps did not settle (info
 * then from `done`), and, where G's columns are an output (`gOut`), their orthonormalisation or
 * the completion of the columns of zero singular values; then `barrier`.
 */
export function gesvdSettleCalls(guard: string, gOut: boolean, barrier: string): string {
  return `  // Where the sweeps did not settle: the reference's absolute test and G's columns made orthonormal.
  const bool swept = done;
  if (${guard} && !swept) done = settleGramOff(g, sig, M, K);
${gOut ? `  if (${guard}) settleColumns(g, sig, perm, M, K, !swept);\n` : ''}  ${barrier};`;
}
