/**
 * The per-thread geqrf kernel, fast variant (max(m, n) <= QR_THREAD_LIMIT, one thread per matrix,
 * the matrix in registers, dgeqr2 unrolled as in generate-thread.ts). What differs from the classic
 * variant, and why:
 *
 * - Copies (common/span-stage.ts): every layout is staged. A densely packed batch moves as whole
 *   16-byte vectors on both sides (global <-> shared by coalesced vector loads and stores, one
 *   division by a constant per vector instead of the classic copy's per-element index arithmetic and
 *   scalar shared stores; a thread reads and writes its own slot by vectors where the matrix is whole
 *   16-byte chunks, conflict-free), and it writes each chunk of its slot as soon as the columns in it
 *   are final. Ragged ld or stride and pointer lists move element by element, coalesced along
 *   columns, instead of each thread reading its own matrix from global memory (a warp's load then
 *   touches 32 matrices' cache lines).
 * - dlarfg: where the column's largest magnitude below the diagonal (mx) and |alpha| lie in
 *   [SAFE_LO, SAFE_HI], the sum of squares is formed unscaled (no squares overflow, and s >= mx^2 is
 *   so far above the underflow threshold that squares lost to it weigh less than 2^-40 ulp), and
 *   beta = -sign(alpha) sqrt(alpha^2 + s): no division per element and no hypot, and v = x times
 *   1 / (alpha - beta), which is finite there (|alpha - beta| >= mx >= SAFE_LO). Anywhere else
 *   (mx = 0, tiny or huge columns, Inf, NaN: every comparison with NaN fails) the classic scaled
 *   form runs, so zero columns (tau = 0, the column left alone), subnormal columns (x and
 *   alpha - beta scaled up before the reciprocal, which would overflow) and NaN and Inf propagation
 *   are the classic kernel's and the reference's. The two forms agree to a few ulps.
 */
import { byPrecision, cudaMath, dtypeInfo } from '../../../core/dtype-table.js';
import type { KernelSource } from '../../runtime/types.js';
import { operandParameters } from '../common/batch-pointer.js';
import { mathHelpers, precisionPrelude } from '../common/precision.js';
import { slotMoves, spanLoad, spanSlot, spanStore, type SpanCopy, type SpanSlot } from '../common/span-stage.js';
import { applyReflector, checkQrThread, columnMax, dlarfgScaled, qrThreadName, r } from './generate-thread.js';
import type { QrThreadParams } from './params.js';

const range = (lo: number, hi: number): number[] => Array.from({ length: Math.max(0, hi - lo) }, (_, i) => lo + i);

interface SafeRange { readonly lo: string; readonly hi: string }

/**
 * The unscaled range: squares of up to 8 values <= SAFE_HI stay below the overflow threshold
 * (8 * 2^960 < 2^1024; 8 * 2^100 < 2^128), and s >= SAFE_LO^2 is 2^62 (float64) or 2^26 (float32)
 * above the smallest normal number.
 */
const SAFE: { readonly double: SafeRange; readonly single: SafeRange } = { double: { lo: '0x1p-480', hi: '0x1p+480' }, single: { lo: '0x1p-50f', hi: '0x1p+50f' } };

/** dlarfg of column j: the unscaled form where it is safe, else the classic scaled one; then H(j) on the columns to its right. */
function step(p: QrThreadParams, j: number): string {
  const below = range(j + 1, p.m);
  if (below.length === 0) return `  const real tau${j} = real(0);   // column ${j}: nothing below the diagonal`;
  const apply = applyReflector(p, j);
  return `  // Column ${j}: the reflector (dlarfg), then H(${j}) on columns ${j + 1}..${p.n - 1}.
  real tau${j} = real(0);
  {
${columnMax(p, j, '    ').join('\n')}
    if (mx >= SAFE_LO && mx <= SAFE_HI && absReal(${r(j, j)}) <= SAFE_HI) {
      real s = real(0);
${below.map((i) => `      s = fmaReal(${r(i, j)}, ${r(i, j)}, s);`).join('\n')}
      const real alpha = ${r(j, j)};
      const real h = sqrtReal(fmaReal(alpha, alpha, s));
      const real beta = alpha >= real(0) ? -h : h;
      tau${j} = (beta - alpha) / beta;
      const real scale = real(1) / (alpha - beta);
${below.map((i) => `      ${r(i, j)} *= scale;`).join('\n')}
      ${r(j, j)} = beta;
    } else {
${dlarfgScaled(p, j, '      ').join('\n')}
    }
  }
${apply.length > 0 ? `  if (tau${j} != real(0)) {\n${apply.join('\n')}\n  }` : ''}`;
}

/**
 * The writes of slot elements [done, upTo) that became final since the last flush: rounded down to
 * whole chunks where the slot is chunked, the rest of the slot where `last`. Returns the statements
 * and the new `done`.
 */
function flush(s: SpanSlot, dtype: QrThreadParams['dtype'], slot: string, done: number, upTo: number, last: boolean, reg: (e: number) => string): [string[], number] {
  const end = last ? s.elems : (s.chunked ? upTo - (upTo % s.vec) : upTo);
  if (end <= done) return [[], done];
  return [slotMoves(s, dtype, slot, done, end, 'write', reg).map((x) => `  ${x}`), end];
}

export function geqrfThreadFastSource(p: QrThreadParams): KernelSource {
  if (p.op !== 'geqrf' || p.variant !== 'fast') throw new Error('geqrfThreadFastSource takes op geqrf, variant fast');
  checkQrThread(p);
  const entry = qrThreadName(p);
  const { m, n, k, dtype } = p;
  const slotA = spanSlot(dtype, m * n), slotT = spanSlot(dtype, k);
  const copyA: SpanCopy = { operand: 'A', layout: { kind: p.kind, dense: p.denseA }, dtype, rows: m, cols: n, shared: 'sA', slot: slotA };
  const copyT: SpanCopy = { operand: 'T', layout: { kind: p.kind, dense: p.denseT }, dtype, rows: k, cols: 1, shared: 'sT', slot: slotT };
  const regA = (e: number): string => r(e % m, Math.floor(e / m));
  const regT = (e: number): string => `tau${e}`;
  const safe = byPrecision(dtype, SAFE);

  const body: string[] = [];
  let doneA = 0, doneT = 0;
  for (let j = 0; j < k; j++) {
    body.push(step(p, j));
    const [wa, da] = flush(slotA, dtype, 'sa', doneA, (j + 1) * m, false, regA);
    const [wt, dt] = flush(slotT, dtype, 'st', doneT, j + 1, j === k - 1, regT);
    body.push(...wa, ...wt);
    doneA = da; doneT = dt;
  }
  body.push(...flush(slotA, dtype, 'sa', doneA, m * n, true, regA)[0]);

  const source = `${precisionPrelude(dtype)}
${mathHelpers(dtype)}
// max(a, b) with NaN propagated from either argument (fmax would drop it).
static __device__ __forceinline__ real maxNan(real a, real b) { return (b > a || b != b) ? b : a; }
static __device__ __forceinline__ real hypotReal(real x, real y) { return ${cudaMath(dtype, 'hypot')}(x, y); }
constexpr real MAXR = ${dtypeInfo(dtype).cuda.max};
constexpr real SAFMIN = ${dtypeInfo(dtype).cuda.safeMin};   // the smallest normal number
constexpr real SAFE_LO = ${safe.lo};   // the unscaled norm's range (generate-thread-fast.ts SAFE)
constexpr real SAFE_HI = ${safe.hi};
constexpr int M = ${m};
constexpr int N = ${n};
constexpr int K = ${k};
constexpr int THREADS = ${p.blockThreads};   // threads (matrices) per block
constexpr int TBC = THREADS;                 // matrices per block
constexpr int SA = ${slotA.slot};                      // shared elements of a thread's A slot
constexpr int ST = ${slotT.slot};                      // and of its tau slot

extern "C" __global__ void __launch_bounds__(${p.blockThreads}) ${entry}(
    ${operandParameters('A', p.kind, true)},
    ${operandParameters('T', p.kind, true)},
    int* __restrict__ info, const int* __restrict__ index, int count) {
  (void)M; (void)N; (void)K; (void)MAXR; (void)SAFMIN;
  extern __shared__ __align__(16) unsigned char smemRaw[];
  real* sA = reinterpret_cast<real*>(smemRaw);
  real* sT = sA + THREADS * SA;                 // 16-byte aligned: SA is whole vectors or THREADS * SA a multiple of 32
  const int t = threadIdx.x;
  const int first = blockIdx.x * THREADS;       // the block's first matrix
  const int nmat = min(TBC, count - first);     // matrices in this block (the last one may be short)
  real* sa = sA + t * SA;                       // this thread's slot
  real* st = sT + t * ST;
  (void)ldA; (void)ldT; (void)strideA; (void)strideT;
  ${spanLoad(copyA)}
  __syncthreads();
  real ${range(0, m * n).map(regA).join(', ')};
${slotMoves(slotA, dtype, 'sa', 0, m * n, 'read', regA).map((x) => `  ${x}`).join('\n')}
${body.join('\n')}
  __syncthreads();
  ${spanStore(copyA)}
  ${spanStore(copyT)}
  if (t < nmat) info[index ? index[first + t] : first + t] = 0;
}
`;
  return { name: `${entry}.cu`, source, entry };
}
