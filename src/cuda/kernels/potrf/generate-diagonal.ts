/**
 * The large Cholesky's diagonal block, factored AND inverted by one thread block
 * (gpu-only-cholesky.txt: the panel is the serial path, so it must be one short kernel; its
 * triangular solve then needs only the inverse, as batched-triangular-kblas.txt's TRSM by inverted
 * diagonal blocks). The driver (launch.ts, potrfInvertedPanels) follows it with the panel solve
 * A21 := A21 W^T, W = L11^-1 (generate-panel-solve.ts), and the trailing SYRK.
 *
 * Algorithm: symmetric Gauss-Jordan on [A11 | I] by block rows of 4 (a panel jt). The owner of the
 * panel's 4 x 4 diagonal tile factors it alone in registers and inverts that factor E (no division:
 * 1 / E(m, m) is the pivot's rsqrt); one barrier; the panel's other tiles become L(I, jt) =
 * A(I, jt) E^-T and W's row block W(jt, :) := E^-1 W(jt, :), both published to shared memory
 * (by column, 16-byte loads, no bank conflicts); a second barrier; then the rank-4 updates
 * A(I, K) -= L(I, jt) L(K, jt)^T (I >= K > jt: the right-looking Cholesky) and
 * W(I, C) -= L(I, jt) W(jt, C) (I > jt, C <= jt: W = L^-1 built by rows). Two barriers per 4
 * columns.
 *
 * Layout: NB x NB in 4 x 4 tiles; the Schur complement's tiles go to threads by columns (a panel
 * is a few consecutive warps), W's by rows. Up to NB = 96 a thread owns one tile of one triangle
 * (more warps to hide the latency chain); above, tile t of both (NB = 128: 528 threads of 32
 * values). Register indices are compile-time (unrolled loops with predicates).
 *
 * A block of `size` < NB (the last panel) is padded with the identity, which is its own factor and
 * inverse and leaves the leading block unchanged. 'upper' factors L = U^T, reading element (i, k)
 * of L at A[k + i * ld].
 *
 * Failure at column j (d not > 0, or NaN; the diagonal tile's owner publishes it, so the block
 * stops together after the panel): info = column + j + 1 if it is still 0; E is the factor's
 * columns < j and the identity beyond, so the panel's columns < j, and W's rows < j, come out final
 * and columns >= j keep their raw values (A(j, j) = d, as LAPACK leaves it). Elements above the
 * diagonal of A are never written. W is written on and below its diagonal, in 4 x 4 tiles (zeros
 * above the diagonal inside the diagonal tiles); the tiles above it are left as they were.
 */
import type { DType } from '../../../core/dtype.js';
import { cudaMath, dtypeInfo } from '../../../core/dtype-table.js';
import type { KernelSource } from '../../runtime/types.js';
import { operandParameters } from '../common/batch-pointer.js';
import { precisionLetter, precisionPrelude } from '../common/precision.js';
import type { PotrfDiagonalParams } from './params.js';

/** Tile edge: every thread holds one TILE x TILE block of each triangle. */
const TILE = 4;

/** Largest block whose two triangles' tiles go to separate threads (2 x tiles <= 1024). */
const SPLIT_MAX = 96;

/**
 * Threads of the launch for a block of nb: one per tile of each triangle up to SPLIT_MAX (more
 * warps to hide the step's latency chain), else one per tile pair; rounded to warps.
 */
export function potrfDiagonalThreads(nb: number): number {
  const tiles = (nb / TILE) * (nb / TILE + 1) / 2;
  return Math.ceil((nb <= SPLIT_MAX ? 2 * tiles : tiles) / 32) * 32;
}

/** The block sizes the kernel accepts (a multiple of TILE up to 128: at most 544 threads of 32 values each). */
export function potrfDiagonalFits(nb: number): boolean {
  return Number.isInteger(nb) && nb >= TILE && nb <= 128 && nb % TILE === 0;
}

/**
 * load4(dst, src): four consecutive elements of shared memory (16-byte aligned) in one or two
 * 16-byte loads; a thread's 32 bytes lie beside its neighbours' (no bank conflicts). Shared by the
 * family's large-path kernels.
 */
export function load4Source(dtype: DType): string {
  return dtypeInfo(dtype).vectorLanes === 2
    ? `#ifndef MYRIAD_LOAD4
#define MYRIAD_LOAD4
static __device__ __forceinline__ void load4(real (&dst)[${TILE}], const real* src) {
  const double2 lo = *reinterpret_cast<const double2*>(src), hi = *reinterpret_cast<const double2*>(src + 2);
  dst[0] = lo.x; dst[1] = lo.y; dst[2] = hi.x; dst[3] = hi.y;
}
#endif`
    : `#ifndef MYRIAD_LOAD4
#define MYRIAD_LOAD4
static __device__ __forceinline__ void load4(real (&dst)[${TILE}], const real* src) {
  const float4 q = *reinterpret_cast<const float4*>(src);
  dst[0] = q.x; dst[1] = q.y; dst[2] = q.z; dst[3] = q.w;
}
#endif`;
}

/** store4(dst, src): the mirror of load4 (four consecutive elements, 16-byte aligned, any memory). */
function store4Source(dtype: DType): string {
  return dtypeInfo(dtype).vectorLanes === 2
    ? `static __device__ __forceinline__ void store4(real* dst, const real (&src)[${TILE}]) {
  *reinterpret_cast<double2*>(dst) = make_double2(src[0], src[1]);
  *reinterpret_cast<double2*>(dst + 2) = make_double2(src[2], src[3]);
}`
    : `static __device__ __forceinline__ void store4(real* dst, const real (&src)[${TILE}]) {
  *reinterpret_cast<float4*>(dst) = make_float4(src[0], src[1], src[2], src[3]);
}`;
}

/**
 * The block's device function `potrfDiagonalBlock` with its macros and helpers (the macros are
 * undefined after it, so that another kernel's source can follow: generate-fused-panel.ts).
 */
export function potrfDiagonalDevice(p: PotrfDiagonalParams): string {
  const split = p.nb <= SPLIT_MAX;
  const at = p.uplo === 'lower' ? 'a[(i) + (long long)(k) * ldA]' : 'a[(k) + (long long)(i) * ldA]';
  // Unrolled loops (compile-time register indices): over a tile's rows r, columns c, and the
  // panel's columns m.
  const loop = (v: string, body: string): string => `#pragma unroll
    for (int ${v} = 0; ${v} < ${TILE}; ++${v}) {
      ${body}
    }`;
  const rows = (body: string): string => loop('r', body);
  const cols = (body: string): string => loop('c', body);
  // tile -= sum over the panel's columns m of (4 rows at `left`) (4 columns at `right`)^T: the rank-4 update of phase 3.
  const rankUpdate = (tile: string, left: string, right: string): string => loop('m', `real lr[${TILE}], rc[${TILE}];
        load4(lr, ${left});
        load4(rc, ${right});
        ${rows(cols(`${tile}[r][c] = fmaReal(-lr[r], rc[c], ${tile}[r][c]);`))}`);
  const source = `#define NB ${p.nb}
#define TB (NB / ${TILE})
#define TILES (TB * (TB + 1) / 2)
// Element (i, k) of the lower factor's storage: A itself ('lower') or A^T ('upper').
#define AT(i, k) ${at}
static __device__ __forceinline__ real rsqrtReal(real x) { return ${cudaMath(p.dtype, 'rsqrt')}(x); }
${load4Source(p.dtype)}
${store4Source(p.dtype)}

// One matrix's diagonal block: a at its first element, w its inverse's NB x NB (ld NB), info its
// info; column: the block's first column in the whole matrix (for info). Threads beyond the
// block's roles (a larger launch: the fused panel) only take part in the barriers.
static __device__ void potrfDiagonalBlock(real* __restrict__ a, int ldA, real* __restrict__ w, int* __restrict__ info, int size, int column) {
  __shared__ __align__(16) real sL[${TILE}][NB];   // the panel's column block of L (rows below its diagonal tile), by column
  __shared__ __align__(16) real sW[${TILE}][NB];   // the panel's row block of W, final
  __shared__ real sInv[${TILE}][${TILE}];   // the inverse of the panel's diagonal factor
  __shared__ int sFail;                     // 0, or 1 + the failing column within the block
  const int t = threadIdx.x;
  // ${split ? 'Threads [0, TILES) own a tile of the Schur complement, [TILES, 2 TILES) one of W.' : 'Thread t < TILES owns tile t of both triangles.'}
  const bool aOwner = t < TILES;
  const int tw = ${split ? 't - TILES' : 't'};
  const bool wOwner = tw >= 0 && tw < TILES;
  // The Schur complement's tiles by columns (tile (ai, ak), column ak = 0, 1, ...), so that one
  // panel's tiles are a few consecutive warps ...
  int ak = 0, first = 0;
  while (ak < TB - 1 && first + (TB - ak) <= t) { first += TB - ak; ++ak; }
  const int ai = ak + (t - first);
  // ... and W's by rows (tw = wi (wi + 1) / 2 + wk), so that one row block of W is.
  const int u = wOwner ? tw : 0;
  int wi = (int)((sqrtf(8.0f * u + 1.0f) - 1.0f) * 0.5f);
  while (wi * (wi + 1) / 2 > u) --wi;
  while ((wi + 1) * (wi + 2) / 2 <= u) ++wi;
  const int wk = u - wi * (wi + 1) / 2;
  const int ai0 = ${TILE} * ai, ak0 = ${TILE} * ak, wi0 = ${TILE} * wi, wk0 = ${TILE} * wk;

  // x: the thread's tile of the Schur complement (then of L), v: its tile of W (the identity at
  // first). ${split ? 'A thread has one role: one register tile serves both names.' : 'Both live in registers.'}
  real x[${TILE}][${TILE}]${split ? '' : `, v[${TILE}][${TILE}]`};
${split ? `  real (&v)[${TILE}][${TILE}] = x;
` : ''}  // A tile wholly inside the block, in 16-byte aligned memory, moves by 16-byte accesses along its
  // stored direction (columns of L: ${p.uplo === 'lower' ? 'rows r of a column c are consecutive' : 'the stored rows are L\'s columns'}): the
  // scattered 8-byte accesses of a tile per thread were most of the kernel's fixed cost.
  const bool vec = ((reinterpret_cast<unsigned long long>(a) & 15) == 0) && (ldA % ${dtypeInfo(p.dtype).vectorLanes} == 0);
  const bool wholeA = aOwner && vec && ai0 + ${TILE} <= size && ak0 + ${TILE} <= size;
  if (wholeA) {
    ${p.uplo === 'lower'
      ? loop('c', `real col[${TILE}];
      load4(col, &a[ai0 + (long long)(ak0 + c) * ldA]);
      ${rows('x[r][c] = ai > ak || r >= c ? col[r] : real(0);')}`)
      : loop('r', `real row[${TILE}];
      load4(row, &a[ak0 + (long long)(ai0 + r) * ldA]);
      ${cols('x[r][c] = ai > ak || r >= c ? row[c] : real(0);')}`)}
  } else {
    ${rows(cols(`const int i = ai0 + r, k = ak0 + c;
      ${split ? `x[r][c] = wOwner ? real(wi0 + r == wk0 + c)
        : !aOwner ? real(0) : (i < size && k < size) ? (i >= k ? AT(i, k) : real(0)) : real(i == k);` : `x[r][c] = !aOwner ? real(0) : (i < size && k < size) ? (i >= k ? AT(i, k) : real(0)) : real(i == k);`}`))}
  }
${split ? '' : `  ${rows(cols('v[r][c] = real(wi0 + r == wk0 + c);'))}
`}
  for (int jt = 0; ${TILE} * jt < size; ++jt) {
    // 1. The owner of the diagonal tile factors it alone (unblocked, in registers) and inverts
    //    the factor. A failing pivot m ends the factor there: columns >= m keep their raw values
    //    (A(j, j) = d as LAPACK leaves it) and count as the identity in the inverse, so that the
    //    panel's columns < m still come out right below.
    if (aOwner && ai == jt && ak == jt) {
      int fail = ${TILE};
      real rs[${TILE}];                   // 1 / E(m, m): the pivots' rsqrt, 1 past a failure
      ${loop('m', `rs[m] = real(1);
      if (fail == ${TILE}) {
        const real dm = x[m][m];
        if (!(dm > real(0))) fail = m;
        else {
          const real sm = rsqrtReal(dm);
          rs[m] = sm;
          ${rows(`if (r == m) x[r][m] = dm * sm; else if (r > m) x[r][m] *= sm;`)}
          ${rows(cols(`if (r > m && c > m && c <= r) x[r][c] = fmaReal(-x[r][m], x[c][m], x[r][c]);`))}
        }
      }`)}
      // E: the factor's columns < fail, the identity's beyond; sInv := E^-1 by substitution
      // (no division: 1 / E(r, r) is the pivot's rsqrt).
      real z[${TILE}][${TILE}];
#define E(r, c) ((c) < fail ? ((c) <= (r) ? x[r][c] : real(0)) : real((r) == (c)))
      ${cols(`${rows(`if (r < c) z[r][c] = real(0);
        else {
          real acc = real(r == c);
#pragma unroll
          for (int m = 0; m < ${TILE}; ++m) if (m >= c && m < r) acc = fmaReal(-E(r, m), z[m][c], acc);
          z[r][c] = acc * rs[r];
        }`)}`)}
#undef E
      ${rows(cols('sInv[r][c] = z[r][c];'))}
      sFail = fail < ${TILE} && ${TILE} * jt + fail < size ? ${TILE} * jt + fail + 1 : 0;
    }
    __syncthreads();
    const int fail = sFail;
    // 2. The panel below the diagonal tile, L(I, jt) = A(I, jt) E^-T, and W's row block,
    //    W(jt, :) := E^-1 W(jt, :), both to shared memory for the update.
    if (aOwner && ak == jt && ai > jt) {
      real y[${TILE}][${TILE}];
      ${rows(cols(`real acc = real(0);
#pragma unroll
        for (int m = 0; m < ${TILE}; ++m) if (m <= c) acc = fmaReal(x[r][m], sInv[c][m], acc);
        y[r][c] = acc;`))}
      ${rows(cols('x[r][c] = y[r][c]; sL[c][ai0 + r] = y[r][c];'))}
    }
    if (wOwner && wi == jt) {
      real y[${TILE}][${TILE}];
      ${rows(cols(`real acc = real(0);
#pragma unroll
        for (int m = 0; m < ${TILE}; ++m) if (m <= r) acc = fmaReal(sInv[r][m], v[m][c], acc);
        y[r][c] = acc;`))}
      ${rows(cols('v[r][c] = y[r][c]; sW[r][wk0 + c] = y[r][c];'))}
    }
    __syncthreads();
    if (fail) {                           // block-uniform
      if (t == 0 && *info == 0) *info = column + fail;
      break;
    }
    // 3. The rank-${TILE} updates: A(I, K) -= L(I, jt) L(K, jt)^T for I >= K > jt (above the diagonal
    //    garbage, never stored), W(I, C) -= L(I, jt) W(jt, C) for I > jt, C <= jt. The next
    //    step's barrier orders them before shared memory is written again.
    if (aOwner && ak > jt) {
      ${rankUpdate('x', '&sL[m][ai0]', '&sL[m][ak0]')}
    }
    if (wOwner && wi > jt && wk <= jt) {
      ${rankUpdate('v', '&sL[m][wi0]', '&sW[m][wk0]')}
    }
  }

  // Write back: L over A's triangle (inside the block; a tile below the diagonal by 16-byte stores
  // where the loads were), W's tiles on and below its diagonal (zeros above the diagonal inside
  // the diagonal tiles; the tiles above are not written: the panel solve never reads them).
  if (wholeA && ai > ak) {
    ${p.uplo === 'lower'
      ? loop('c', `real col[${TILE}];
      ${rows('col[r] = x[r][c];')}
      store4(&a[ai0 + (long long)(ak0 + c) * ldA], col);`)
      : loop('r', `store4(&a[ak0 + (long long)(ai0 + r) * ldA], x[r]);`)}
  } else if (aOwner) {
    ${rows(cols(`const int i = ai0 + r, k = ak0 + c;
      if (i < size && k < size && i >= k) AT(i, k) = x[r][c];`))}
  }
  if (wOwner) {
    ${loop('c', `real col[${TILE}];
      ${rows('col[r] = wi > wk || r >= c ? v[r][c] : real(0);')}
      store4(&w[wi0 + (wk0 + c) * NB], col);`)}
  }
}
#undef NB
#undef TB
#undef TILES
#undef AT
`;
  return source;
}

export function potrfDiagonalSource(p: PotrfDiagonalParams): KernelSource {
  const entry = `potrf_diag_${precisionLetter(p.dtype)}_${p.uplo === 'lower' ? 'l' : 'u'}_nb${p.nb}`;
  const source = `${precisionPrelude(p.dtype)}
${potrfDiagonalDevice(p)}
// A: the diagonal block of each matrix (offset at its first element); W: count inverses of NB x NB
// (ld NB); column: the block's first column in the whole matrix (for info).
extern "C" __global__ void __launch_bounds__(${potrfDiagonalThreads(p.nb)}) ${entry}(
    ${operandParameters('A', 'strided', true)}, real* __restrict__ W,
    int* __restrict__ info, int count, int size, int column) {
  const int q = blockIdx.x;
  if (q >= count) return;
  potrfDiagonalBlock(A + offsetA + (long long)q * strideA, ldA, W + (long long)q * ${p.nb * p.nb}, info + q, size, column);
}
`;
  return { name: `${entry}.cu`, source, entry };
}
