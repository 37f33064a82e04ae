/**
 * Batched Cholesky for n > 32: the paper's left-looking fused kernel (section 4.3, Algorithm 2
 * and Algorithm 3), one launch per panel of IB columns, one thread block per matrix.
 *
 * Launch for panel i0 (m = n - i0 rows): each thread owns rows of the panel and keeps them in
 * registers (acc[IB]) while it applies the updates from the left, C -= A(i0:n, 0:i0) A(i0:i0+ib, 0:i0)^T
 * (SYRK + GEMM fused), reading the left part once from memory; the small IB x KB block of
 * A(i0:i0+ib, k0:k0+KB) is staged in shared memory and read as 16-byte broadcasts. The updated panel
 * then goes to shared memory, is factored there (POTF2 + TRSM as one right-looking sweep over IB
 * columns) and written back. Each launch sizes its shared memory to its own panel (m x IB),
 * the paper's last refinement: late panels are small, so more blocks fit per SM.
 *
 * Left-looking leaves the columns right of a failing one untouched, so a failure at column k
 * leaves the matrix exactly as LAPACK's potf2 does. Later launches skip a matrix whose info is
 * already set (info is written by the launch of panel 0 for every matrix).
 *
 * 'upper' is the same algorithm on L = U^T: element (i, j) of L is read at A[j + i * ld].
 */
import { cudaMath, dtypeInfo } from '../../../core/dtype-table.js';
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { elementBytes, precisionLetter, precisionPrelude } from '../common/precision.js';
import type { PotrfPanelParams } from './params.js';

export const PANEL_MAX_THREADS = 512;

/** Dynamic shared bytes of the launch for a panel of m rows. */
export function potrfPanelSharedBytes(p: PotrfPanelParams, m: number): number {
  return (p.ib * p.kb + m * p.ib) * elementBytes(p.dtype);
}

export function potrfPanelSource(p: PotrfPanelParams): KernelSource {
  return panelSource(p, {
    tag: 'panel',
    parameters: `${operandParameters('A', p.kind, true)},
    int* __restrict__ info, const int* __restrict__ index, int count, int n, int iStart`,
    opening: `const long long id = index ? (long long)index[mid] : mid;
  if (iStart > 0 && info[id] != 0) return;       // failed in an earlier panel: leave it as it is
  real* a = ${matrixPointer('A', p.kind, 'mid')};`,
  });
}

/**
 * A size class of a variable batch (common/vbatch.ts), loop-inclusive (one launch for every
 * panel; `p.loop` must be true): each member's pointer, order n, ld and batch index from device
 * tables (ints: n, ld, index per member); shared memory sized for the class's largest order.
 * n is a run-time value in this design anyway, so a member sees exactly the uniform kernel's
 * operations. Members of order 0 are not given to it (it would not write their info).
 */
export function potrfPanelVbatchedSource(p: PotrfPanelParams): KernelSource {
  if (p.loop !== true) throw new Error('the vbatched panel kernel is loop-inclusive: loop must be true');
  return panelSource(p, {
    tag: 'vpanel',
    parameters: 'real* const* __restrict__ A, const int* __restrict__ dims, int* __restrict__ info, int count',
    opening: `const int n = dims[3 * mid], ldA = dims[3 * mid + 1], iStart = 0;
  const long long id = dims[3 * mid + 2];
  real* a = A[mid];`,
  });
}

/** What the uniform and the class kernels differ in: parameters and the block's matrix. */
interface PanelFrame {
  readonly tag: string;
  readonly parameters: string;
  readonly opening: string;
}

function panelSource(p: PotrfPanelParams, f: PanelFrame): KernelSource {
  const entry = `potrf_${f.tag}_${precisionLetter(p.dtype)}_${p.uplo === 'lower' ? 'l' : 'u'}_ib${p.ib}_kb${p.kb}_${kindTag(p.kind)}${p.loop === true ? '_loop' : ''}`;
  const { vectorLanes: vw, cuda: { vector: { type: vec } } } = dtypeInfo(p.dtype);
  const comps = ['x', 'y', 'z', 'w'].slice(0, vw);
  const upper = p.uplo === 'upper';
  const source = `${precisionPrelude(p.dtype)}
constexpr int IB = ${p.ib};
constexpr int KB = ${p.kb};
constexpr int VW = ${vw};
typedef ${vec} vec;
static __device__ __forceinline__ real vget(const vec& v, int e) {
  return ${comps.slice(0, -1).map((c, i) => `e == ${i} ? v.${c} : `).join('')}v.${comps[vw - 1]};
}
// Element (i, j) of the lower factor's storage: A itself ('lower') or A^T ('upper').
#define AT(i, j) a[${upper ? '(j) + (long long)(i) * ldA' : '(i) + (long long)(j) * ldA'}]

extern "C" __global__ void __launch_bounds__(${PANEL_MAX_THREADS}) ${entry}(
    ${f.parameters}) {
  extern __shared__ __align__(16) unsigned char smemRaw[];
  real* sB = reinterpret_cast<real*>(smemRaw);   // KB x IB: sB[kk * IB + c] = L(i0 + c, k0 + kk)
  real* sP = sB + IB * KB;                       // the panel, m x IB, column-major (ld m)
  const long long mid = blockIdx.x;
  if (mid >= count) return;
  ${f.opening}
${p.loop === true ? `  for (int i0 = iStart; i0 < n; i0 += IB) {
  __syncthreads();                               // the previous panel's shared memory is consumed` : '  for (int i0 = iStart; i0 == iStart; i0 += IB) {   // one panel'}
  const int m = n - i0;
  const int ib = min(IB, m);
  const int tid = threadIdx.x, nt = blockDim.x;

  // 1. Update the panel from the left (SYRK on the diagonal block, GEMM below it), rows in registers.
  for (int g0 = 0; g0 < m; g0 += nt) {
    const int r = g0 + tid;
    const bool live = r < m;
    real acc[IB];
#pragma unroll
    for (int c = 0; c < IB; ++c) acc[c] = (live && c < ib && r >= c) ? AT(i0 + r, i0 + c) : real(0);
    for (int k0 = 0; k0 < i0; k0 += KB) {
      __syncthreads();                             // the previous stage is consumed
      for (int e = tid; e < IB * KB; e += nt) {
        // coalesced reads: consecutive threads walk the contiguous index of the storage
        ${upper ? 'const int kk = e % KB, c = e / KB;' : 'const int c = e % IB, kk = e / IB;'}
        sB[kk * IB + c] = (c < ib && k0 + kk < i0) ? AT(i0 + c, k0 + kk) : real(0);
      }
      __syncthreads();
      real v[KB];
#pragma unroll
      for (int kk = 0; kk < KB; ++kk) v[kk] = (live && k0 + kk < i0) ? AT(i0 + r, k0 + kk) : real(0);
#pragma unroll
      for (int kk = 0; kk < KB; ++kk) {
#pragma unroll
        for (int c0 = 0; c0 < IB; c0 += VW) {
          if (c0 + VW <= IB) {
            const vec w = *reinterpret_cast<const vec*>(sB + kk * IB + c0);
#pragma unroll
            for (int e = 0; e < VW; ++e) acc[c0 + e] = fmaReal(-v[kk], vget(w, e), acc[c0 + e]);
          } else {
#pragma unroll
            for (int e = 0; c0 + e < IB; ++e) acc[c0 + e] = fmaReal(-v[kk], sB[kk * IB + c0 + e], acc[c0 + e]);
          }
        }
      }
    }
    if (live) {
#pragma unroll
      for (int c = 0; c < IB; ++c) if (c < ib) sP[r + c * m] = acc[c];
    }
  }
  __syncthreads();

  // 2. Factor the panel in shared memory (POTF2 on the diagonal block and TRSM below, one sweep).
  int fail = 0;
#pragma unroll
  for (int k = 0; k < IB; ++k) {
    if (k >= ib) break;
    const real d = sP[k + k * m];
    if (!(d > real(0))) { fail = k + 1; break; }   // block-uniform
    const real piv = ${cudaMath(p.dtype, 'sqrt')}(d);
    const real rcp = real(1) / piv;
    __syncthreads();                               // every thread has read d
    for (int r = k + tid; r < m; r += nt) sP[r + k * m] = (r == k) ? piv : sP[r + k * m] * rcp;
    __syncthreads();
    for (int r = k + 1 + tid; r < m; r += nt) {
      const real l = sP[r + k * m];
#pragma unroll
      for (int j = k + 1; j < IB; ++j)
        if (j < ib && r >= j) sP[r + j * m] = fmaReal(-l, sP[j + k * m], sP[r + j * m]);
    }
    __syncthreads();
  }

  // 3. Write back: the factored columns, and on failure only the failing diagonal value.
  const int kf = fail ? fail - 1 : ib;
  for (int r = tid; r < m; r += nt) {
#pragma unroll
    for (int c = 0; c < IB; ++c)
      if (c < ib && r >= c && (c < kf || (c == kf && r == kf))) AT(i0 + r, i0 + c) = sP[r + c * m];
  }
  if (tid == 0 && (fail || i0 == 0)) info[id] = fail ? i0 + fail : 0;
  if (fail) break;                               // block-uniform
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}
