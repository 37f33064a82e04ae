/**
 * Batched Householder QR of tiny matrices (max(m, n) <= QR_THREAD_LIMIT) with one thread per matrix:
 * the m x n matrix in registers, LAPACK's dgeqr2 (geqrf) or dorg2r (orgqr) unrolled at generation
 * time so that every index is a constant (the shared-memory kernel of generate-shared.ts spends a
 * lane group, shuffle reductions and two barriers a column on matrices whose whole factorization is
 * a few hundred flops; here a column costs its flops and nothing else).
 *
 * Loads and stores (`stage`): the block's matrices move between global and shared memory by one
 * block-wide copy each way (common/tile-load.ts: one contiguous span where the batch is densely
 * packed, 16-byte vectors where aligned; else element by element through each matrix's pointer and
 * ld, coalesced along columns), each thread then reading and writing only its own slot (an odd number
 * of elements, so a warp's accesses to one element of 32 slots fall on distinct banks); two barriers
 * in all. Without `stage` each thread reads and writes its own matrix in global memory (list batches,
 * ragged ld or stride where the plan leaves them unstaged).
 *
 * The arithmetic is the shared kernel's, operation for operation, so the two give the same factors up
 * to the order of the sums (the CPU reference's too, src/cpu/lapack/qr.ts): dlarfg with xnorm scaled
 * by the largest magnitude of x (a maximum through which NaN propagates; an infinite or NaN maximum is
 * the norm), xnorm = 0 gives tau = 0 and leaves the column, else beta = -sign(alpha) hypot(alpha,
 * xnorm) (alpha = 0 counts as positive), tau = (beta - alpha) / beta, v = x / (alpha - beta) (x times
 * the reciprocal; where the column's norm is subnormal, x and alpha - beta scaled up by 2^64 first, so
 * that the reciprocal cannot overflow: common/householder-larfg.ts reflectorTail); a reflector with
 * tau = 0 touches no column; NaN and Inf pass through as there. float32 data computes in float32, as
 * the shared kernel.
 */
import { cudaMath, dtypeInfo } from '../../../core/dtype-table.js';
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { reflectorTail } from '../common/householder-larfg.js';
import { elementBytes, mathHelpers, precisionLetter, precisionPrelude } from '../common/precision.js';
import { spanSlot } from '../common/span-stage.js';
import { loadTiles, storeTiles, type TileCopy } from '../common/tile-load.js';
import type { QrThreadParams } from './params.js';

/** The largest max(m, n) the generator takes (an 8 x 8 float64 matrix is 128 registers). */
export const QR_THREAD_LIMIT = 8;

const odd = (x: number): number => x | 1;

/**
 * Shared elements of one thread's A slot and tau slot: classic, odd (conflict-free per-thread
 * accesses); fast, common/span-stage.ts's slots (whole 16-byte chunks where the matrix has them).
 */
export const qrThreadSlots = (p: Pick<QrThreadParams, 'dtype' | 'm' | 'n' | 'k' | 'variant'>): { a: number; t: number } => (p.variant === 'fast'
  ? { a: spanSlot(p.dtype, p.m * p.n).slot, t: spanSlot(p.dtype, p.k).slot }
  : { a: odd(p.m * p.n), t: odd(p.k) });

/** Dynamic shared bytes of one block (0 unstaged). */
export function qrThreadSharedBytes(p: Pick<QrThreadParams, 'dtype' | 'm' | 'n' | 'k' | 'blockThreads' | 'stage' | 'variant'>): number {
  if (!p.stage) return 0;
  const s = qrThreadSlots(p);
  return p.blockThreads * (s.a + s.t) * elementBytes(p.dtype);
}

export function qrThreadName(p: QrThreadParams): string {
  const layout = p.stage ? `${p.variant === 'fast' ? 'f' : 's'}${p.denseA ? 'd' : 'e'}${p.denseT ? 'd' : 'e'}` : 'g';
  return `qr_thread_${p.op}_${precisionLetter(p.dtype)}_${kindTag(p.kind)}_${p.m}x${p.n}k${p.k}_t${p.blockThreads}${layout}`;
}

/** Refuses a parameter object no per-thread generator takes (either variant). */
export function checkQrThread(p: QrThreadParams): void {
  const bad = (why: string): never => { throw new Error(`qr thread kernel ${JSON.stringify(p)}: ${why}`); };
  const { m, n, k } = p;
  if (![m, n, k].every(Number.isInteger) || m < 1 || n < 1 || Math.max(m, n) > QR_THREAD_LIMIT) bad(`1 <= m, n and max(m, n) <= ${QR_THREAD_LIMIT}`);
  if (p.op === 'geqrf' && k !== Math.min(m, n)) bad('geqrf has k = min(m, n)');
  if (p.op === 'orgqr' && (m < n || k > n || k < 0)) bad('orgqr needs m >= n >= k');
  if (!Number.isInteger(p.blockThreads) || p.blockThreads < 32 || p.blockThreads > 1024 || p.blockThreads % 32 !== 0) bad('blockThreads: whole warps, 32..1024');
  if (!p.stage && (p.denseA || p.denseT)) bad('dense layouts are for staged copies');
  if ((p.denseA || p.denseT) && p.kind !== 'strided') bad('only strided operands can be dense');
  if (p.variant === 'fast' && (!p.stage || p.op !== 'geqrf')) bad('the fast variant is a staged geqrf');
}

const range = (lo: number, hi: number): number[] => Array.from({ length: Math.max(0, hi - lo) }, (_, i) => lo + i);
/** The register of element (i, j). */
export const r = (i: number, j: number): string => `a${i}_${j}`;

/** The statements of H(j) applied to columns j+1..N-1 (one block per column; the scalar is tau<j>). */
export function applyReflector(p: Pick<QrThreadParams, 'm' | 'n'>, j: number): string[] {
  const below = range(j + 1, p.m);
  return range(j + 1, p.n).map((c) => [
    `      { real w = ${r(j, c)};`,
    ...below.map((i) => `        w = fmaReal(${r(i, j)}, ${r(i, c)}, w);`),
    `        w *= tau${j};`,
    `        ${r(j, c)} -= w;`,
    ...below.map((i) => `        ${r(i, c)} = fmaReal(-w, ${r(i, j)}, ${r(i, c)});`),
    '      }',
  ].join('\n'));
}

/** The max of |x| over column j below the diagonal (into mx, declared here), NaN propagated. */
export const columnMax = (p: Pick<QrThreadParams, 'm'>, j: number, pad: string): string[] =>
  [`${pad}real mx = real(0);`, ...range(j + 1, p.m).map((i) => `${pad}mx = maxNan(mx, absReal(${r(i, j)}));`)];

/**
 * dlarfg as the reference (src/cpu/lapack/qr.ts): xnorm scaled by mx, hypot(alpha, xnorm); sets
 * tau<j>, scales v (common/householder-larfg.ts reflectorTail: by the reciprocal of alpha - beta, x
 * and alpha - beta scaled up first where the column's norm is subnormal) and writes beta over the
 * diagonal (`pad` indents it; mx and SAFMIN in scope).
 */
export function dlarfgScaled(p: Pick<QrThreadParams, 'm'>, j: number, pad: string): string[] {
  const below = range(j + 1, p.m);
  return [
    `${pad}const bool scaled = mx > real(0) && mx <= MAXR;`,
    `${pad}const real d = scaled ? mx : real(1);`,
    `${pad}real s = real(0);`,
    ...below.map((i) => `${pad}{ const real x = ${r(i, j)} / d; s = fmaReal(x, x, s); }`),
    `${pad}(void)d;`,
    `${pad}const real xnorm = scaled ? mx * sqrtReal(s) : mx;`,
    `${pad}if (xnorm != real(0)) {`,
    `${pad}  const real alpha = ${r(j, j)};`,
    `${pad}  const real h = hypotReal(alpha, xnorm);`,
    `${pad}  const real beta = alpha >= real(0) ? -h : h;`,
    `${pad}  tau${j} = (beta - alpha) / beta;`,
    ...reflectorTail({ complex: false, den: 'alpha - beta', scale: (s) => below.map((i) => `${r(i, j)} = ${s(r(i, j))};`) }).map((l) => `${pad}  ${l}`),
    `${pad}  ${r(j, j)} = beta;`,
    `${pad}}`,
  ];
}

/** dlarfg on column j (rows j..M-1) and H(j) applied to columns j+1..N-1: the statements of step j of dgeqr2. */
function geqr2Step(p: QrThreadParams, j: number): string {
  const below = range(j + 1, p.m);
  const apply = applyReflector(p, j);
  // No rows below the diagonal (the last row of a wide matrix): xnorm = 0, so tau = 0 and nothing changes.
  if (below.length === 0) return `  const real tau${j} = real(0);   // column ${j}: nothing below the diagonal`;
  return `  // Column ${j}: the reflector (dlarfg), then H(${j}) on columns ${j + 1}..${p.n - 1}.
  real tau${j} = real(0);
  {
${columnMax(p, j, '    ').join('\n')}
${dlarfgScaled(p, j, '    ').join('\n')}
  }
${apply.length > 0 ? `  if (tau${j} != real(0)) {\n${apply.join('\n')}\n  }` : ''}`;
}

/** Step j of dorg2r (from K-1 down): H(j) on columns j+1..N-1, then column j := H(j) e_j. */
function org2rStep(p: QrThreadParams, j: number): string {
  const below = range(j + 1, p.m);
  const apply = range(j + 1, p.n).map((c) => [
    `    { real w = ${r(j, c)};`,
    ...below.map((i) => `      w = fmaReal(${r(i, j)}, ${r(i, c)}, w);`),
    `      w *= tj;`,
    `      ${r(j, c)} -= w;`,
    ...below.map((i) => `      ${r(i, c)} = fmaReal(-w, ${r(i, j)}, ${r(i, c)});`),
    '    }',
  ].join('\n'));
  // The reflector's column is read where its step begins (read at the top, every one would be live at once).
  return `${below.map((i) => `  real ${r(i, j)} = ${slotAt(p, i, j)};`).join('\n')}
  real ${r(j, j)};
${range(0, j).map((i) => `  real ${r(i, j)};`).join('\n')}
  { // H(${j})
    const real tj = tau${j};
${apply.length > 0 ? `    if (tj != real(0)) {\n${apply.join('\n')}\n    }` : ''}
${below.map((i) => `    ${r(i, j)} = -tj * ${r(i, j)};`).join('\n')}
    ${r(j, j)} = real(1) - tj;
${range(0, j).map((i) => `    ${r(i, j)} = real(0);`).join('\n')}
  }`;
}

/** Where element (i, j) of this thread's matrix lives: its shared slot (staged) or global memory. */
const slotAt = (p: QrThreadParams, i: number, j: number): string => (p.stage ? `sa[${i + j * p.m}]` : `g[${i} + ${j} * (long long)ldA]`);
const tauAt = (p: QrThreadParams, j: number): string => (p.stage ? `st[${j}]` : `gt[${j}]`);

/** The tile copies of a staged kernel: A (`cols` columns of it) and tau. */
function copies(p: QrThreadParams): { a: (cols: number) => TileCopy; t: TileCopy } {
  const s = qrThreadSlots(p);
  const a = (cols: number): TileCopy => ({
    operand: 'A', layout: { kind: p.kind, dense: p.denseA && cols === p.n }, dtype: p.dtype, rows: p.m, cols,
    shared: 'sA', sharedPerMatrix: s.a, sharedIndex: (i, c) => `${i} + ${c} * M`,
  });
  const t: TileCopy = {
    operand: 'T', layout: { kind: p.kind, dense: p.denseT }, dtype: p.dtype, rows: p.k, cols: 1,
    shared: 'sT', sharedPerMatrix: s.t, sharedIndex: (i) => i,
  };
  return { a, t };
}

/** The kernel around `body` (which reads and writes through slotAt and tauAt): loads, then stores, by either path. */
function kernel(p: QrThreadParams, entry: string, load: string, body: string, store: string): string {
  const s = qrThreadSlots(p);
  const geqrf = p.op === 'geqrf';
  const access = p.stage
    ? `  extern __shared__ __align__(16) unsigned char smemRaw[];
  real* sA = reinterpret_cast<real*>(smemRaw);
  real* sT = sA + THREADS * SA;
  const int t = threadIdx.x;
  const int first = blockIdx.x * THREADS;       // the block's first matrix
  const int nmat = min(TBC, count - first);     // matrices in this block (the last one may be short)
  const bool active = t < nmat;
  real* sa = sA + t * SA;                       // this thread's slot
  real* st = sT + t * ST;
  (void)sa; (void)st; (void)sT; (void)ldA; (void)ldT; (void)strideA; (void)strideT;
${load}
  __syncthreads();`
    : `  const long long mat = blockIdx.x * (long long)THREADS + threadIdx.x;
  if (mat >= count) return;
  real* g = ${matrixPointer('A', p.kind, 'mat')};
  ${geqrf ? '' : 'const '}real* gt = ${matrixPointer('T', p.kind, 'mat')};
  (void)gt;
${load}`;
  const finish = p.stage
    ? `${store}
  __syncthreads();
${storeAll(p)}
${geqrf ? '  if (active) info[index ? index[first + t] : first + t] = 0;' : '  (void)active; (void)index;'}`
    : `${store}
${geqrf ? '  info[index ? index[mat] : mat] = 0;' : '  (void)index;'}`;
  return `${precisionPrelude(p.dtype)}
${mathHelpers(p.dtype)}
// max(a, b) with NaN propagated from either argument (fmax would drop it).
static __device__ __forceinline__ real maxNan(real a, real b) { return (b > a || b != b) ? b : a; }
static __device__ __forceinline__ real hypotReal(real x, real y) { return ${cudaMath(p.dtype, 'hypot')}(x, y); }
constexpr real MAXR = ${dtypeInfo(p.dtype).cuda.max};
${geqrf ? `constexpr real SAFMIN = ${dtypeInfo(p.dtype).cuda.safeMin};   // the smallest normal number
` : ''}constexpr int M = ${p.m};
constexpr int N = ${p.n};
constexpr int K = ${p.k};
constexpr int THREADS = ${p.blockThreads};   // threads (matrices) per block
constexpr int TBC = THREADS;                 // matrices per block, as common/tile-load.ts names them
constexpr int SA = ${s.a};                      // shared elements of a thread's A slot (odd)
constexpr int ST = ${s.t};                      // and of its tau slot

extern "C" __global__ void __launch_bounds__(${p.blockThreads}) ${entry}(
    ${operandParameters('A', p.kind, true)},
    ${operandParameters('T', p.kind, geqrf)},
    ${geqrf ? 'int* __restrict__ info, ' : ''}const int* __restrict__ index, int count) {
  (void)M; (void)N; (void)K; (void)SA; (void)ST; (void)TBC; (void)MAXR;${geqrf ? ' (void)SAFMIN;' : ''}
${access}
${body}
${finish}
}
`;
}

/** The block-wide copies back to global memory (staged kernels, after the barrier). */
function storeAll(p: QrThreadParams): string {
  const c = copies(p);
  return `  ${storeTiles(c.a(p.n))}${p.op === 'geqrf' && p.k > 0 ? `\n  ${storeTiles(c.t)}` : ''}`;
}

export function geqrfThreadSource(p: QrThreadParams): KernelSource {
  if (p.op !== 'geqrf') throw new Error('geqrfThreadSource takes op geqrf');
  checkQrThread(p);
  if (p.variant === 'fast') throw new Error('geqrfThreadSource is the classic variant (the fast one: generate-thread-fast.ts)');
  const entry = qrThreadName(p);
  const cells = range(0, p.n).flatMap((j) => range(0, p.m).map((i) => [i, j] as const));
  const load = `${p.stage ? `  ${loadTiles(copies(p).a(p.n))}` : ''}`;
  const body = `${cells.map(([i, j]) => `  real ${r(i, j)} = ${slotAt(p, i, j)};`).join('\n')}
${range(0, p.k).map((j) => `${geqr2Step(p, j)}
${range(0, p.m).map((i) => `  ${slotAt(p, i, j)} = ${r(i, j)};`).join('\n')}
  ${tauAt(p, j)} = tau${j};`).join('\n')}`;
  // Columns past the last reflector (m < n) hold their final values once the last step is applied.
  const store = range(p.k, p.n).flatMap((j) => range(0, p.m).map((i) => `  ${slotAt(p, i, j)} = ${r(i, j)};`)).join('\n');
  return { name: `${entry}.cu`, source: kernel(p, entry, load, body, store), entry };
}

export function orgqrThreadSource(p: QrThreadParams): KernelSource {
  if (p.op !== 'orgqr') throw new Error('orgqrThreadSource takes op orgqr');
  checkQrThread(p);
  const entry = qrThreadName(p);
  const c = copies(p);
  // Only the K reflector columns are read (below their diagonals); the others start as unit vectors.
  const load = p.stage && p.k > 0 ? `  ${loadTiles(c.a(p.k))}\n  ${loadTiles(c.t)}` : '';
  const units = range(p.k, p.n).flatMap((j) => range(0, p.m).map((i) => `  real ${r(i, j)} = real(${i === j ? 1 : 0});`));
  const body = `${range(0, p.k).map((j) => `  const real tau${j} = ${tauAt(p, j)};`).join('\n')}
${units.join('\n')}
${range(0, p.k).reverse().map((j) => org2rStep(p, j)).join('\n')}`;
  const store = range(0, p.n).flatMap((j) => range(0, p.m).map((i) => `  ${slotAt(p, i, j)} = ${r(i, j)};`)).join('\n');
  return { name: `${entry}.cu`, source: kernel(p, entry, load, body, store), entry };
}
