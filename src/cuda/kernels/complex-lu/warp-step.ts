/**
 * The in-register LU's step where one matrix fills a warp (complex-lu's `step: 'warp'`): the rows
 * stay one a lane as in the group step (generate-factor.ts), what changes is the work of a step
 * besides the rank-1 update, which at n = 17 ... 32 the group step spends most of its instructions
 * on (complex128 n = 32: 256 double divisions and 32 hypot calls in 15,800 SASS instructions, 253 KB
 * of code, where the update's multiply-adds are 2,300; the real getrf kernel of the same order
 * is 6,200 instructions):
 * - the pivot search is two or three warp reductions (`redux.sync` on the key's bits: the largest
 *   key's high word, then its low word, then the smallest position holding it) instead of a
 *   butterfly of three shuffles and a compare per level;
 * - each row works out its own reciprocal (Smith's, one branchless formula with two divisions) and
 *   whether it reaches the safe minimum before the search, so their latency hides under it; the
 *   winner's reciprocal comes to all by a shuffle, its safe-minimum bit from a ballot: one
 *   reciprocal a step rather than a modulus and six divisions in every lane;
 * - the rare paths (a modulus for parts both below the safe minimum, the division by a tiny pivot)
 *   are out-of-line calls, so the unrolled steps do not carry their code;
 * - the pivots go out once at the end, lane k writing step k's (coalesced), not a store a step.
 * LAPACK's semantics are the group step's: izamax on |re| + |im| with the first position of the
 * largest winning (a NaN at the diagonal position kept, one below never winning), the reciprocal
 * where |pivot| >= the safe minimum and a division below it, info = k + 1 at the first exactly zero
 * pivot, which is neither swapped nor scaled. The test |pivot| >= safe minimum asks the parts first
 * (|pivot| >= max(|re|, |im|)), the modulus only where both are below it.
 * Forced, the L2 prefetch of a later round's matrix (warpPrefetchSource, below).
 */
import type { DType } from '../../../core/dtype.js';
import { byPrecision, dtypeInfo } from '../../../core/dtype-table.js';

/** Pairs a 16-byte shared load brings (the update reads the published row by whole vectors). */
export const pairsPerVector = (dtype: DType): number => byPrecision(dtype, { double: 1, single: 2 });

/** The order-preserving reduction of the pivot key: the key's bits in one or two words, then the smallest position holding the largest. */
function pivotPositionSource(dtype: DType): string {
  const info = dtypeInfo(dtype).cuda;
  const double = byPrecision(dtype, { double: true, single: false });
  // Keys: 0 for no candidate and for a NaN below position k (never wins: the row at k is always a
  // candidate, with key >= 1); |re| + |im| as its bits plus one (non-negative values order as their
  // bits); a NaN at position k as +inf (it ties with any +inf and is kept, having the smallest position).
  const bits = double ? 'unsigned long long' : 'unsigned';
  const inf = double ? '0x7ff0000000000000ull' : '0x7f800000u';
  const reduce = double
    ? `const unsigned khi = (unsigned)(key >> 32), klo = (unsigned)key;
  const unsigned hi = __reduce_max_sync(0xffffffffu, khi);
  const unsigned lo = __reduce_max_sync(0xffffffffu, khi == hi ? klo : 0u);
  const bool top = khi == hi && klo == lo;`
    : `const unsigned best = __reduce_max_sync(0xffffffffu, key);
  const bool top = key == best;`;
  return `// The position of step k's pivot among the candidates (izamax: the first of the largest |re| + |im|).
static __device__ __forceinline__ int pivotPosition(real2 x, bool candidate, int pos, int k) {
  const real m = abs1Real2(x);
  const ${bits} key = !candidate ? 0 : (m != m ? (pos == k ? ${inf} + 1 : 0) : (${bits})${info.toBits}(m) + 1);
  ${reduce}
  return (int)__reduce_min_sync(0xffffffffu, top ? (unsigned)pos : 0xffffffffu);
}`;
}

/**
 * The warp step's luRows (the group step's signature and result: after it, thread r holds in rA the
 * final row at position `pos`; returns info; the pivots go to piv[0 .. STEPS) where piv is set).
 * Needs complexSlotPrelude (LANES = 32), the buffers c0 and c1 of COLS pairs (the pivot row) rounded
 * to whole 16-byte vectors, 16-byte aligned.
 */
export function warpLuRowsSource(p: { dtype: DType; rows: number; cols: number; reciprocalCall: boolean }): string {
  const pv = pairsPerVector(p.dtype);
  const vector = dtypeInfo(p.dtype).cuda.vector.type;
  const pair = pv === 1 ? 'v' : '(e == 0 ? makeReal2(v.x, v.y) : makeReal2(v.z, v.w))';
  return `constexpr int ROWS = ${p.rows};
constexpr int COLS = ${p.cols};
constexpr int STEPS = ROWS < COLS ? ROWS : COLS;
constexpr int PV = ${pv};                         // pairs a 16-byte vector
constexpr real SAFE_MIN = ${dtypeInfo(p.dtype).cuda.safeMin};

${pivotPositionSource(p.dtype)}

// 1 / d by Smith's ratio without a branch: the part of larger magnitude divides (as divReal2(1, d)).${p.reciprocalCall ? `
// Out of line: one copy of the divisions' code instead of one a step.` : ''}
static __device__ ${p.reciprocalCall ? '__noinline__' : '__forceinline__'} real2 pivotReciprocal(real2 d) {
  const bool wide = absReal(d.x) >= absReal(d.y);
  const real big = wide ? d.x : d.y, small = wide ? d.y : d.x;
  const real q = small / big, s = real(1) / fmaReal(small, q, big);
  const real t = q * s;
  return wide ? makeReal2(s, -t) : makeReal2(t, -s);
}
// |x| >= SAFE_MIN where both parts are below it (rare: out of line).
static __device__ __noinline__ bool tinyPartsSafe(real2 x) { return modulusReal2(x) >= SAFE_MIN; }
static __device__ __forceinline__ bool pivotSafe(real2 x) {
  return absReal(x.x) >= SAFE_MIN || absReal(x.y) >= SAFE_MIN || tinyPartsSafe(x);
}
// l / pivot for a pivot below the safe minimum (rare: out of line).
static __device__ __noinline__ real2 divideByTinyPivot(real2 l, real2 pivot) { return divReal2(l, pivot); }

static __device__ __forceinline__ int luRows(real2 (&rA)[COLS], int r, int& pos, real2* c0, real2* c1, int* __restrict__ piv) {
  const int lane = threadIdx.x & 31;
  int info = 0, myPiv = 0;
  bool done = false;
  pos = r;
#pragma unroll
  for (int k = 0; k < STEPS; ++k) {
    real2* sr = (k & 1) ? c1 : c0;              // alternate buffers: no barrier before the next write
    const bool candidate = r >= 0 && !done;
    // This row's reciprocal and safe-minimum bit, before the search: used if it wins.
    const real2 rec = pivotReciprocal(rA[k]);
    const unsigned safe = __ballot_sync(0xffffffffu, candidate && !isZeroReal2(rA[k]) && pivotSafe(rA[k]));
    const int p = pivotPosition(rA[k], candidate, pos, k);
    const bool winner = candidate && pos == p;
    if (winner) {
#pragma unroll
      for (int j = k; j < COLS; ++j) sr[j] = rA[j];
    }
    const int from = __ffs(__ballot_sync(0xffffffffu, winner)) - 1;
    // The winner's reciprocal by a shuffle: every lane computes its own first (a store by the winner
    // alone let the compiler sink the divisions into the winner's branch, after the search).
    const real2 rp = shflReal2(rec, from);
    if (lane == k) myPiv = p;
    __syncwarp();
    const real2 pivot = sr[k];
    const bool zero = isZeroReal2(pivot);
    if (zero && info == 0) info = k + 1;
    if (winner) { done = true; pos = k; }
    else if (candidate) {
      if (pos == k) pos = p;                       // the row that was at k takes the pivot's place
      real2 l = rA[k];
      if (!zero) l = ((safe >> from) & 1u) ? mulReal2(l, rp) : divideByTinyPivot(l, pivot);
      rA[k] = l;
#pragma unroll
      for (int j0 = ((k + 1) / PV) * PV; j0 < COLS; j0 += PV) {
        const ${pv === 1 ? 'real2' : vector} v = *reinterpret_cast<const ${pv === 1 ? 'real2' : vector}*>(sr + j0);
#pragma unroll
        for (int e = 0; e < PV; ++e) {
          const int j = j0 + e;
          if (j > k && j < COLS) rA[j] = fmsReal2(l, ${pair}, rA[j]);
        }
      }
    }
  }
  if (piv && lane < STEPS) piv[lane] = myPiv;
  return info;
}`;
}

/**
 * The warp step's L2 prefetch (forced, `prefetchWarps`): a kernel of these orders loads its matrices,
 * factors them and stores them in lockstep with the other warps of its SM (whole rounds of the same
 * length), so the loads of a round and the arithmetic of the one before do not overlap. Each warp
 * hints to L2 the columns of the matrix `prefetchWarps` warps an SM ahead of its own (the one a later
 * round takes, about), lane j column j: `prefetch.global.L2`, no registers held, no change to any
 * value. The SM count is the device's (%nsmid), so the source stays the parameters' alone; on the host
 * (emulation) nothing is prefetched.
 */
export function warpPrefetchSource(p: { dtype: DType; prefetchWarps: number }): string {
  const linePairs = 128 / (2 * dtypeInfo(p.dtype).bytes);
  return `constexpr int PREFETCH_WARPS = ${p.prefetchWarps};
// Matrices from this warp's to the one it prefetches.
static __device__ __forceinline__ long long prefetchAhead() {
#ifdef __CUDA_ARCH__
  unsigned sms;
  asm("mov.u32 %0, %%nsmid;" : "=r"(sms));
  return (long long)sms * PREFETCH_WARPS * MPW;
#else
  return 0;
#endif
}
// Column 'lane' (< cols) of a rows x cols matrix at m (leading dimension ld) to L2, line by line.
static __device__ __forceinline__ void prefetchColumn(const real2* m, long long ld, int rows, int cols, int lane) {
#ifdef __CUDA_ARCH__
  if (lane < cols && rows > 0) {
    const real2* col = m + (long long)lane * ld;
    for (int e = 0; e < rows; e += ${linePairs}) asm volatile("prefetch.global.L2 [%0];" :: "l"(col + e));
    asm volatile("prefetch.global.L2 [%0];" :: "l"(col + rows - 1));
  }
#else
  (void)m; (void)ld; (void)rows; (void)cols; (void)lane;
#endif
}`;
}
