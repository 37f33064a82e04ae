/**
 * Batched syev for n = 33 ... 512 (any n >= 1 where forced) by LAPACK's route, one thread block
 * per matrix: dsytd2 (Householder tridiagonalization, lower), dorgtr (Q formed in place
 * of the reflectors), dsteqr (implicit QL or QR with Wilkinson shifts on the tridiagonal, the
 * rotations applied to Q's rows), then the eigenvalues in ascending order with their columns.
 * Eigenvalues only: dsytd2, then bisection on the tridiagonal (dstebz's Sturm counts).
 *
 * Per matrix:
 * 1. Load the `uplo` triangle into a full symmetric n x n working matrix Z (float64, leading
 *    dimension n) in shared memory (`shared`) or in this block's slice of the global workspace. NaN
 *    or Inf in the triangle: info n + 2, NaN outputs, nothing else computed (the Jacobi designs'
 *    and the CPU reference's rule). Where the largest magnitude lies outside [2^-RANGE, 2^RANGE],
 *    Z is scaled by a power of two (exact), so squares and norms below neither overflow nor
 *    underflow; the eigenvalues are scaled back (this replaces dsteqr's per-block scaling).
 * 2. dsytd2 'L': for column i, the reflector of Z(i+2:n, i) (dlarfg: the tail's squared norm is a
 *    block sum, every thread then computes tau and beta alike), w = tau A22 v (a thread per row:
 *    coalesced column walks), w -= (tau / 2)(w'v) v, A22 -= v w' + w v' (a thread per row). The
 *    whole A22 is updated, both triangles, so the next matrix-vector product reads full columns.
 * 3. Vectors: dorgtr 'L' in place: reflector jj (its tail still in column jj) builds column jj + 1
 *    of Q, from the last to the first (dorg2r): y = Q' v by a warp per column, Q -= tau v y' by a
 *    thread per row. Row and column 0 of Q are e_1.
 * 4. dsteqr on (d, e): one thread (the producer, thread 0) runs the scalar iteration, exactly
 *    dsteqr's: the split test |e_i| <= eps sqrt|d_i| sqrt|d_i+1|, QL or QR by which end is smaller,
 *    the deflation test e_m^2 <= eps^2 |d_m| |d_m+1| + safmin, dlaev2 for 2 x 2 blocks, at most
 *    maxit n iterations (then info n + 1). With vectors, each rotation (c, s, j) goes into a shared
 *    buffer; the whole block applies a full buffer to Z = Q by rows (each row independent: no barrier
 *    between rotations), while the producer fills the other buffer (double buffering: the rotations
 *    reach Z in the order they were made, which is all dlasr needs).
 *    Values only: no Q and no QL; bisection by Sturm counts instead (dstebz), one eigenvalue per
 *    thread, all in parallel (BISECTION_VALUES below): never info n + 1.
 * 5. Eigenvalues ascending (ties by index), scaled back, into w; the columns of Z in that order
 *    over A (column-major, as LAPACK). Values only: A is never written.
 *
 * The split design for large n (params.split; generate-apply.ts has its model): stage 'record' is
 * this kernel's steps 1-3 with Z in the matrix's workspace slice, then step 4's chain by thread 0
 * writing its rotations to the slice (snippets.ts) instead of applying them, stopping with its state
 * saved where the buffer fills; stage 'finish' resumes such a chain as step 4 does here, then step 5.
 * Without `split` the source is this one-kernel design's, unchanged.
 *
 * Precision: float64 whatever the data's dtype (float32 data is widened on load and rounded once on
 * store, as the Jacobi block designs do), so float32 results carry float64 rounding.
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { blockReduceSource } from '../common/block-reduce.js';
import { cType, elementBytes, mathHelpers, precisionLetter, precisionPrelude } from '../common/precision.js';
import type { SyevTridiagParams } from './params.js';
import { BISECT_EIGENVALUE, COLUMN_STEPS, slicePointers, splitSlice, steinSlice } from './snippets.js';

/** The arithmetic (and shared memory and workspace element) of the kernel, whatever the data's dtype. */
export const TRIDIAG_COMPUTE = 'float64' as const;

/** Where the kernel's arrays live: bytes of dynamic shared memory and workspace elements per block. */
export interface TridiagLayout {
  /** Rotations per buffer (two buffers): a QL or QR sweep makes at most n - 1. */
  readonly cap: number;
  /** Reals in shared memory: Z where shared, then d, e, tau, v, w, 32 for reductions, the rotation buffers. */
  readonly sharedReals: number;
  /** Ints after the reals: the rotations' indices, the sort's permutation, 4 flags. */
  readonly sharedInts: number;
  readonly sharedBytes: number;
  /** Workspace elements (float64) per block: Z where it is not in shared memory. */
  readonly work: number;
}

export function tridiagLayout(p: Pick<SyevTridiagParams, 'n' | 'vectors' | 'shared' | 'split' | 'stein'>): TridiagLayout {
  const { n, vectors, shared, split, stein } = p;
  // The split design's record stage writes its rotations to the slice, the inverse-iteration
  // design makes none: no shared buffers.
  const cap = vectors && split?.stage !== 'record' && stein === undefined ? 2 * n : 0;
  const wSize = stein !== undefined ? steinSlice(n).slice : split === undefined ? n * n : splitSlice(n, split.cap).slice;
  const sharedReals = (shared ? wSize : 0) + 5 * n + 32 + 2 * 2 * cap;
  const sharedInts = 2 * cap + n + 4;
  return { cap, sharedReals, sharedInts, sharedBytes: sharedReals * elementBytes(TRIDIAG_COMPUTE) + sharedInts * 4, work: shared ? 0 : wSize };
}

/** Power-of-two scaling range: Z's largest magnitude is brought into [2^-RANGE, 2^RANGE]. */
const RANGE = 250;

/** The constants of dsteqr and dstebz (dlamch: eps = 2^-53, safmin = 2^-1022). */
const SCALARS = `constexpr real EPS = 1.1102230246251565e-16;
constexpr real EPS2 = EPS * EPS;
constexpr real SAFMIN = 2.2250738585072014e-308;
constexpr real MAXR = 1.7976931348623157e308;
constexpr real SAFMAX = 1.0 / SAFMIN;
constexpr real RTMIN = 1.4916681462400413e-154;   // sqrt(SAFMIN)
constexpr real RTMAX = 9.4807519081091774e153;    // sqrt(SAFMAX / 2)
static __device__ __forceinline__ real nanReal() { return __longlong_as_double(0x7ff8000000000000LL); }`;

/** The rotations of the QL iteration: dlartg (LAPACK 3.10's convention: r has f's sign, c >= 0) and dlaev2. */
const ROTATIONS = `// [c s; -s c] [f; g] = [r; 0] (dlartg).
static __device__ __forceinline__ void lartg(real f, real g, real& c, real& s, real& r) {
  if (g == real(0)) { c = real(1); s = real(0); r = f; return; }
  if (f == real(0)) { c = real(0); s = copysign(real(1), g); r = absReal(g); return; }
  const real f1 = absReal(f), g1 = absReal(g);
  if (f1 > RTMIN && f1 < RTMAX && g1 > RTMIN && g1 < RTMAX) {
    // One reciprocal square root (1 ulp) instead of a square root and a division: this is the
    // QL chain's critical path.
    const real h = f * f + g * g, inv = rsqrt(h);
    c = f1 * inv;
    s = (f > real(0) ? g : -g) * inv;   // g / r
    r = copysign(h * inv, f);
  } else {
    const real u = fmin(SAFMAX, fmax(SAFMIN, fmax(f1, g1)));
    const real fs = f / u, gs = g / u;
    const real d = sqrtReal(fs * fs + gs * gs), inv = real(1) / d;
    c = absReal(fs) * inv;
    s = (f > real(0) ? gs : -gs) * inv;
    r = copysign(d, f) * u;
  }
}
// Eigen-decomposition of [a b; b c] (dlaev2): rt1 the eigenvalue of larger magnitude, rt2 the
// other, (cs1, sn1) the unit eigenvector of rt1.
static __device__ __forceinline__ void laev2(real a, real b, real c, real& rt1, real& rt2, real& cs1, real& sn1) {
  const real sm = a + c, df = a - c, adf = absReal(df), tb = b + b, ab = absReal(tb);
  const real acmx = absReal(a) > absReal(c) ? a : c, acmn = absReal(a) > absReal(c) ? c : a;
  real rt;
  if (adf > ab) { const real q = ab / adf; rt = adf * sqrtReal(real(1) + q * q); }
  else if (adf < ab) { const real q = adf / ab; rt = ab * sqrtReal(real(1) + q * q); }
  else rt = ab * sqrtReal(real(2));
  int sgn1;
  if (sm < real(0)) { rt1 = real(0.5) * (sm - rt); sgn1 = -1; rt2 = (acmx / rt1) * acmn - (b / rt1) * b; }
  else if (sm > real(0)) { rt1 = real(0.5) * (sm + rt); sgn1 = 1; rt2 = (acmx / rt1) * acmn - (b / rt1) * b; }
  else { rt1 = real(0.5) * rt; rt2 = real(-0.5) * rt; sgn1 = 1; }
  int sgn2;
  real cs;
  if (df >= real(0)) { cs = df + rt; sgn2 = 1; } else { cs = df - rt; sgn2 = -1; }
  if (absReal(cs) > ab) { const real ct = -tb / cs; sn1 = real(1) / sqrtReal(real(1) + ct * ct); cs1 = ct * sn1; }
  else if (ab == real(0)) { cs1 = real(1); sn1 = real(0); }
  else { const real tn = -cs / tb; cs1 = real(1) / sqrtReal(real(1) + tn * tn); sn1 = tn * cs1; }
  if (sgn1 == sgn2) { const real tn = cs1; cs1 = -sn1; sn1 = tn; }
}`;

/**
 * dsteqr's iteration (0-based) as a resumable producer: `q` holds where it is (the next block's
 * start l1; inside a block, its current end l, its other end lend, QL where lend > l, else QR).
 * Returns true when every block has converged (or the iteration limit was reached: q.noconv);
 * false when fewer than N free slots are left in the rotation buffer of `cap` (a sweep makes at most
 * N - 1), to be called again with an emptied buffer (or, in the split design, by the finish kernel).
 */
const producer = (cap: string): string => `struct QlState { int l1, l, lend, jtot; bool inBlock, noconv; };
static __device__ __forceinline__ bool qlRun(QlState& q, real* __restrict__ d, real* __restrict__ e,
    real* __restrict__ rc, real* __restrict__ rs, int* __restrict__ ri, int& cnt) {
  for (;;) {
    if (VECTORS && cnt > ${cap} - N) return false;
    if (!q.inBlock) {
      // Where the matrix splits (dsteqr label 10).
      if (q.l1 >= N) return true;
      if (q.l1 > 0) e[q.l1 - 1] = real(0);
      int m = q.l1;
      for (; m < N - 1; ++m) {
        const real t = absReal(e[m]);
        if (t == real(0)) break;
        if (t <= (sqrtReal(absReal(d[m])) * sqrtReal(absReal(d[m + 1]))) * EPS) { e[m] = real(0); break; }
      }
      q.l = q.l1; q.lend = m; q.l1 = m + 1;
      if (q.lend == q.l) continue;
      // QL where the bottom end is larger in magnitude, else QR (the ends swapped).
      if (absReal(d[q.lend]) < absReal(d[q.l])) { const int t = q.l; q.l = q.lend; q.lend = t; }
      q.inBlock = true;
    }
    const int l = q.l, lend = q.lend;
    if (lend > l) {
      // QL: look for a small subdiagonal element.
      int m = lend;
      for (int mm = l; mm < lend; ++mm)
        if (e[mm] * e[mm] <= (EPS2 * absReal(d[mm])) * absReal(d[mm + 1]) + SAFMIN) { m = mm; break; }
      if (m < lend) e[m] = real(0);
      if (m == l) { q.l = l + 1; q.inBlock = q.l <= lend; continue; }   // eigenvalue d[l] found
      if (m == l + 1) {
        real rt1, rt2, c, s;
        laev2(d[l], e[l], d[l + 1], rt1, rt2, c, s);
        if (VECTORS) { rc[cnt] = c; rs[cnt] = s; ri[cnt] = l; ++cnt; }
        d[l] = rt1; d[l + 1] = rt2; e[l] = real(0);
        q.l = l + 2; q.inBlock = q.l <= lend;
        continue;
      }
      if (q.jtot == MAXIT) { q.noconv = true; return true; }
      ++q.jtot;
      real p = d[l];
      real g = (d[l + 1] - p) / (real(2) * e[l]);
      real r = hypot(g, real(1));
      g = d[m] - p + e[l] / (g + copysign(r, g));
      real s = real(1), c = real(1);
      p = real(0);
      // d[i], e[i] of the next step are loaded a step ahead (this step writes only d[i+1], e[i+1]).
      real ei = e[m - 1], di = d[m - 1], di1 = d[m];
      for (int i = m - 1; i >= l; --i) {
        const real en = i > l ? e[i - 1] : real(0), dn = i > l ? d[i - 1] : real(0);
        const real f = s * ei, b = c * ei;
        lartg(g, f, c, s, r);
        if (i != m - 1) e[i + 1] = r;
        g = di1 - p;
        r = (di - g) * s + real(2) * c * b;
        p = s * r;
        d[i + 1] = g + p;
        g = c * r - b;
        if (VECTORS) { rc[cnt] = c; rs[cnt] = -s; ri[cnt] = i; ++cnt; }
        di1 = di; di = dn; ei = en;
      }
      d[l] -= p;
      e[l] = g;
    } else {
      // QR: look for a small superdiagonal element.
      int m = lend;
      for (int mm = l; mm > lend; --mm)
        if (e[mm - 1] * e[mm - 1] <= (EPS2 * absReal(d[mm])) * absReal(d[mm - 1]) + SAFMIN) { m = mm; break; }
      if (m > lend) e[m - 1] = real(0);
      if (m == l) { q.l = l - 1; q.inBlock = q.l >= lend; continue; }
      if (m == l - 1) {
        real rt1, rt2, c, s;
        laev2(d[l - 1], e[l - 1], d[l], rt1, rt2, c, s);
        if (VECTORS) { rc[cnt] = c; rs[cnt] = s; ri[cnt] = l - 1; ++cnt; }
        d[l - 1] = rt1; d[l] = rt2; e[l - 1] = real(0);
        q.l = l - 2; q.inBlock = q.l >= lend;
        continue;
      }
      if (q.jtot == MAXIT) { q.noconv = true; return true; }
      ++q.jtot;
      real p = d[l];
      real g = (d[l - 1] - p) / (real(2) * e[l - 1]);
      real r = hypot(g, real(1));
      g = d[m] - p + e[l - 1] / (g + copysign(r, g));
      real s = real(1), c = real(1);
      p = real(0);
      real ei = e[m], di = d[m], di1 = d[m + 1];
      for (int i = m; i <= l - 1; ++i) {
        const real en = i < l - 1 ? e[i + 1] : real(0), dn = i < l - 1 ? d[i + 2] : real(0);
        const real f = s * ei, b = c * ei;
        lartg(g, f, c, s, r);
        if (i != m) e[i - 1] = r;
        g = di - p;
        r = (di1 - g) * s + real(2) * c * b;
        p = s * r;
        d[i] = g + p;
        g = c * r - b;
        if (VECTORS) { rc[cnt] = c; rs[cnt] = s; ri[cnt] = i; ++cnt; }
        di = di1; di1 = dn; ei = en;
      }
      d[l] -= p;
      e[l - 1] = g;
    }
  }
}`;

/** The entry name: precision of the data, operand form, n, uplo, vectors, threads, storage, iteration limit, split stage and its buffer. */
export const tridiagEntry = (p: SyevTridiagParams): string =>
  `syev_tridiag_${precisionLetter(p.dtype)}_${kindTag(p.kind)}_n${p.n}_${p.uplo === 'lower' ? 'l' : 'u'}${p.vectors ? 'v' : 'n'}_t${p.threads}_${p.shared ? 's' : 'g'}_m${p.maxit}${
    p.split === undefined ? '' : `_${p.split.stage === 'record' ? 'rec' : 'fin'}${p.split.cap}`}${p.stein === undefined ? '' : `_stein_${p.stein}`}`;

export function syevTridiagSource(p: SyevTridiagParams): KernelSource {
  const { dtype, n, uplo, vectors, kind, threads, shared, maxit, split, stein } = p;
  if (split !== undefined && (!vectors || shared)) throw new Error('the split design has vectors and Z in the workspace');
  if (stein !== undefined && (shared || split !== undefined)) throw new Error('the inverse-iteration design has Z in the workspace and no split');
  const l = tridiagLayout(p);
  const entry = tridiagEntry(p);
  const io = dtype === TRIDIAG_COMPUTE ? 'real' : cType(dtype);
  const prelude = `${precisionPrelude(TRIDIAG_COMPUTE)}
${mathHelpers(TRIDIAG_COMPUTE)}
constexpr int N = ${n};
constexpr int T = ${threads};
constexpr int LDZ = N;
constexpr long long WORK = ${l.work};   // workspace elements per block (0: Z in shared memory)
constexpr bool VECTORS = ${vectors};
constexpr int CAP = ${l.cap};   // rotations per buffer
${split === undefined ? '' : `constexpr int RCAP = ${split.cap};   // rotations recorded per matrix (the slice's buffer)\n`}constexpr int MAXIT = ${maxit} * N;   // QL/QR iterations in all (dsteqr's MAXIT * N)
constexpr int RANGE = ${RANGE};
${SCALARS}
${blockReduceSource('sum')}
${blockReduceSource('max')}
${COLUMN_STEPS}
${vectors && stein === undefined ? `${ROTATIONS}\n${producer(split?.stage === 'record' ? 'RCAP' : 'CAP')}` : ''}${vectors ? '' : BISECT_EIGENVALUE}

`;
  const head = `extern "C" __global__ void __launch_bounds__(T, 1) ${entry}(
    ${operandParameters('A', kind, true, io)},
    ${operandParameters('W', kind, true, io)},
    real* __restrict__ work, long long first,
    int* __restrict__ info, const int* __restrict__ index, int count) {
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const long long mat = first + blockIdx.x;
  if (mat >= count) return;
  extern __shared__ __align__(16) unsigned char smem[];
  real* sh = (real*)smem;
  real* Z = ${shared ? 'sh' : 'work + (long long)blockIdx.x * WORK'};
  real* d = sh + ${shared ? n * n : 0};
  real* e = d + N;
  real* taus = e + N;
  real* vv = taus + N;
  real* ww = vv + N;
  real* red = ww + N;
  real* rc = red + 32;         // two buffers of CAP rotations: cosines,
  real* rs = rc + 2 * CAP;     // sines,
  int* ri = (int*)(rs + 2 * CAP);   // and the first of the two columns each rotates
  int* perm = ri + 2 * CAP;
  int* flags = perm + N;       // [0], [1]: rotations in each buffer; [2]: producer finished; [3]: not converged
  ${io}* g = ${matrixPointer('A', kind, 'mat')};

`;
  const load = `  // 1. The ${uplo} triangle mirrored into Z; NaN or Inf fails the matrix.
  int bad = 0;
  real amax = real(0);
  for (int idx = tid; idx < N * N; idx += T) {
    const int i = idx % N, j = idx / N;
    const real x = (${uplo === 'lower' ? 'i >= j' : 'i <= j'}) ? (real)g[i + (long long)j * ldA] : (real)g[j + (long long)i * ldA];
    if (!(absReal(x) <= MAXR)) bad = 1;
    else amax = fmax(amax, absReal(x));
    Z[idx] = x;
  }
  const bool failed = __syncthreads_or(bad) != 0;
  amax = blockMax(amax, red);
  int sc = 0;   // Z holds A 2^-sc
  if (!failed && amax > real(0)) {
    const int lg = ilogb(amax);
    if (lg > RANGE || lg < -RANGE) sc = lg;
  }
  if (sc != 0)
    for (int idx = tid; idx < N * N; idx += T) Z[idx] = ldexp(Z[idx], -sc);
  __syncthreads();

`;
  const reduce = `  bool noconv = false;
  if (!failed) {
    // 2. dsytd2 'L': reflector i annihilates Z(i+2:N, i); d, e the tridiagonal, taus the scalars.
    for (int i = 0; i < N - 1; ++i) {
      real beta;
      const real tau = columnReflector(Z, vv, red, i, beta);
      if (tid == 0) { vv[i + 1] = real(1); d[i] = Z[i + i * LDZ]; e[i] = beta; taus[i] = tau; }
      if (tau == real(0)) continue;   // H = I (uniform over the block)
      __syncthreads();   // v complete
      // w = tau A22 v (rows i+1 ... N-1; four partial sums against the FMA latency).
      real wv = real(0);
      for (int r = i + 1 + tid; r < N; r += T) {
        const real wr = tau * rowDotV(Z, vv, r, i + 1);
        ww[r] = wr;
        wv = fmaReal(wr, vv[r], wv);
      }
      const real half = real(-0.5) * tau * blockSum(wv, red);   // its barriers also publish ww
      // w += half v; A22 -= v w' + w v'.
      for (int r = i + 1 + tid; r < N; r += T) {
        const real vr = vv[r], wr = fmaReal(half, vr, ww[r]);
        for (int k = i + 1; k < N; ++k) {
          const real vk = vv[k], wk = fmaReal(half, vk, ww[k]);
          Z[r + k * LDZ] -= fmaReal(vr, wk, wr * vk);
        }
      }
      __syncthreads();
    }
    if (tid == 0) { d[N - 1] = Z[N - 1 + (N - 1) * LDZ]; if (N > 1) e[N - 1] = real(0); }
    __syncthreads();
`;
  const store = (vecs: string): string => `  // 5. Ascending order by rank (ties by index): perm[rank] = j.
  if (!failed)
    for (int j = tid; j < N; j += T) {
      const real dj = d[j];
      int rank = 0;
      for (int k = 0; k < N; ++k) rank += (d[k] < dj || (d[k] == dj && k < j)) ? 1 : 0;
      perm[rank] = j;
    }
  __syncthreads();
  if (tid == 0) info[index ? index[mat] : mat] = failed ? N + 2 : (noconv ? N + 1 : 0);
  ${io}* w = ${matrixPointer('W', kind, 'mat')};
  for (int j = tid; j < N; j += T) w[j] = failed ? nanReal() : (${io})ldexp(d[perm[j]], sc);
${vectors ? `  for (int idx = tid; idx < N * N; idx += T) {
    const int i = idx % N, j = idx / N;
    g[i + (long long)j * ldA] = failed ? nanReal() : (${io})${vecs}[i + perm[j] * LDZ];
  }` : ''}
}
`;
  const steinSteps = {
    reduce: `${slicePointers(n, 0)}${load}${reduce}\n  }\n${SAVE}${steinHandover(n)}}\n`,
    load: `${slicePointers(n, 0)}${load}${STEIN_LOADED}}\n`,
    store: `${slicePointers(n, 0)}${steinLoad(n)}${store('V')}`,
  };
  const steps = stein !== undefined
    ? steinSteps[stein]
    : split === undefined
      ? `${load}${reduce}${vectors ? FORM_Q : ''}\n${vectors ? QL_VECTORS : BISECTION_VALUES}\n  }\n${store('Z')}`
      : split.stage === 'record'
        ? `${slicePointers(n, split.cap)}${load}${reduce}${FORM_Q}\n${RECORD}\n  }\n${SAVE}}\n`
        : `${slicePointers(n, split.cap)}${FINISH_LOAD}${store('Z')}`;
  const source = `${prelude}${head}${steps}`;
  return { name: `${entry}.cu`, source, entry };
}

/** 3. dorgtr 'L' in place of the reflectors (dorg2r over Z(1:N, 1:N), reflector jj in column jj). */
const FORM_Q = `    // 3. Q = H(0) ... H(N-2) over Z, from the last reflector to the first.
    for (int jj = N - 2; jj >= 0; --jj) {
      const real tau = taus[jj];
      for (int r = jj + 1 + tid; r < N; r += T) vv[r] = r == jj + 1 ? real(1) : Z[r + jj * LDZ];
      __syncthreads();
      if (tau != real(0)) {
        // y = tau Q(jj+1:N, c)' v for the columns c > jj + 1 (a warp per column), then Q -= v y'.
        for (int c = jj + 2 + warp; c < N; c += T / 32) {
          real acc = real(0);
          for (int r = jj + 1 + lane; r < N; r += 32) acc = fmaReal(vv[r], Z[r + c * LDZ], acc);
          acc = groupSum(acc, 32);
          if (lane == 0) ww[c] = tau * acc;
        }
        __syncthreads();
        for (int r = jj + 1 + tid; r < N; r += T) {
          const real vr = vv[r];
          for (int c = jj + 2; c < N; ++c) Z[r + c * LDZ] -= vr * ww[c];
        }
      }
      // Column jj + 1 of Q: -tau v below the diagonal, 1 - tau on it, zero above (row 0 below).
      for (int r = 1 + tid; r < N; r += T)
        Z[r + (jj + 1) * LDZ] = r < jj + 1 ? real(0) : (r == jj + 1 ? real(1) - tau : -tau * vv[r]);
      __syncthreads();
    }
    for (int r = tid; r < N; r += T) { Z[r] = r == 0 ? real(1) : real(0); Z[r * LDZ] = r == 0 ? real(1) : real(0); }
    __syncthreads();`;

/**
 * 4. dsteqr with vectors: the producer fills one buffer while the block applies the other to Z's rows,
 * the chain starting from `init` (a QlState: the start, or where the split design's record stage stopped).
 */
const qlVectors = (init: string): string => `    // 4. dsteqr: thread 0 makes the rotations, every thread applies them to its rows of Z = Q.
    // Buffer 0 starts empty: the first round only fills buffer 1 (one call site of qlRun, inlined).
    QlState q = ${init};
    if (tid == 0) { flags[0] = 0; flags[1] = 0; flags[2] = 0; }
    __syncthreads();
    for (int b = 0;; b ^= 1) {
      const int cnt = flags[b];
      const bool fin = flags[2] != 0;
      __syncthreads();   // all have read the flags before the producer writes them again
      if (tid == 0 && !fin) {
        int next = 0;
        const int o = (b ^ 1) * CAP;
        const bool done = qlRun(q, d, e, rc + o, rs + o, ri + o, next);
        flags[b ^ 1] = next;
        flags[2] = done ? 1 : 0;
      }
      // Buffer b in order, row by row: [z_j z_j+1] := [c z_j + s z_j+1, c z_j+1 - s z_j] (dlasr 'R', 'V').
      // Consecutive rotations of a sweep share a column (QL: j then j - 1, QR: j then j + 1): that
      // column stays in a register (cc, cv), so a rotation loads and stores one element, not two.
      const int o = b * CAP;
      for (int r = tid; r < N; r += T) {
        real* zr = Z + r;
        int cc = -1;
        real cv = real(0);
        for (int k = 0; k < cnt; ++k) {
          const int j = ri[o + k];
          const real c = rc[o + k], s = rs[o + k];
          real x, t;
          if (cc == j) { x = cv; t = zr[(j + 1) * LDZ]; }
          else if (cc == j + 1) { x = zr[j * LDZ]; t = cv; }
          else {
            if (cc >= 0) zr[cc * LDZ] = cv;
            x = zr[j * LDZ];
            t = zr[(j + 1) * LDZ];
          }
          const real t2 = c * t - s * x, x2 = s * t + c * x;
          if (k + 1 < cnt && ri[o + k + 1] == j + 1) { zr[j * LDZ] = x2; cc = j + 1; cv = t2; }
          else { zr[(j + 1) * LDZ] = t2; cc = j; cv = x2; }
        }
        if (cc >= 0) zr[cc * LDZ] = cv;
      }
      __syncthreads();
      if (fin) break;
    }
    noconv = q.noconv;   // thread 0's; shared below
    if (tid == 0) flags[3] = noconv ? 1 : 0;
    __syncthreads();
    noconv = flags[3] != 0;`;
const QL_VECTORS = qlVectors('{0, 0, 0, 0, false, false}');

/**
 * The split design's record stage, step 4: the same chain (the same rotations in the same order, the
 * same iteration limit) by thread 0, each rotation written to the slice instead of applied; where
 * fewer than N slots are left (qlRun returns false), the chain's state goes to the header for the
 * finish kernel. The rest of the block waits (the apply kernel does the work the one-kernel design
 * did here).
 */
const RECORD = `    // 4. dsteqr's chain by thread 0, its rotations recorded for the apply kernel.
    if (tid == 0) {
      QlState q = {0, 0, 0, 0, false, false};
      int cnt = 0;
      const bool done = qlRun(q, d, e, grc, grs, gri, cnt);
      hdr[0] = cnt; hdr[1] = done ? 1 : 0;
      hdr[4] = q.l1; hdr[5] = q.l; hdr[6] = q.lend; hdr[7] = q.jtot; hdr[8] = q.inBlock ? 1 : 0; hdr[9] = q.noconv ? 1 : 0;
    }
    __syncthreads();`;

/** The record stage's end: d, e, the scale and the failure into the slice (a failed matrix records nothing). */
const SAVE = `  // The state the apply and finish kernels read.
  for (int i = tid; i < N; i += T) { sd[i] = d[i]; se[i] = e[i]; }
  if (tid == 0) {
    hdr[2] = failed ? 1 : 0; hdr[3] = sc;
    if (failed) { hdr[0] = 0; hdr[1] = 1; hdr[9] = 0; }
  }
`;

/**
 * The inverse-iteration design's 'reduce' stage ends as the record stage does (d, e, the scale and the
 * failure saved by SAVE) with no chain: nothing recorded, the chain finished, converged so far (the
 * vectors kernel sets hdr[9] where an eigenvector's iteration did not converge); the reflectors stay
 * in Z for ormqr, their scalars go to the slice.
 */
const steinHandover = (n: number): string => `  if (tid == 0) { hdr[0] = 0; hdr[1] = 1; hdr[9] = 0; }
  if (!failed) for (int i = tid; i < N - 1; i += T) Z[${steinSlice(n).tau} + i] = taus[i];
`;

/**
 * The inverse-iteration design's 'load' stage: step 1 alone, A (scaled) in the slice's Z for the
 * blocked reduction's panels (generate-panel.ts), which write d, e and tau; e_{n-1} = 0.
 */
const STEIN_LOADED = `  if (tid == 0) { hdr[0] = 0; hdr[1] = 1; hdr[2] = failed ? 1 : 0; hdr[3] = sc; hdr[9] = 0; se[N - 1] = real(0); }
`;

/**
 * The inverse-iteration design's 'store' stage, in place of steps 1-4: the failure, the scale, the
 * convergence and the eigenvalues (the values kernel's lam) from the slice; the vectors are V.
 */
const steinLoad = (n: number): string => `  // 1-4 ran in the reduce, values, vectors and ormqr launches: their results from the slice.
  const real* V = Z + ${steinSlice(n).v};
  const real* lam = Z + ${steinSlice(n).lam};
  const bool failed = hdr[2] != 0;
  const int sc = hdr[3];
  const bool noconv = hdr[9] != 0;
  for (int i = tid; i < N; i += T) d[i] = lam[i];
  __syncthreads();
`;

/**
 * The split design's finish stage, in place of steps 1-4: the state from the slice; a chain that
 * stopped with its buffer full resumes here the one-kernel way (its rotations applied by this block
 * as they are made, after the apply kernel's: stream order keeps them in sequence), then step 5.
 */
const FINISH_LOAD = `  // 1-3 and the recorded part of 4 ran in the record and apply kernels: their state from the slice.
  const bool failed = hdr[2] != 0;
  const int sc = hdr[3];
  bool noconv = hdr[9] != 0;
  for (int i = tid; i < N; i += T) { d[i] = sd[i]; e[i] = se[i]; }
  __syncthreads();
  if (!failed && hdr[1] == 0) {
${qlVectors('{hdr[4], hdr[5], hdr[6], hdr[7], hdr[8] != 0, false}')}
  }
`;

/**
 * 4. Values only: bisection by Sturm counts (LAPACK dstebz / dlaebz), eigenvalue k by thread k, all
 * in parallel (QL's chain is one thread's ~n^2 dependent rotations; bisection is ~60 counts of n
 * steps per thread). The interval: Gershgorin's, widened as dstebz does; the count's pivot guard
 * pivmin = safmin max(1, max e_i^2); the interval halved until its ends are adjacent doubles or
 * its width is 2^-60 tnorm, so the error is the counts' own (a backward error of a few eps ||T||,
 * as QL's) plus an ulp. T = 0: the eigenvalues are d (zeros), exactly.
 */
const BISECTION_VALUES = `    // 4. Eigenvalues by bisection: Gershgorin's interval, e^2 into taus (free now).
    real gl = MAXR, gu = -MAXR, e2max = real(0);
    for (int i = tid; i < N; i += T) {
      const real ei = i < N - 1 ? absReal(e[i]) : real(0), em = i > 0 ? absReal(e[i - 1]) : real(0);
      gl = fmin(gl, d[i] - em - ei);
      gu = fmax(gu, d[i] + em + ei);
      if (i < N - 1) { taus[i] = e[i] * e[i]; e2max = fmax(e2max, taus[i]); }
    }
    gl = -blockMax(-gl, red);   // its barriers also publish taus
    gu = blockMax(gu, red);
    e2max = blockMax(e2max, red);
    const real pivmin = SAFMIN * fmax(real(1), e2max);
    const real tnorm = fmax(absReal(gl), absReal(gu));
    const real widen = real(2.1) * (real(2) * EPS * N * tnorm + real(2) * pivmin);
    gl -= widen;
    gu += widen;
    for (int k = tid; k < N; k += T) ww[k] = tnorm > real(0) ? bisectEigenvalue(d, taus, 0, N - 1, k, gl, gu, pivmin, tnorm) : d[k];
    __syncthreads();
    for (int k = tid; k < N; k += T) d[k] = ww[k];
    __syncthreads();`;
