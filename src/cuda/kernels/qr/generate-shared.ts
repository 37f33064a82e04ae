/**
 * Batched Householder QR with the matrix in shared memory: geqrf as LAPACK's unblocked dgeqr2 and
 * orgqr as dorg2r (LAPACK Working Note / Golub & Van Loan 5.2.1: "Householder QR", 5.1.6 backward
 * accumulation of Q), with the conventions of the CPU reference (src/cpu/lapack/qr.ts) so that both
 * give the same factors up to rounding.
 *
 * One matrix per slot of shared memory (leading dimension LDS, chosen for conflict-free access),
 * `threads` threads per matrix: a group of <= 32 lanes of a warp (scope 'warp', several matrices per
 * block, the sizes up to 32) or a whole thread block (scope 'block', the sizes whose tile fits the
 * shared memory). A is read once and written once; nothing else goes to global memory but tau.
 *
 * geqrf, per column j < K (two barriers):
 * - A: the first PA = min(threads, 32) lanes compute the reflector as the reference's dlarfg:
 *   xnorm = ||a(j+1:M, j)|| scaled by its largest magnitude (a max, then a sum of squares, both by
 *   shuffle reductions); xnorm = 0 gives tau = 0 (H = I, the column left alone); else
 *   beta = -sign(alpha) hypot(alpha, xnorm) (alpha = 0 counts as positive), tau = (beta - alpha) / beta,
 *   v = x / (alpha - beta) stored below the diagonal (x times the reciprocal; where the column's norm
 *   is subnormal, x and alpha - beta scaled up by 2^64 first, so that the reciprocal cannot overflow:
 *   common/householder-larfg.ts reflectorTail), beta on it. NaN and Inf pass through as in the
 *   reference (the max propagates NaN; an infinite or NaN max is the norm).
 * - B: the reflector applied to the trailing columns c > j: the threads form G = threads / TR column
 *   groups of TR lanes; a group takes a column, its lanes a share of the rows, w = tau (a(j, c) +
 *   v . a(j+1:M, c)) reduced by shuffles, then a(:, c) -= w v. Each lane writes only the rows it read
 *   (and lane 0 of the group row j, which it alone reads), so the reduction is the only ordering needed.
 * orgqr: columns K..N-1 set to the unit vectors, then for j = K-1 down to 0 the reflector applied to
 * columns j+1..N-1 (as B), then column j := H(j) e_j (-tau v below the diagonal, 1 - tau on it, zeros
 * above).
 */
import { cudaMath, dtypeInfo } from '../../../core/dtype-table.js';
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { reflectorTail } from '../common/householder-larfg.js';
import { elementBytes, mathHelpers, precisionLetter, precisionPrelude } from '../common/precision.js';
import { loadSlotColumns, storeSlot } from '../common/slot-copy.js';
import { groupReduceSource } from '../common/warp-reduce.js';
import type { QrSharedParams } from './params.js';

/**
 * Leading dimension of a matrix slot: the smallest >= m that is congruent to rowLanes modulo 32
 * (rowLanes < 32), so that the column groups of a warp, each reading rowLanes consecutive rows of its
 * own column, fall on distinct banks (for 8-byte elements too: each half-warp's lanes distinct modulo 16);
 * with rowLanes = 32 a group is a whole warp and m itself serves.
 */
export function sharedLd(m: number, rowLanes: number): number {
  if (rowLanes >= 32) return Math.max(1, m);
  let ld = Math.max(1, m);
  while (ld % 32 !== rowLanes % 32) ld++;
  return ld;
}

/** Elements of one matrix slot: the m x n tile and tau, rounded up to an even count. */
function slotElements(p: Pick<QrSharedParams, 'm' | 'n' | 'k' | 'rowLanes'>): number {
  const raw = sharedLd(p.m, p.rowLanes) * Math.max(1, p.n) + Math.max(1, p.k);
  return raw + (raw & 1);
}

/** Dynamic shared bytes of one block. */
export function qrSharedBytes(p: Pick<QrSharedParams, 'dtype' | 'm' | 'n' | 'k' | 'rowLanes' | 'perBlock'>): number {
  return p.perBlock * slotElements(p) * elementBytes(p.dtype);
}

export function qrSharedName(p: QrSharedParams): string {
  return `qr_${p.op}_${precisionLetter(p.dtype)}_${kindTag(p.kind)}_${p.m}x${p.n}k${p.k}_${p.scope[0]}${p.threads}r${p.rowLanes}x${p.perBlock}`;
}

function check(p: QrSharedParams): void {
  const pow2 = (x: number): boolean => x >= 1 && (x & (x - 1)) === 0;
  const bad = (why: string): never => { throw new Error(`qr kernel ${JSON.stringify(p)}: ${why}`); };
  if (!pow2(p.threads) || !pow2(p.rowLanes) || p.rowLanes > 32 || p.threads % p.rowLanes !== 0) bad('threads and rowLanes must be powers of two, rowLanes <= 32 dividing threads');
  if (p.scope === 'warp' && (p.threads > 32 || p.perBlock < 1 || (p.threads * p.perBlock) % 32 !== 0)) bad('a warp design takes <= 32 threads per matrix and whole warps per block');
  if (p.scope === 'block' && (p.threads < 32 || p.perBlock !== 1)) bad('a block design takes one matrix of >= 32 threads per block');
  const maxK = Math.min(p.m, p.n);
  if (p.op === 'geqrf' && p.k !== maxK) bad('geqrf has k = min(m, n)');
  if (p.op === 'orgqr' && (p.m < p.n || p.k > p.n || p.k < 0)) bad('orgqr needs m >= n >= k');
}

/** The head every QR kernel shares: constants, helpers, the slot of this thread's matrix. */
function head(p: QrSharedParams, entry: string, extraParameters: string): string {
  const sync = p.scope === 'warp' ? '__syncwarp()' : '__syncthreads()';
  return `${precisionPrelude(p.dtype)}
${mathHelpers(p.dtype)}
${groupReduceSource()}
static __device__ __forceinline__ real hypotReal(real x, real y) { return ${cudaMath(p.dtype, 'hypot')}(x, y); }
constexpr real MAXR = ${dtypeInfo(p.dtype).cuda.max};
${p.op === 'geqrf' ? `constexpr real SAFMIN = ${dtypeInfo(p.dtype).cuda.safeMin};   // the smallest normal number\n` : ''}constexpr int M = ${p.m};
constexpr int N = ${p.n};
constexpr int K = ${p.k};
constexpr int LDS = ${sharedLd(p.m, p.rowLanes)};   // shared leading dimension (bank-conflict free, see sharedLd)
constexpr int SLOT = ${slotElements(p)};             // shared elements per matrix: the tile, then tau
constexpr int TPM = ${p.threads};                    // threads per matrix
constexpr int TR = ${p.rowLanes};                    // lanes per column of the trailing update
constexpr int G = TPM / TR;                          // columns updated at once
constexpr int PA = TPM < 32 ? TPM : 32;              // lanes that compute a reflector
constexpr int MPB = ${p.perBlock};                   // matrices per block
#define SYNC() ${sync}

extern "C" __global__ void __launch_bounds__(${p.threads * p.perBlock}) ${entry}(
    ${operandParameters('A', p.kind, true)},
    ${operandParameters('T', p.kind, p.op === 'geqrf')},
    ${extraParameters}const int* __restrict__ index, int count) {
  extern __shared__ __align__(16) unsigned char smemRaw[];
  const int slot = threadIdx.x / TPM;
  const int tid = threadIdx.x % TPM;
  const long long mat = (long long)blockIdx.x * MPB + slot;
  const bool active = mat < count;
  real* a = reinterpret_cast<real*>(smemRaw) + slot * SLOT;
  real* tau = a + LDS * N;
  const int grp = tid / TR;   // column group
  const int r = tid % TR;     // lane in the group
  (void)index; (void)grp; (void)r;`;
}

/**
 * H(j) applied to columns j+1..N-1 of the slot (v(j) = 1, v(j+1:M) below the diagonal of column j,
 * scalar tj). The loop over columns runs the same number of times in every lane (the shuffles need the
 * whole warp); a lane with no column adds zeros.
 */
const APPLY = `    for (int c0 = j + 1; c0 < N; c0 += G) {
      const int c = c0 + grp;
      const bool on = c < N && tj != real(0);
      real w = real(0), ajc = real(0);
      if (on) {
        if (r == 0) w = ajc = a[j + c * LDS];
        for (int p = j + 1 + r; p < M; p += TR) w = fmaReal(a[p + j * LDS], a[p + c * LDS], w);
      }
      w = groupSum<TR>(w) * tj;
      if (on) {
        if (r == 0) a[j + c * LDS] = ajc - w;
        for (int p = j + 1 + r; p < M; p += TR) a[p + c * LDS] = fmaReal(-w, a[p + j * LDS], a[p + c * LDS]);
      }
    }`;

/** The entry name of `p`, checked to be a kernel of `op` with a valid shape. */
function entryOf(p: QrSharedParams, op: QrSharedParams['op']): string {
  if (p.op !== op) throw new Error(`${op}SharedSource takes op ${op}`);
  check(p);
  return qrSharedName(p);
}

export function geqrfSharedSource(p: QrSharedParams): KernelSource {
  const entry = entryOf(p, 'geqrf');
  // v = x / (alpha - beta) over the lane's rows, by the reciprocal (x and alpha - beta scaled up first where the column's norm is subnormal).
  const tail = reflectorTail({ complex: false, den: 'alpha - beta', scale: (s) => [`for (int p = j + 1 + tid; p < M; p += PA) a[p + j * LDS] = ${s('a[p + j * LDS]')};`] })
    .map((l) => `        ${l}`).join('\n');
  const source = `${head(p, entry, 'int* __restrict__ info, ')}
  if (active) {
    const real* g = ${matrixPointer('A', p.kind, 'mat')};
${loadSlotColumns('N')}
  }
  SYNC();
  for (int j = 0; j < K; ++j) {
    real beta = real(0);
    bool reflect = false;
    if (tid < PA) {
      // The reflector of column j (dlarfg as the reference): every lane of the first PA computes it.
      real mx = real(0);
      for (int p = j + 1 + tid; p < M; p += PA) mx = maxNan(mx, absReal(a[p + j * LDS]));
      mx = groupMaxNan<PA>(mx);
      const bool scaled = mx > real(0) && mx <= MAXR;
      const real d = scaled ? mx : real(1);
      real s = real(0);
      for (int p = j + 1 + tid; p < M; p += PA) { const real t = a[p + j * LDS] / d; s = fmaReal(t, t, s); }
      s = groupSum<PA>(s);
      const real xnorm = scaled ? mx * sqrtReal(s) : mx;
      real tj = real(0);
      if (xnorm != real(0)) {
        const real alpha = a[j + j * LDS];
        const real h = hypotReal(alpha, xnorm);
        beta = alpha >= real(0) ? -h : h;
        reflect = true;
        tj = (beta - alpha) / beta;
${tail}
      }
      if (tid == 0) tau[j] = tj;
    }
    SYNC();
    // After the barrier (every lane has read alpha); B never reads the diagonal.
    if (tid == 0 && reflect) a[j + j * LDS] = beta;
    const real tj = tau[j];
${APPLY}
    SYNC();
  }
${storeSlot(p.kind, 'real')}
  real* t = ${matrixPointer('T', p.kind, 'mat')};
  for (int j = tid; j < K; j += TPM) t[j] = tau[j];
  if (tid == 0) info[index ? index[mat] : mat] = 0;
}
`;
  return { name: `${entry}.cu`, source, entry };
}

export function orgqrSharedSource(p: QrSharedParams): KernelSource {
  const entry = entryOf(p, 'orgqr');
  const source = `${head(p, entry, '')}
  if (active) {
    // Only the K reflector columns are read; the others become unit vectors.
    const real* g = ${matrixPointer('A', p.kind, 'mat')};
${loadSlotColumns('K')}
    const real* t = ${matrixPointer('T', p.kind, 'mat')};
    for (int j = tid; j < K; j += TPM) tau[j] = t[j];
  }
  for (int idx = tid; idx < M * (N - K); idx += TPM) {
    const int i = idx % M, c = K + idx / M;
    a[i + c * LDS] = i == c ? real(1) : real(0);
  }
  SYNC();
  for (int j = K - 1; j >= 0; --j) {
    const real tj = tau[j];
${APPLY}
    SYNC();
    for (int p = tid; p < M; p += TPM) {
      const real x = a[p + j * LDS];
      a[p + j * LDS] = p > j ? -tj * x : (p == j ? real(1) - tj : real(0));
    }
    SYNC();
  }
${storeSlot(p.kind, 'real')}
}
`;
  return { name: `${entry}.cu`, source, entry };
}
