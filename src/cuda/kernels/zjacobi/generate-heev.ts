/**
 * Batched Hermitian eigendecomposition for n <= 32 (zheev / cheev): two-sided cyclic Jacobi on
 * complex matrices, the real warp design (jacobi/generate-warp.ts) over `real2` pairs.
 *
 * Layout: `threads` lanes (a power of two) per matrix, `perBlock` matrices per block, several
 * matrices per warp where one cannot fill it; each matrix has its own slot of shared memory (the
 * full Hermitian A and V, pairs), so no workspace in global memory: A is read once, the outputs
 * written once. The only barrier is __syncwarp; the matrices of one warp sweep together until all
 * of them have converged (__all_sync), a converged matrix idling.
 *
 * Load: only the `uplo` triangle is read and mirrored conjugated; the diagonal's imaginary part is
 * never read (zhetrd's rule: a Hermitian matrix's diagonal is real), so the diagonal is real from
 * the start, and stays so: a rotated pair's diagonal entries are written as exact reals.
 *
 * Order: the round-robin (circle) tournament over n2 = n rounded up to even indices (a zero dummy
 * index for odd n, never rotated): n2 - 1 rounds per sweep, each of n2 / 2 disjoint pairs, so a
 * round's rotations commute and run at once. For a pair (p, q), a_pq = |a_pq| e with |e| = 1: the
 * rotation is the complex reference's (cpu/complex/zrotation.ts), J = D R D^H with D = diag(1,
 * conj(e)) and R the real rotation of [[a_pp, |a_pq|], [|a_pq|, a_qq]] (t = tan(theta) from
 * cot(2 theta) = (a_qq - a_pp) / (2 |a_pq|), c = 1 / sqrt(1 + t^2), s = t c), so J(p, p) = J(q, q)
 * = c, J(p, q) = s e, J(q, p) = -s conj(e). One lane per pair computes (c, s, e), then the lanes
 * apply all of them to columns (A J, V J), then to rows (J^H A), and the pair's lane writes the
 * 2 x 2 block's exact result (a_pp - t |a_pq|, a_qq + t |a_pq|, zeros).
 *
 * Convergence, sweep limit, info and NaN handling are the complex reference's (cpu/complex/zheev.ts)
 * with eps of the dtype: a pair rotates while |a_pq| > sqrt(n) eps sqrt(|a_pp|) sqrt(|a_qq|) (|a_pq|
 * by hypot, no squares: no scaling needed); info n + 1 where `maxSweeps` sweeps did not converge,
 * n + 2 where the referenced part of A held NaN or Inf (W, and A with vectors, NaN). The
 * eigenvalues ascending (ties by index) with their vectors; with 'values' A is not written. No
 * Gram-Schmidt pass over V: the reference makes one only above n = 32 (REORTHOGONALIZE_ABOVE).
 *
 * `__launch_bounds__(threads, 1)`: given the minimum of one block an SM, ptxas keeps every value in
 * registers (without it, complex128 n = 2 with 'values' spilled 12 bytes at 48 registers).
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { complexLetter, complexPrelude } from '../common/complex.js';
import { identityOrder, jacobiConstants, PAIR_OF, WARP_SLOT } from '../common/jacobi-rotation.js';
import { elementBytes, mathHelpers, precisionPrelude } from '../common/precision.js';
import type { HeevWarpParams } from './params.js';
import { pairLoop, rotationHelpers } from './snippets.js';

/** Shared bytes of one block (static shared memory: at most 48 KiB): A and V (pairs), each pair's e, c, s, and the order. */
export function heevWarpSharedBytes(p: Pick<HeevWarpParams, 'dtype' | 'n' | 'vectors' | 'perBlock'>): number {
  const n2 = p.n + (p.n & 1);
  const el = elementBytes(p.dtype);
  const half = n2 / 2;
  return p.perBlock * (n2 * (n2 + 1) * (p.vectors ? 2 : 1) * 2 * el + half * 4 * el + n2 * 4);
}

/** The kernel's entry name: precision letter (z, c), operand form, n, uplo, vectors, then the shape. */
const heevWarpEntry = (p: HeevWarpParams): string =>
  `heev_warp_${complexLetter(p.dtype)}_${kindTag(p.kind)}_n${p.n}_${p.uplo === 'lower' ? 'l' : 'u'}${p.vectors ? 'v' : 'n'}_t${p.threads}x${p.perBlock}_s${p.maxSweeps}`;

export function heevWarpSource(p: HeevWarpParams): KernelSource {
  const { dtype, n, uplo, vectors, kind, threads, perBlock, maxSweeps } = p;
  const entry = heevWarpEntry(p);
  const V = (line: string): string => (vectors ? `${line}\n` : '');
  const referenced = uplo === 'lower' ? 'i > j' : 'i < j';
  const source = `${precisionPrelude(dtype)}
${mathHelpers(dtype)}
${jacobiConstants(dtype)}
${complexPrelude(dtype)}
${rotationHelpers(dtype)}
constexpr int N = ${n};
constexpr int N2 = N + (N & 1);
constexpr int HALF = N2 / 2;
constexpr int LDS = N2 + 1;
constexpr int T = ${threads};
constexpr int MPB = ${perBlock};
constexpr int MAX_SWEEPS = ${maxSweeps};
${PAIR_OF}

extern "C" __global__ void __launch_bounds__(${threads * perBlock}, 1) ${entry}(
    ${operandParameters('A', kind, true, 'real2')},
    ${operandParameters('W', kind, true)},
    int* __restrict__ info, const int* __restrict__ index, int count) {
  __shared__ real2 sA[MPB * N2 * LDS];
${V('  __shared__ real2 sV[MPB * N2 * LDS];')}  __shared__ real2 sE[MPB * HALF];
  __shared__ real sC[MPB * HALF];
  __shared__ real sS[MPB * HALF];
  __shared__ int sP[MPB * N2];
${WARP_SLOT}
  real2* a = sA + slot * (N2 * LDS);
${V('  real2* v = sV + slot * (N2 * LDS);')}  real2* ph = sE + slot * HALF;
  real* cs = sC + slot * HALF;
  real* sn = sS + slot * HALF;
  int* perm = sP + slot * N2;
  const real tol = sqrtReal(real(N)) * EPS;
  int bad = 0;
  if (active) {
    const real2* g = ${matrixPointer('A', kind, 'mat')};
    // The ${uplo} triangle mirrored conjugated; the diagonal's real part only.
    for (int idx = tid; idx < N2 * N2; idx += T) {
      const int i = idx % N2, j = idx / N2;
      real2 x = makeReal2(real(0), real(0));
      if (i < N && j < N) {
        if (i == j) x.x = g[i + (long long)j * ldA].x;
        else if (${referenced}) x = g[i + (long long)j * ldA];
        else { x = g[j + (long long)i * ldA]; x.y = -x.y; }
      }
      if (!(absReal(x.x) <= MAXR) || !(absReal(x.y) <= MAXR)) bad = 1;
      a[i + j * LDS] = x;
${V('      v[i + j * LDS] = makeReal2(i == j ? real(1) : real(0), real(0));')}    }
  }
  const bool failed = (__ballot_sync(FULL, bad) & group) != 0u;
  bool done = !active || failed || N < 2;
  __syncwarp();
  for (int sweep = 0; sweep < MAX_SWEEPS; ++sweep) {
    if (__all_sync(FULL, done)) break;
    int rotated = 0;
    for (int r = 0; r < N2 - 1; ++r) {
      int p = 0, q = 0;
      bool rot = false;
      real app2 = real(0), aqq2 = real(0);
      if (!done && tid < HALF) {
        pairOf(r, tid, p, q);
        const real2 apq = a[p + q * LDS];
        const real app = a[p + p * LDS].x, aqq = a[q + q * LDS].x;
        const real g = modulusReal2(apq);
        real c = real(1), s = real(0);
        real2 e = makeReal2(real(1), real(0));
        if (g != real(0) && g > tol * sqrtReal(absReal(app)) * sqrtReal(absReal(aqq))) {
          const real t = tangent((aqq - app) / (real(2) * g));
          c = real(1) / sqrtReal(real(1) + t * t);
          s = t * c;
          e = unitPhase(apq, g);
          app2 = app - t * g;
          aqq2 = aqq + t * g;
          rot = true;
          rotated = 1;
        }
        cs[tid] = c;
        sn[tid] = s;
        ph[tid] = e;
      }
      __syncwarp();
      if (!done) {
        // A := A J and V := V J: lane pairs (k, i) rotate row i of columns p_k, q_k.
${pairLoop('N2', 'i', ['rotColumns(a[i + pp * LDS], a[i + qq * LDS], c, s, e);', ...(vectors ? ['rotColumns(v[i + pp * LDS], v[i + qq * LDS], c, s, e);'] : [])])}
      }
      __syncwarp();
      if (!done) {
        // A := J^H A: column j of rows p_k, q_k.
${pairLoop('N2', 'j', ['rotRows(a[pp + j * LDS], a[qq + j * LDS], c, s, e);'])}
      }
      __syncwarp();
      if (rot) {
        a[p + p * LDS] = makeReal2(app2, real(0));
        a[q + q * LDS] = makeReal2(aqq2, real(0));
        a[p + q * LDS] = makeReal2(real(0), real(0));
        a[q + p * LDS] = makeReal2(real(0), real(0));
      }
      __syncwarp();
    }
    if ((__ballot_sync(FULL, rotated) & group) == 0u) done = true;
  }
${identityOrder('N', '__syncwarp()')}
  // Ascending order by rank (ties by index): perm[rank] = j.
  if (active && !failed) {
    for (int j = tid; j < N; j += T) {
      const real dj = a[j * (LDS + 1)].x;
      int rank = 0;
      for (int k = 0; k < N; ++k) {
        const real dk = a[k * (LDS + 1)].x;
        rank += (dk < dj || (dk == dj && k < j)) ? 1 : 0;
      }
      perm[rank] = j;
    }
  }
  __syncwarp();
  if (!active) return;
  if (tid == 0) info[index ? index[mat] : mat] = failed ? N + 2 : (done ? 0 : N + 1);
  real* w = ${matrixPointer('W', kind, 'mat')};
  for (int j = tid; j < N; j += T) w[j] = failed ? nanReal() : a[perm[j] * (LDS + 1)].x;
${vectors ? `  real2* z = ${matrixPointer('A', kind, 'mat')};
  for (int idx = tid; idx < N * N; idx += T) {
    const int i = idx % N, j = idx / N;
    z[i + (long long)j * ldA] = failed ? makeReal2(nanReal(), nanReal()) : v[i + perm[j] * LDS];
  }
` : ''}}
`;
  return { name: `${entry}.cu`, source, entry };
}
