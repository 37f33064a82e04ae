/**
 * Batched gesvd for max(m, n) <= 32 with G and V in registers: one-sided (Hestenes) Jacobi, T lanes
 * a matrix (the power of two >= max(M, N2)), lane i holding row i of G (M x K: A, or A^T where
 * m < n, as in the warp design) and row i of V (N2 x N2); 32 / T matrices a warp.
 *
 * Why: the shared-memory warp design (generate-warp.ts) has one lane a pair sum its column pair's
 * three dot products over M rows from shared memory, then all lanes rotate G and V through shared
 * memory: every element moves through shared memory three times a round. Here, as in the syev rows
 * design (generate-rows.ts), the rounds run in a frame that turns one slot a round (slot j < N2 - 1
 * holds column (j + r) mod (N2 - 1) in round r, slot N2 - 1 column N2 - 1), in which the circle
 * tournament's pairs are the fixed register slots (k, N2 - 1 - k); the turn renames registers and
 * moves no data. Rotating G and V is then register arithmetic on the lane's own rows; what crosses
 * lanes is the pairs' sums (alpha = ||g_p||^2, beta = ||g_q||^2, gamma = g_p . g_q) over the rows.
 *
 * The sums, all HALF pairs of a round at once: each lane has 3 HALF products of its row; P = HALF
 * rounded up to a power of two (P <= T / 2). A reduce-scatter butterfly halves the pairs a lane
 * carries each step (offsets T / 2 ... T / P; at each, a lane keeps the half its offset bit picks
 * and sends the other half to its partner): 3 (P / 2 + P / 4 + ... + 1) = 3 (P - 1) shuffles, after
 * which lane tid holds pair tid / (T / P)'s sums over T / P lane groups; an all-reduce over the last
 * log2(T / P) offsets finishes them: 3 log2(T / P) more. Float64 32 x 32: 45 + 3 = 48 shuffles a
 * round, where an all-reduce of every pair's sums would take 3 HALF log2 T = 240 and a reduction to
 * one lane per pair as many. The first step is fused with the products (each lane forms the products
 * it keeps and those it sends, 3 P values live instead of 3 P products and selects of them). Then the
 * first lane of each pair's group computes (c, s) and publishes it in shared memory; every lane
 * reads the HALF rotations (broadcast loads: cheaper than 2 HALF shuffles) and applies them to its
 * registers. (Keeping alpha and beta by their update formulas, as the syev designs keep the
 * diagonal, would leave gamma alone to reduce, P - 1 + log2(T / P) shuffles a round, but would
 * change the warp design's numerics: it recomputes the norms every round; not done.)
 *
 * Same rules as the warp design and the CPU reference (cpu/lapack/jacobi.ts): G scaled by a power
 * of two into range first (gesvdScale), a pair rotates while |gamma| > sqrt(M) eps sqrt(alpha)
 * sqrt(beta), `maxSweeps` sweeps at most (then the absolute test of common/gesvd-settle.ts, info
 * K + 1 where it fails too), NaN or Inf in A: info K + 2 and NaN outputs (A is never written);
 * singular values descending (ties by index), U's and VT's vectors in that order, G's columns
 * divided by their norms and those of zero singular values completed as the warp design does, and
 * the sweeps that did not settle ended as there (through shared memory: a rare path). c from the
 * reciprocal square root, as the syev rows design (within an ulp or two of the warp design's division and square root).
 * Computed in the data's precision, as the warp design.
 */
import type { KernelSource } from '../../runtime/types.js';
import { matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { gesvdSettleSource } from '../common/gesvd-settle.js';
import { GROUP_MAX, WARP_SLOT } from '../common/jacobi-rotation.js';
import { rowsFrameTurn } from '../common/rows-frame.js';
import { ROWS_ROTATION } from '../common/rows-rotation.js';
import type { GesvdRowsParams } from './params.js';
import { GESVD_TEST, gesvdDims, gesvdRange, gesvdScale, gesvdTag, jacobiPrelude, pairRotation } from './snippets.js';
import { cudaMath } from '../../../core/dtype-table.js';

/** Warps per block of the gesvd rows design. */
export const GESVD_ROWS_WARPS = 4;

const nextPow2 = (x: number): number => 2 ** Math.ceil(Math.log2(Math.max(1, x)));

/**
 * The gesvd rows design's shape for an m x n problem: lanes a matrix (T, a power of two holding
 * every row of G and of V), P (the round's pairs rounded up to a power of two), matrices a warp and
 * a block.
 */
export function gesvdRowsShape(m: number, n: number): { readonly lanes: number; readonly pairs: number; readonly perWarp: number; readonly perBlock: number } {
  const big = Math.max(m, n);
  const k = Math.min(m, n);
  const n2 = k + (k & 1);
  const lanes = nextPow2(Math.max(2, big, n2));
  const perWarp = 32 / lanes;
  return { lanes, pairs: nextPow2(n2 / 2), perWarp, perBlock: perWarp * GESVD_ROWS_WARPS };
}

/** The reference's test, for a matrix still sweeping (a finished one publishes the identity). */
const ROWS_TEST = { ...GESVD_TEST, rotates: `!done && ${GESVD_TEST.rotates}` } as const;

/** The round's pair sums (alpha, beta, gamma) into al[0], be[0], ga[0]: lane tid's pair is tid / (T / P). */
function pairSums(lanes: number, pairs: number): string {
  // The other reduce-scatter steps, written out (a rolled loop over them left the sums in local memory):
  // len pairs to len / 2 at offset (T / P) (len / 2).
  const steps: string[] = [];
  for (let len = pairs / 2; len > 1; len /= 2) {
    const o = (lanes / pairs) * (len / 2);
    steps.push(`      {
        const bool up = (tid & ${o}) != 0;
        #pragma unroll
        for (int k = 0; k < ${len / 2}; ++k) {
          const real sa = __shfl_xor_sync(FULL, up ? al[k] : al[k + ${len / 2}], ${o});
          const real sb = __shfl_xor_sync(FULL, up ? be[k] : be[k + ${len / 2}], ${o});
          const real sc = __shfl_xor_sync(FULL, up ? ga[k] : ga[k + ${len / 2}], ${o});
          al[k] = (up ? al[k + ${len / 2}] : al[k]) + sa;
          be[k] = (up ? be[k + ${len / 2}] : be[k]) + sb;
          ga[k] = (up ? ga[k + ${len / 2}] : ga[k]) + sc;
        }
      }`);
  }
  const first = pairs === 1
    ? `      real al[1], be[1], ga[1];
      {
        const real x = g[0], y = g[N2 - 1];
        al[0] = x * x; be[0] = y * y; ga[0] = x * y;
      }`
    : `      // Step 1 (offset T / 2) fused with the products: pairs k and k + P / 2 (zero past HALF); the lane
      // whose offset bit is set keeps the upper one.
      real al[P / 2], be[P / 2], ga[P / 2];
      {
        const bool up = (tid & (T / 2)) != 0;
        #pragma unroll
        for (int k = 0; k < P / 2; ++k) {
          const int h = k + P / 2;
          const real xl = g[k], yl = g[N2 - 1 - k];
          const real xh = h < HALF ? g[h] : real(0), yh = h < HALF ? g[N2 - 1 - h] : real(0);
          const real xs = up ? xl : xh, ys = up ? yl : yh;
          const real xk = up ? xh : xl, yk = up ? yh : yl;
          const real sa = __shfl_xor_sync(FULL, xs * xs, T / 2);
          const real sb = __shfl_xor_sync(FULL, ys * ys, T / 2);
          const real sc = __shfl_xor_sync(FULL, xs * ys, T / 2);
          al[k] = fmaReal(xk, xk, sa);
          be[k] = fmaReal(yk, yk, sb);
          ga[k] = fmaReal(xk, yk, sc);
        }
      }
${steps.join('\n')}`;
  return `${first}
      // All-reduce over the T / P lanes that hold the pair (the same sums, to the bit, on each).
      #pragma unroll
      for (int o = T / (2 * P); o > 0; o >>= 1) {
        al[0] += __shfl_xor_sync(FULL, al[0], o);
        be[0] += __shfl_xor_sync(FULL, be[0], o);
        ga[0] += __shfl_xor_sync(FULL, ga[0], o);
      }`;
}

export function gesvdRowsSource(p: GesvdRowsParams): KernelSource {
  const { dtype, m, n, wantU, wantVt, kind, maxSweeps } = p;
  const tall = m >= n;
  const needV = tall ? wantVt : wantU;
  const gOut = tall ? wantU : wantVt;
  const { lanes, pairs, perBlock } = gesvdRowsShape(m, n);
  const entry = `gesvd_rows_${gesvdTag(p)}_s${maxSweeps}`;
  const V = (line: string): string => (needV ? line : '');
  const ldexp = cudaMath(dtype, 'ldexp');
  /**
   * Column j of G or V to output column rank(j) of U (U[i, r]: lane i's entry) or row rank(j) of VT
   * (VT[r, i]: lane i's), where the output wants it: from G for U where m >= n and VT where m < n, else from V.
   */
  const columnsOut = (out: 'U' | 'V', from: 'g' | 'v'): string => {
    if (!(out === 'U' ? wantU : wantVt)) return '';
    const rows = (from === 'g') ? 'M' : 'K';
    const at = out === 'U' ? 'tid + (long long)rj * ldU' : 'rj + (long long)tid * ldV';
    const name = out === 'U' ? 'uo' : 'vo';
    return `  {
    real* ${name} = active ? ${matrixPointer(out, kind, 'mat')} : nullptr;
    #pragma unroll
    for (int j = 0; j < K; ++j) {
      const int rj = __shfl_sync(FULL, rank, base + j);
      if (active && tid < ${rows}) ${name}[${at}] = failed ? nanReal() : ${from}[j];
    }
  }`;
  };
  // G through shared memory where a matrix's sweeps did not settle (the reference's absolute test and,
  // where G's columns are an output, their orthonormalisation: common/gesvd-settle.ts) or a zero
  // singular value's column is to be completed; where G is an output it goes through shared memory
  // on every path, so that none of it is live across the serial code (whose division and square root
  // calls would spill it: 30-50 bytes at float64 9 and 16).
  const settle = `  ${gOut ? '{' : 'if (__any_sync(FULL, complete)) {'}
    real* const gs = sG + slot * (M * K);
    #pragma unroll
    for (int j = 0; j < K; ++j) if (${gOut ? '' : 'complete && '}tid < M) gs[tid + j * M] = g[j];
    __syncwarp();
    if (settle && tid == 0) done = settleGramOff(gs, sSig + slot * K, M, K);
${gOut ? `    if (complete && tid == 0) settleColumns(gs, sSig + slot * K, sPerm + slot * K, M, K, !swept);
    __syncwarp();
    #pragma unroll
    for (int j = 0; j < K; ++j) g[j] = tid < M ? gs[tid + j * M] : real(0);
` : ''}  }`;
  const source = `${jacobiPrelude(dtype)}
${gesvdDims(m, n)}
constexpr int T = ${lanes};              // lanes a matrix: a lane per row of G and of V
constexpr int MPB = ${perBlock};            // matrices a block
constexpr int P = ${pairs};              // HALF rounded up to a power of two (P <= T / 2)
constexpr int MAX_SWEEPS = ${maxSweeps};
${gesvdRange(dtype)}
${ROWS_ROTATION}
${gesvdSettleSource(false)}

extern "C" __global__ void __launch_bounds__(${32 * GESVD_ROWS_WARPS}) ${entry}(
    ${operandParameters('A', kind, false)},
    ${operandParameters('S', kind, true)},
    ${operandParameters('U', kind, true)},
    ${operandParameters('V', kind, true)},
    int* __restrict__ info, const int* __restrict__ index, int count) {
  // (c, s) of each of a round's pairs (slots k, N2 - 1 - k), by the matrix.
  __shared__ Rotation sRot[MPB * HALF];
  // G's normalised columns, the singular values and their order, where the sweeps did not settle or
  // a zero singular value's column is completed.
  __shared__ real sG[MPB * M * K];
  __shared__ real sSig[MPB * K];
  __shared__ int sPerm[MPB * K];
${WARP_SLOT}
  const int base = lane & ~(T - 1);
  Rotation* rot = sRot + slot * HALF;
  const real tol = sqrtReal(real(M)) * EPS;

  // Row tid of G (zero past M rows and K columns) and of V := I.
  real g[N2];
${V('  real v[N2];')}
  int bad = 0;
  real amax = real(0);
  {
    // Only a matrix's lanes form its pointer (a list batch's pointer array holds count entries).
    const real* ga = active ? ${matrixPointer('A', kind, 'mat')} : nullptr;
    #pragma unroll
    for (int j = 0; j < N2; ++j) {
      real x = real(0);
      if (active && tid < M && j < K) x = ga[${tall ? 'tid + (long long)j * ldA' : 'j + (long long)tid * ldA'}];
      if (!(absReal(x) <= MAXR)) bad = 1;
      else amax = amax > absReal(x) ? amax : absReal(x);
      g[j] = x;
${V('      v[j] = j == tid ? real(1) : real(0);')}
    }
  }
  const bool failed = (__ballot_sync(FULL, bad) & group) != 0u;
${GROUP_MAX}
${gesvdScale(dtype, 'active && e != 0', (f) => `for (int j = 0; j < N2; ++j) g[j] = ${f}(g[j], -e);`)}
  bool done = !active || failed || K < 2;
  for (int sweep = 0; sweep < MAX_SWEEPS; ++sweep) {
    if (__all_sync(FULL, done)) break;
    int rotated = 0;
    #pragma unroll 1
    for (int r = 0; r < N2 - 1; ++r) {
${pairSums(lanes, pairs)}
      // The lane's pair's rotation; the first lane of the pair's group publishes it.
      {
        const int k = tid / (T / P);
        const real alpha = al[0], beta = be[0], gamma = ga[0];
${pairRotation(8, ROWS_TEST, [], ['if (k < HALF && (tid & (T / P - 1)) == 0) rot[k] = Rotation{c, s};'], 'rsqrt')}
      }
      __syncwarp();
      // G := G J and V := V J on the lane's rows, pair k on the slots (k, N2 - 1 - k).
      #pragma unroll
      for (int k = 0; k < HALF; ++k) {
        const Rotation jk = rot[k];
        rotSlots(g[k], g[N2 - 1 - k], jk.c, jk.s);
${V('        rotSlots(v[k], v[N2 - 1 - k], jk.c, jk.s);')}
      }
      // The next round's frame: slot j takes slot j + 1's column, slot N2 - 2 slot 0's (a renaming of
      // registers). After N2 - 1 rounds, at the sweep's end, slot j holds column j.
${rowsFrameTurn('real', 'g', needV ? 'v' : undefined)}
      __syncwarp();
    }
    if ((__ballot_sync(FULL, rotated) & group) == 0u) done = true;
  }
  // Column norms (an all-reduce over the matrix's lanes, the same on each): lane j keeps sigma_j;
  // G's columns divided by their norms where not zero.
  real sj = real(0);
  bool zero = false;
  #pragma unroll
  for (int j = 0; j < K; ++j) {
    real x = g[j] * g[j];
    #pragma unroll
    for (int o = T / 2; o > 0; o >>= 1) x += __shfl_xor_sync(FULL, x, o);
    const real sg = sqrtReal(x);
    if (j == tid) sj = sg;
    if (sg > real(0)) g[j] /= sg;
    else zero = true;
  }
  // Descending order by rank (ties by index); a failed matrix keeps its order (NaN outputs).
  int rank = 0;
  #pragma unroll
  for (int k = 0; k < K; ++k) {
    const real sk = __shfl_sync(FULL, sj, base + k);
    rank += (sk > sj || (sk == sj && k < tid)) ? 1 : 0;
  }
  if (failed || tid >= K) rank = tid;
  // S and the output V gives (VT where m >= n, U where m < n) before G's completion, which then has
  // V's registers free. (Every lane takes part in the shuffles; only a matrix's lanes form its pointers.)
  if (active && tid < K) {
    real* so = ${matrixPointer('S', kind, 'mat')};
    so[rank] = failed ? nanReal() : ${ldexp}(sj, e);
  }
  // Where the sweeps did not settle: G's singular values and order kept for the serial code, and V's
  // columns made orthonormal in that order (its rotations, c from the reciprocal square root, lose
  // orthogonality over the sweeps such a matrix runs to the limit).
  const bool swept = done;
  const bool settle = active && !failed && !swept;
  const bool complete = ${gOut ? 'active && !failed && (zero || !swept)' : 'settle'};
  if (complete && tid < K) { sSig[slot * K + tid] = sj; sPerm[slot * K + rank] = tid; }
${needV ? `  if (__any_sync(FULL, settle)) {
    // Every lane's rows go through shared memory and back (V's registers are not live across the
    // serial code; rows past K are not output).
    real* const vs = sG + slot * (M * K);
    #pragma unroll
    for (int j = 0; j < K; ++j) if (tid < K) vs[tid + j * K] = v[j];
    __syncwarp();
    if (settle && tid == 0) settleColumns(vs, nullptr, sPerm + slot * K, K, K, true);
    __syncwarp();
    #pragma unroll
    for (int j = 0; j < K; ++j) v[j] = tid < K ? vs[tid + j * K] : real(0);
    __syncwarp();
  }
${columnsOut(tall ? 'V' : 'U', 'v')}` : ''}
${settle}
${gOut ? columnsOut(tall ? 'U' : 'V', 'g') : ''}
  if (active && tid == 0) info[index ? index[mat] : mat] = failed ? K + 2 : (done ? 0 : K + 1);
}
`;
  return { name: `${entry}.cu`, source, entry };
}
