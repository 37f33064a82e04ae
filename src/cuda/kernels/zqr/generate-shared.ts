/**
 * Complex Householder QR with the matrix in shared memory: zgeqrf as LAPACK's unblocked zgeqr2 and
 * zungqr as zung2r, with the conventions of the complex reference (src/cpu/complex/zqr.ts), over
 * (re, im) pairs (`real2`, common/complex.ts). The layout is the real qr family's shared kernel:
 * one matrix per slot of shared memory (leading dimension LDS), `threads` threads per matrix, a
 * group of <= 32 lanes of a warp (scope 'warp', several matrices per block) or a whole block
 * (scope 'block'). A is read once and written once; nothing else goes to global memory but tau.
 *
 * geqrf, per column j < K (two barriers):
 * - A: the first RL = min(threads, 32) lanes compute the reflector as zlarfg in the reference:
 *   xnorm = ||a(j+1:M, j)|| over the parts, scaled by their largest magnitude (a max, then a sum of
 *   squares, shuffle reductions); xnorm = 0 with a real alpha gives tau = 0 (H = I); else
 *   beta = -sign(Re alpha) ||(alpha, xnorm)|| (Re alpha = 0 counts as positive),
 *   tau = ((beta - Re alpha) / beta, -Im alpha / beta), v = x / (alpha - beta) below the diagonal
 *   (x times Smith's reciprocal; where both parts of alpha - beta lie below the smallest normal number,
 *   a subnormal column, x and alpha - beta scaled up by 2^64 first, so that the reciprocal cannot
 *   overflow: common/householder-larfg.ts reflectorTail), (beta, 0) on it. NaN and Inf pass through
 *   as in the reference.
 * - B: H(j)^H = I - conj(tau) v v^H applied to the trailing columns c > j: column groups of TR
 *   lanes, w = v^H a(j:M, c) reduced by shuffles, then a(j:M, c) -= conj(tau) w v.
 * orgqr: columns K..N-1 set to the unit vectors, then for j = K-1 down to 0 H(j) = I - tau v v^H
 * applied to columns j+1..N-1, then column j := H(j) e_j (-tau v below the diagonal, 1 - tau on it,
 * zeros above).
 */
import { cudaMath, dtypeInfo } from '../../../core/dtype-table.js';
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { complexBytes, complexFactorHelpers, complexLetter, complexMultiplyAdd, complexPrelude } from '../common/complex.js';
import { reflectorTail } from '../common/householder-larfg.js';
import { mathHelpers, precisionPrelude } from '../common/precision.js';
import { loadSlotColumns, storeSlot } from '../common/slot-copy.js';
import { groupReduceSource } from '../common/warp-reduce.js';
import type { ZqrSharedParams } from './params.js';

/**
 * Leading dimension (pairs) of a matrix slot: the smallest >= m congruent to rowLanes modulo 16
 * (rowLanes < 16), so that the column groups of a half-warp, each reading rowLanes consecutive rows
 * of its own column, fall on distinct 8-byte bank pairs; m itself from 16 lanes per column on.
 */
function zsharedLd(m: number, rowLanes: number): number {
  if (rowLanes >= 16) return Math.max(1, m);
  let ld = Math.max(1, m);
  while (ld % 16 !== rowLanes % 16) ld++;
  return ld;
}

/** Pairs of one matrix slot: the m x n tile and tau. */
function slotPairs(p: Pick<ZqrSharedParams, 'm' | 'n' | 'k' | 'rowLanes'>): number {
  return zsharedLd(p.m, p.rowLanes) * Math.max(1, p.n) + Math.max(1, p.k);
}

/** Dynamic shared bytes of one block. */
export function zqrSharedBytes(p: Pick<ZqrSharedParams, 'dtype' | 'm' | 'n' | 'k' | 'rowLanes' | 'perBlock'>): number {
  return p.perBlock * slotPairs(p) * complexBytes(p.dtype);
}

function zqrSharedName(p: ZqrSharedParams): string {
  return `zqr_${p.op}_${complexLetter(p.dtype)}_${kindTag(p.kind)}_${p.m}x${p.n}k${p.k}_${p.scope[0]}${p.threads}r${p.rowLanes}x${p.perBlock}`;
}

function check(p: ZqrSharedParams): void {
  const pow2 = (x: number): boolean => x >= 1 && (x & (x - 1)) === 0;
  const bad = (why: string): never => { throw new Error(`zqr kernel ${JSON.stringify(p)}: ${why}`); };
  if (!pow2(p.threads) || !pow2(p.rowLanes) || p.rowLanes > 32 || p.threads % p.rowLanes !== 0) bad('threads and rowLanes must be powers of two, rowLanes <= 32 dividing threads');
  if (p.scope === 'warp' && (p.threads > 32 || p.perBlock < 1 || (p.threads * p.perBlock) % 32 !== 0)) bad('a warp design takes <= 32 threads per matrix and whole warps per block');
  if (p.scope === 'block' && (p.threads < 32 || p.perBlock !== 1)) bad('a block design takes one matrix of >= 32 threads per block');
  if (p.m < 1 || p.n < 1) bad('an empty tile has nothing to compute');
  if (p.op === 'geqrf' && p.k !== Math.min(p.m, p.n)) bad('geqrf has k = min(m, n)');
  if (p.op === 'orgqr' && (p.m < p.n || p.k > p.n || p.k < 0)) bad('orgqr needs m >= n >= k');
}

/** The head both kernels share: constants, helpers, the slot of this thread's matrix. */
function head(p: ZqrSharedParams, entry: string, extraParameters: string): string {
  const sync = p.scope === 'warp' ? '__syncwarp()' : '__syncthreads()';
  return `${precisionPrelude(p.dtype)}
${mathHelpers(p.dtype)}
${complexPrelude(p.dtype)}
${complexFactorHelpers()}
${complexMultiplyAdd({ conjA: true, conjB: false })}
${groupReduceSource()}
static __device__ __forceinline__ real hypotReal(real x, real y) { return ${cudaMath(p.dtype, 'hypot')}(x, y); }
constexpr real MAXR = ${dtypeInfo(p.dtype).cuda.max};
${p.op === 'geqrf' ? `constexpr real SAFMIN = ${dtypeInfo(p.dtype).cuda.safeMin};   // the smallest normal number\n` : ''}constexpr int M = ${p.m};
constexpr int N = ${p.n};
constexpr int K = ${p.k};
constexpr int LDS = ${zsharedLd(p.m, p.rowLanes)};   // shared leading dimension in pairs (see zsharedLd)
constexpr int SLOT = ${slotPairs(p)};               // shared pairs per matrix: the tile, then tau
constexpr int TPM = ${p.threads};                   // threads per matrix
constexpr int TR = ${p.rowLanes};                   // lanes per column of the trailing update
constexpr int G = TPM / TR;                         // columns updated at once
constexpr int RL = TPM < 32 ? TPM : 32;             // lanes that compute a reflector
constexpr int MPB = ${p.perBlock};                  // matrices per block
#define SYNC() ${sync}

extern "C" __global__ void __launch_bounds__(${p.threads * p.perBlock}) ${entry}(
    ${operandParameters('A', p.kind, true, 'real2')},
    ${operandParameters('T', p.kind, p.op === 'geqrf', 'real2')},
    ${extraParameters}const int* __restrict__ index, int count) {
  extern __shared__ __align__(16) unsigned char smemRaw[];
  const int slot = threadIdx.x / TPM;
  const int tid = threadIdx.x % TPM;
  const long long mat = (long long)blockIdx.x * MPB + slot;
  const bool active = mat < count;
  real2* a = reinterpret_cast<real2*>(smemRaw) + slot * SLOT;
  real2* tau = a + LDS * N;
  const int grp = tid / TR;   // column group
  const int r = tid % TR;     // lane in the group
  (void)index; (void)grp; (void)r;`;
}

/**
 * I - s v v^H applied to columns j+1..N-1 of the slot (v(j) = 1, v(j+1:M) below the diagonal of
 * column j; s the pair \`ts\`). The loop over columns runs the same number of times in every lane (the
 * shuffles need the whole warp); a lane with no column adds zeros.
 */
const APPLY = `    for (int c0 = j + 1; c0 < N; c0 += G) {
      const int c = c0 + grp;
      const bool on = c < N && (ts.x != real(0) || ts.y != real(0));
      real2 w = makeReal2(real(0), real(0)), ajc = w;
      if (on) {
        if (r == 0) w = ajc = a[j + c * LDS];
        for (int p = j + 1 + r; p < M; p += TR) w = fmaOp(a[p + j * LDS], a[p + c * LDS], w);   // += conj(v_p) a(p, c)
      }
      w.x = groupSum<TR>(w.x);
      w.y = groupSum<TR>(w.y);
      w = mulReal2(ts, w);
      if (on) {
        if (r == 0) a[j + c * LDS] = makeReal2(ajc.x - w.x, ajc.y - w.y);
        for (int p = j + 1 + r; p < M; p += TR) a[p + c * LDS] = fmsReal2(w, a[p + j * LDS], a[p + c * LDS]);
      }
    }`;

function entryOf(p: ZqrSharedParams, op: ZqrSharedParams['op']): string {
  if (p.op !== op) throw new Error(`z${op}SharedSource takes op ${op}`);
  check(p);
  return zqrSharedName(p);
}

export function zgeqrfSharedSource(p: ZqrSharedParams): KernelSource {
  const entry = entryOf(p, 'geqrf');
  // v = x / (alpha - beta) over the lane's rows, by the reciprocal (x and alpha - beta scaled up first where the column's norm is subnormal).
  const tail = reflectorTail({ complex: true, den: 'makeReal2(alpha.x - beta, alpha.y)', scale: (s) => [`for (int p = j + 1 + tid; p < M; p += RL) a[p + j * LDS] = ${s('a[p + j * LDS]')};`] })
    .map((l) => `        ${l}`).join('\n');
  const source = `${head(p, entry, 'int* __restrict__ info, ')}
  if (active) {
    const real2* g = ${matrixPointer('A', p.kind, 'mat')};
${loadSlotColumns('N')}
  }
  SYNC();
  for (int j = 0; j < K; ++j) {
    real beta = real(0);
    bool reflect = false;
    if (tid < RL) {
      // The reflector of column j (zlarfg as the reference): every lane of the first RL computes it.
      real mx = real(0);
      for (int p = j + 1 + tid; p < M; p += RL) mx = maxNan(mx, maxNan(absReal(a[p + j * LDS].x), absReal(a[p + j * LDS].y)));
      mx = groupMaxNan<RL>(mx);
      const bool scaled = mx > real(0) && mx <= MAXR;
      const real d = scaled ? mx : real(1);
      real s = real(0);
      for (int p = j + 1 + tid; p < M; p += RL) {
        const real tx = a[p + j * LDS].x / d, ty = a[p + j * LDS].y / d;
        s = fmaReal(tx, tx, s);
        s = fmaReal(ty, ty, s);
      }
      s = groupSum<RL>(s);
      const real xnorm = scaled ? mx * sqrtReal(s) : mx;
      const real2 alpha = a[j + j * LDS];
      real2 tj = makeReal2(real(0), real(0));
      if (xnorm != real(0) || alpha.y != real(0)) {
        const real h = hypotReal(hypotReal(alpha.x, alpha.y), xnorm);
        beta = alpha.x < real(0) ? h : -h;
        reflect = true;
        tj = makeReal2((beta - alpha.x) / beta, -alpha.y / beta);
${tail}
      }
      if (tid == 0) tau[j] = tj;
    }
    SYNC();
    // After the barrier (every lane has read alpha); B never reads the diagonal.
    if (tid == 0 && reflect) a[j + j * LDS] = makeReal2(beta, real(0));
    const real2 ts = conjReal2(tau[j]);   // H(j)^H
${APPLY}
    SYNC();
  }
${storeSlot(p.kind, 'real2')}
  real2* t = ${matrixPointer('T', p.kind, 'mat')};
  for (int j = tid; j < K; j += TPM) t[j] = tau[j];
  if (tid == 0) info[index ? index[mat] : mat] = 0;
}
`;
  return { name: `${entry}.cu`, source, entry };
}

export function zorgqrSharedSource(p: ZqrSharedParams): KernelSource {
  const entry = entryOf(p, 'orgqr');
  const source = `${head(p, entry, '')}
  if (active) {
    // Only the K reflector columns are read; the others become unit vectors.
    const real2* g = ${matrixPointer('A', p.kind, 'mat')};
${loadSlotColumns('K')}
    const real2* t = ${matrixPointer('T', p.kind, 'mat')};
    for (int j = tid; j < K; j += TPM) tau[j] = t[j];
  }
  for (int idx = tid; idx < M * (N - K); idx += TPM) {
    const int i = idx % M, c = K + idx / M;
    a[i + c * LDS] = makeReal2(i == c ? real(1) : real(0), real(0));
  }
  SYNC();
  for (int j = K - 1; j >= 0; --j) {
    const real2 ts = tau[j];   // H(j)
${APPLY}
    SYNC();
    for (int p = tid; p < M; p += TPM) {
      const real2 x = a[p + j * LDS];
      const real2 tx = mulReal2(ts, x);
      a[p + j * LDS] = p > j ? makeReal2(-tx.x, -tx.y) : (p == j ? makeReal2(real(1) - ts.x, -ts.y) : makeReal2(real(0), real(0)));
    }
    SYNC();
  }
${storeSlot(p.kind, 'real2')}
}
`;
  return { name: `${entry}.cu`, source, entry };
}
