/**
 * Batched Hermitian eigendecomposition for n <= 32 (zheev / cheev) with the matrix in registers: the
 * real syev rows design (a lane per row, the turning frame: common/rows-frame.ts) over `real2` pairs.
 * N2 lanes a matrix (n rounded up to even), lane i holding row i of A (the full Hermitian row, both
 * triangles) and row i of V; as many matrices a warp as fit (32 / N2).
 *
 * Why: the shared-memory warp design (generate-heev.ts) moves every rotated element through shared
 * memory three times a round (A J, V J, J^H A). Here a round's pairs are the fixed register slots
 * (k, N2 - 1 - k) of the turning frame, so A J and V J rotate two registers of the lane's own rows, and
 * only J^H A exchanges data: the partner's row, by shuffles (two a pair).
 *
 * The rotation of a pair (p, q), p < q, with a_pq = |a_pq| e, is the complex reference's (cpu/complex/
 * zrotation.ts): J = D R D^H with D = diag(1, conj(e)) and R the real rotation of [[a_pp, |a_pq|],
 * [|a_pq|, a_qq]], so J(p, p) = J(q, q) = c, J(p, q) = s e, J(q, p) = -s conj(e); R by the half-angle
 * formulas of the real rows design (common/rotation.ts). Both lanes of the pair take a_pq from the lower
 * lane's row and the pair's order (p, q), so they find (c, s, e) to the bit. The lane whose column sits in
 * the pair's first slot publishes (c, z) in shared memory, z = s e where its column is p, and -conj(s e)
 * where it is q (the same rotation with its two columns in the other order); the columns' step of every
 * row is then, on its slots (x, y), x := c x - conj(z) y, y := z x + c y. The rows' step (J^H A):
 * row p := c row p - s e row q, row q := s conj(e) row p + c row q.
 *
 * A lane's diagonal entry a_ii and its coupling to this round's partner sit at run-time slots: the
 * diagonal is a real scalar (`dii`, its slot held at zero, set exactly after each rotation: a_pp - t
 * |a_pq|, a_qq + t |a_pq|), a_ij is read by a select tree over the row, and the 2 x 2 block's
 * off-diagonal zeroed the same way after a rotation. The test's sqrt|a_ii| is renewed where a_ii is set.
 *
 * V in registers (`vShared` false) or, where the registers would not hold both rows (complex128 at the
 * larger orders), in shared memory, lane i's row at stride N2 across the matrix's lanes (a lane's
 * consecutive entries N2 apart, a warp's lanes on consecutive addresses: no bank conflict); there the
 * frame's column of slot k is an address, (k + r) mod (N2 - 1), so V does not turn.
 *
 * The warp design's rules (and the complex reference's): the `uplo` triangle read once, the diagonal's
 * imaginary part never; a pair rotates while |a_pq| > sqrt(n) eps sqrt(|a_pp|) sqrt(|a_qq|) (|a_pq| by
 * hypot: no scaling); `maxSweeps` sweeps at most (info n + 1); NaN or Inf in the referenced part: info
 * n + 2, W (and A with vectors) NaN; with 'values' A is not written; eigenvalues ascending (ties by
 * index) with eigenvector j in column j; computed in the parts' precision (complex64 in float32).
 */
import type { KernelSource } from '../../runtime/types.js';
import { kindTag, matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { complexLetter, complexPrelude, modulusReal2 } from '../common/complex.js';
import { jacobiConstants } from '../common/jacobi-rotation.js';
import { elementBytes, mathHelpers, precisionPrelude } from '../common/precision.js';
import { halfAngleRotation } from '../common/rotation.js';
import { ROWS_PARTNER, ROWS_SLOT, rowsFrameTurn, rowsShape, selectByIndex, rowsRankAndValues } from '../common/rows-frame.js';
import type { HeevRowsParams } from './params.js';

/** The launch shape of a heev rows kernel (lanes a matrix, matrices a warp and a block). */
export const heevRowsShape = (p: Pick<HeevRowsParams, 'n' | 'warps'>): ReturnType<typeof rowsShape> => rowsShape(p.n, p.warps);

/** Shared bytes a block of the heev rows design takes: the rotations and, with `vShared`, V. */
export function heevRowsSharedBytes(p: Pick<HeevRowsParams, 'dtype' | 'n' | 'vectors' | 'vShared' | 'warps'>): number {
  const { lanes, perBlock } = rowsShape(p.n, p.warps);
  const el = elementBytes(p.dtype);
  const rotations = (perBlock + 1) * (lanes / 2) * 4 * el;
  return rotations + (p.vectors && p.vShared ? perBlock * lanes * lanes * 2 * el : 0);
}

/** The kernel's entry name: precision letter (z, c), operand form, n, uplo, vectors (v: in registers, s: in shared memory), warps a block. */
const heevRowsEntry = (p: HeevRowsParams): string =>
  `heev_rows_${complexLetter(p.dtype)}_${kindTag(p.kind)}_n${p.n}_${p.uplo === 'lower' ? 'l' : 'u'}${p.vectors ? (p.vShared ? 's' : 'v') : 'n'}_w${p.warps}_s${p.maxSweeps}`;

/** The columns' step and the published record of a pair: (c, z) as the header says. */
const ROTATION_RECORD = `// A pair's rotation as its first slot's lane publishes it: [x y] := [c x - conj(z) y, z x + c y].
struct __align__(4 * sizeof(real)) ZRotation { real c, zx, zy, pad; };
static __device__ __forceinline__ void rotSlots2(real2& x, real2& y, real c, real zx, real zy) {
  const real2 a = x, b = y;
  x.x = fmaReal(c, a.x, -fmaReal(zx, b.x, zy * b.y));
  x.y = fmaReal(c, a.y, -fmaReal(zx, b.y, -(zy * b.x)));
  y.x = fmaReal(c, b.x, fmaReal(zx, a.x, -(zy * a.y)));
  y.y = fmaReal(c, b.y, fmaReal(zx, a.y, zy * a.x));
}`;

export function heevRowsSource(p: HeevRowsParams): KernelSource {
  const { dtype, n, uplo, vectors, kind, maxSweeps, vShared, warps } = p;
  const { lanes: n2, perWarp, perBlock } = rowsShape(n, warps);
  const entry = heevRowsEntry(p);
  const vReg = vectors && !vShared;
  const VR = (line: string): string => (vReg ? line : '');
  const lower = uplo === 'lower';
  // V's entry (row tid, column col) in shared memory.
  const vAt = (col: string): string => `vs[(${col}) * N2]`;
  const source = `${precisionPrelude(dtype)}
${mathHelpers(dtype)}
${jacobiConstants(dtype)}
${complexPrelude(dtype)}
${modulusReal2(dtype)}
${halfAngleRotation(dtype)}
constexpr int N = ${n};
constexpr int N2 = N + (N & 1);
constexpr int HALF = N2 / 2;
constexpr int MPW = ${perWarp};          // matrices a warp
constexpr int MPB = ${perBlock};          // matrices a block
constexpr int MAX_SWEEPS = ${maxSweeps};
${ROTATION_RECORD}

extern "C" __global__ void __launch_bounds__(${32 * warps}) ${entry}(
    ${operandParameters('A', kind, true, 'real2')},
    ${operandParameters('W', kind, true)},
    int* __restrict__ info, const int* __restrict__ index, int count) {
  // Each pair's rotation by its first slot (k < HALF); slot MPB is the idle lanes' (read, never written).
  __shared__ ZRotation sRot[(MPB + 1) * HALF];
${vectors && vShared ? '  // V: row i of each matrix at i, i + N2, ... (lanes on consecutive addresses).\n  __shared__ real2 sV[MPB * N2 * N2];\n' : ''}${ROWS_SLOT}
  ZRotation* rot = sRot + slot * HALF;
${vectors && vShared ? '  real2* vs = sV + (idle ? 0 : slot * N2 * N2 + tid);\n' : ''}  const real tol = sqrtReal(real(N)) * EPS;

  // Row tid of A: the ${uplo} triangle and its conjugate mirror, the diagonal's real part apart (its slot held at zero); V := I.
  real2 a[N2];
${VR('  real2 v[N2];')}
  real dii = real(0);
  int bad = 0;
  {
    // Only a matrix's lanes form its pointer (a list batch's pointer array holds count entries).
    const real2* g = active ? ${matrixPointer('A', kind, 'mat')} : nullptr;
    #pragma unroll
    for (int j = 0; j < N2; ++j) {
      real2 x = makeReal2(real(0), real(0));
      if (active && tid < N && j < N) {
        if (j == tid) x.x = g[tid + (long long)j * ldA].x;
        else if (${lower ? 'tid > j' : 'tid < j'}) x = g[tid + (long long)j * ldA];
        else { x = g[j + (long long)tid * ldA]; x.y = -x.y; }
      }
      if (!(absReal(x.x) <= MAXR) || !(absReal(x.y) <= MAXR)) bad = 1;
      if (j == tid) { dii = x.x; x = makeReal2(real(0), real(0)); }
      a[j] = x;
${VR('      v[j] = makeReal2(j == tid ? real(1) : real(0), real(0));')}
    }
  }
${vectors && vShared ? `  if (!idle) {
    #pragma unroll
    for (int j = 0; j < N2; ++j) ${vAt('j')} = makeReal2(j == tid ? real(1) : real(0), real(0));
  }
` : ''}  const bool failed = (__ballot_sync(FULL, bad) & group) != 0u;
  bool done = !active || failed || N < 2;
  real rii = sqrtReal(absReal(dii));
  for (int sweep = 0; sweep < MAX_SWEEPS; ++sweep) {
    if (__all_sync(FULL, done)) break;
    int rotated = 0;
    #pragma unroll 1
    for (int r = 0; r < N2 - 1; ++r) {
${ROWS_PARTNER}
      // The pair's a_pq as the lower lane holds it.
${selectByIndex(n2, 'other', 'aij', 'real2', 'makeReal2(real(0), real(0))')}
      const bool low = tid < partner;
      const real djj = __shfl_sync(FULL, dii, src);
      const real rjj = __shfl_sync(FULL, rii, src);
      const int from = low ? lane : src;
      const real2 apq = makeReal2(__shfl_sync(FULL, aij.x, from), __shfl_sync(FULL, aij.y, from));
      // Both lanes in the pair's order (p, q), so that they take the same decision and (c, s, e) to the bit.
      const real app = low ? dii : djj, aqq = low ? djj : dii;
      const real rpp = low ? rii : rjj, rqq = low ? rjj : rii;
      const real g = modulusReal2(apq);
      real c = real(1), zx = real(0), zy = real(0);
      bool turn = false;
      if (!done && g != real(0) && g > tol * rpp * rqq) {
        real s, t;
        halfAngle(app, aqq, g, c, s, t);
        // z = s e, e = a_pq / |a_pq| by a reciprocal square root of a_pq scaled by a power of two (exact)
        // into [1, 2): no division (whose slow path, a call, would spill live rows around it).
        const real sc = unitScale(absReal(apq.x) > absReal(apq.y) ? absReal(apq.x) : absReal(apq.y));
        const real ex = apq.x * sc, ey = apq.y * sc;
        const real se = s * rsqrtReal(fmaReal(ex, ex, ey * ey));
        zx = se * ex;
        zy = se * ey;
        dii = low ? app - t * g : aqq + t * g;
        rii = sqrtReal(absReal(dii));
        turn = true;
        rotated = 1;
      }
      if (own < HALF && !idle) rot[own] = low ? ZRotation{c, zx, zy, real(0)} : ZRotation{c, -zx, zy, real(0)};
      __syncwarp();
      // A := A J and V := V J on the lane's rows, pair k on the slots (k, N2 - 1 - k)${vectors && vShared ? `; V's in shared memory at
      // the slots' columns in this round's frame (slot k < N2 - 1 holds column (k + r) mod (N2 - 1))` : ''}.
      #pragma unroll
      for (int k = 0; k < HALF; ++k) {
        const ZRotation jk = rot[k];
        rotSlots2(a[k], a[N2 - 1 - k], jk.c, jk.zx, jk.zy);
${VR('        rotSlots2(v[k], v[N2 - 1 - k], jk.c, jk.zx, jk.zy);\n')}${vectors && vShared ? `        if (!idle) {
          int ck = k + r;
          if (ck >= N2 - 1) ck -= N2 - 1;
          int cl = N2 - 1;
          if (k != 0) { cl = N2 - 1 - k + r; if (cl >= N2 - 1) cl -= N2 - 1; }
          real2 x = ${vAt('ck')}, y = ${vAt('cl')};
          rotSlots2(x, y, jk.c, jk.zx, jk.zy);
          ${vAt('ck')} = x;
          ${vAt('cl')} = y;
        }
` : ''}      }
      __syncwarp();
      // A := J^H A: row p := c row p - z row q, row q := conj(z) row p + c row q (z = s e; the partner's
      // row by shuffles; both lanes hold the pair's (c, z) from above, bit for bit the published one).
      const real wx = low ? -zx : zx, wy = -zy;
      #pragma unroll
      for (int j = 0; j < N2; ++j) {
        const real yx = __shfl_sync(FULL, a[j].x, src), yy = __shfl_sync(FULL, a[j].y, src);
        const real2 x = a[j];
        a[j].x = fmaReal(wx, yx, fmaReal(-wy, yy, c * x.x));
        a[j].y = fmaReal(wx, yy, fmaReal(wy, yx, c * x.y));
      }
      // The 2 x 2 block's off-diagonal is exactly zero, the diagonal's slot stays zero (dii holds it).
      if (turn) {
        #pragma unroll
        for (int j = 0; j < N2; ++j) if (j == other || j == own) a[j] = makeReal2(real(0), real(0));
      }
      // The next round's frame (a renaming of registers, no data moves). After N2 - 1 rounds, at the
      // sweep's end, slot j holds column j.
${rowsFrameTurn('real2', 'a', vReg ? 'v' : undefined)}
      __syncwarp();
    }
    if ((__ballot_sync(FULL, rotated) & group) == 0u) done = true;
  }
${rowsRankAndValues(kind)}
${vectors ? `  // Eigenvector j (column j of V) to column rank(j) of A: the lane writes its row.
  real2* z = ${matrixPointer('A', kind, 'mat')};
  #pragma unroll
  for (int j = 0; j < N; ++j) {
    const int rj = __shfl_sync(group, rank, base + j);
    if (tid < N) z[tid + (long long)rj * ldA] = failed ? makeReal2(nanReal(), nanReal()) : ${vShared ? vAt('j') : 'v[j]'};
  }` : ''}
}
`;
  return { name: `${entry}.cu`, source, entry };
}
