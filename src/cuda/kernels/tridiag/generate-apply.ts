/**
 * The split design of syev with vectors for large n: dsteqr's rotations applied to Z by
 * all SMs instead of by one block per matrix.
 *
 * Three launches per chunk of matrices (launch.ts), the workspace slice of snippets.ts per matrix:
 * 1. record (generate-syev.ts, split stage 'record'; one block per matrix): load, dsytd2, dorgtr
 *    into Z (the slice), then thread 0 runs the QL/QR chain exactly as the one-kernel design does
 *    (the chain never reads Z) and writes each rotation (c, s, j) to the slice; where the buffer of
 *    `cap` rotations has fewer than n slots left, the chain's state (QlState, d, e) is saved and it
 *    stops.
 * 2. apply (this file; grid (ceil(n / R), matrices)): a block copies R rows of one matrix's Z into
 *    shared memory (column-major with leading dimension R: thread r owns row r, so a warp's accesses
 *    to one column are consecutive words, no bank conflicts), streams the matrix's recorded
 *    rotations through shared memory in tiles (the next tile loaded into registers, coalesced, while
 *    the current one is applied; one barrier a tile), applies them in order to its row (dlasr 'R',
 *    'V' with the one-kernel design's register carry: the column two consecutive rotations share
 *    stays in a register, so a rotation costs one shared load and one store; inside a sweep U
 *    rotations at once, their U loads issued together so that a step waits on an FMA, not on
 *    shared memory's latency), and writes the rows back.
 * 3. finish (generate-syev.ts, split stage 'finish'; one block per matrix): a chain that stopped
 *    resumes the one-kernel way (rotations applied by its block as made, Z in the slice), then the
 *    eigenvalues ascending and Z's columns in that order over A. No host read, no second round:
 *    the common case (the buffer holds the whole chain) costs three launches and no wait, and a
 *    matrix that overflows pays the one-kernel cost for its remaining rotations only.
 * The rotations reach each row in the order they were made, with the same arithmetic (the same
 * expressions in the same order, so the same bits where the compiler contracts them alike), as
 * the one-kernel design: the results match it (test/cuda/tridiag-host-emulation.test.ts: bitwise on
 * the host).
 *
 * The model (H100: 132 SMs, 227 KiB shared per block, ~1.7 GHz; float64 Z):
 * - Rotations per matrix (measured on the host, 2026-11-26: the generated chain on the tridiagonal
 *   of a serial dsytd2; test/cuda/tridiag-split-host-emulation.test.ts prints them to n = 200), per
 *   n^2: random 1.26 (n = 40), 1.21 (64), 1.15 (128, max of 5 1.19), 1.11 (256), 1.08 (384), 1.06
 *   (512, max 1.07); graded (entries 1e-10 ... 1e10) 0.94 (128), 0.87 (256), 0.86 (512); clustered
 *   0.57-0.76, repeated 0.45; diagonal and zero none. The buffer (tuning `capFactor`) holds 1.5 n^2:
 *   20 bytes a rotation (c, s as float64, j as int32), so a 512 slice is 2 MiB of Z + 7.5 MiB of
 *   rotations (9.5 MiB: 26 matrices per 256 MiB workspace chunk; 256: 2.4 MiB, 107 a chunk).
 * - Apply, per matrix: N_r ~ 1.1 n^2 rotations, each 4 flops on each of n rows: 4.4 n^3 flops
 *   (0.59 GFLOP at 512), from shared memory at 2 accesses of a float64 a rotation a row. A row is
 *   a chain of dependent FMAs (the carried column): ~10-20 cycles a rotation whatever the
 *   occupancy, so a wave of blocks costs N_r x 10-20 cycles (2.6-5.3 M cycles at 512: 1.5-3 ms;
 *   0.4-0.8 ms at 256) and the grid takes ceil(blocks / (132 x blocks per SM)) waves: at 512 x 20
 *   with R = 16 (69 KiB a block, 3 per SM), 640 blocks in 2 waves: 3-6 ms (against ~120 ms of
 *   application in the one-kernel design, which ran 20 blocks on 20 SMs and took every rotation
 *   through L1/L2). Rotation traffic: every block reads its matrix's N_r x 20 bytes (5.5 MiB at
 *   512), n / R blocks a matrix: 3.6 GB from L2 at 512 x 20 with R = 16 (~0.6 ms at ~6 TB/s), once
 *   from HBM.
 * - Record: the tridiagonalization and Q as the one-kernel design (~17 ms at 512 x 20 with the
 *   bisection), then the chain: ~1.1 n^2 dependent rotations of ~100-200 cycles (dlartg's
 *   reciprocal square root and ~10 FMAs): 29-58 M cycles at 512, 17-34 ms; the chain, not the
 *   application, bounds this design at 512 (next: several matrices' chains per SM, or divide and
 *   conquer). At 128 x 500 the chain is 19 k rotations (~1.7 ms) a matrix, two record blocks per SM
 *   (192 registers x 128 threads): 2 waves, ~4 ms.
 * - Finish: a read of Z and a write of A (n^2 each) and an O(n^2) rank sort per matrix.
 */
import type { KernelSource } from '../../runtime/types.js';
import { precisionPrelude } from '../common/precision.js';
import type { TridiagApplyParams } from './params.js';
import { splitSlice } from './snippets.js';

/** Shared bytes of an apply block: R rows of Z (float64) and two tiles of rotations (c, s, j). */
export function applySharedBytes(p: Pick<TridiagApplyParams, 'n' | 'rows' | 'tile'>): number {
  return p.rows * p.n * 8 + 2 * p.tile * (8 + 8 + 4);
}

export const applyEntry = (p: TridiagApplyParams): string => `syev_tridiag_apply_n${p.n}_c${p.cap}_r${p.rows}_k${p.tile}_u${p.unroll}`;

export function tridiagApplySource(p: TridiagApplyParams): KernelSource {
  const { n, cap, rows, tile, unroll } = p;
  if (tile % rows !== 0) throw new Error(`the apply tile ${tile} is a multiple of its rows ${rows}`);
  const entry = applyEntry(p);
  const l = splitSlice(n, cap);
  const source = `${precisionPrelude('float64')}
constexpr int N = ${n};
constexpr int R = ${rows};       // rows of Z per block, a thread each
constexpr int TILE = ${tile};    // rotations per shared tile
constexpr int PER = TILE / R;    // rotations each thread loads per tile
constexpr int U = ${unroll};        // rotations of a sweep applied at once
constexpr long long WORK = ${l.slice};   // the workspace slice per matrix (snippets.ts)

extern "C" __global__ void __launch_bounds__(R) ${entry}(real* __restrict__ work, long long first, int count) {
  const int tid = threadIdx.x;
  const long long mat = first + blockIdx.y;
  if (mat >= count) return;
  const real* Z0 = work + (long long)blockIdx.y * WORK;
  const int* hdr = (const int*)(Z0 + ${l.hdr});
  const int cnt = hdr[0];   // 0 for a failed matrix
  if (cnt == 0) return;
  real* Z = work + (long long)blockIdx.y * WORK;
  const real* __restrict__ grc = Z0 + ${l.rc};
  const real* __restrict__ grs = Z0 + ${l.rs};
  const int* __restrict__ gri = (const int*)(Z0 + ${l.ri});
  extern __shared__ __align__(16) unsigned char smem[];
  real* zs = (real*)smem;            // R x N, leading dimension R: row tid's column j at zs[tid + j * R]
  real* tc = zs + R * N;             // two tiles: cosines,
  real* ts = tc + 2 * TILE;          // sines,
  int* tj = (int*)(ts + 2 * TILE);   // first columns
  const int r0 = blockIdx.x * R;
  const bool mine = r0 + tid < N;

  // This block's rows of Z (consecutive threads, consecutive rows of a column: coalesced), and tile 0.
  for (int idx = tid; idx < R * N; idx += R) {
    const int i = idx % R, j = idx / R;
    zs[idx] = r0 + i < N ? Z[r0 + i + (long long)j * N] : real(0);
  }
  for (int k = tid; k < TILE && k < cnt; k += R) { tc[k] = grc[k]; ts[k] = grs[k]; tj[k] = gri[k]; }
  __syncthreads();

  real* zr = zs + tid;
  int cc = -1;   // the column carried in cv (-1: none), across tiles
  real cv = real(0);
  for (int base = 0, b = 0; base < cnt; base += TILE, b ^= 1) {
    // The next tile into registers now; its loads complete while this tile is applied.
    real pc[PER], ps[PER];
    int pj[PER];
#pragma unroll
    for (int u = 0; u < PER; ++u) {
      const int k = base + TILE + u * R + tid;
      if (k < cnt) { pc[u] = grc[k]; ps[u] = grs[k]; pj[u] = gri[k]; }
    }
    const int len = min(TILE, cnt - base);
    const real* c0 = tc + b * TILE;
    const real* s0 = ts + b * TILE;
    const int* j0 = tj + b * TILE;
    if (mine)
      for (int k = 0; k < len;) {
        // [z_j z_j+1] := [c z_j + s z_j+1, c z_j+1 - s z_j], as the one-kernel design (generate-syev.ts QL_VECTORS).
        const int j = j0[k];
        // Inside a sweep, U rotations at once: their U fresh elements loaded first (independent
        // loads in flight together, read before any of the U writes, as the one-at-a-time order
        // reads them), then U dependent steps on the carried column. QL: j, j-1, ... (x fresh, t
        // carried); QR: j, j+1, ... (t fresh, x carried). The same expressions, so the same bits.
        bool ql = k + U - 1 < len && cc == j + 1, qr = k + U - 1 < len && cc == j;
#pragma unroll
        for (int u = 1; u < U; ++u) { ql = ql && j0[k + u] == j - u; qr = qr && j0[k + u] == j + u; }
        if (ql) {
          real f[U];
#pragma unroll
          for (int u = 0; u < U; ++u) f[u] = zr[(j - u) * R];
          real t = cv;
#pragma unroll
          for (int u = 0; u < U; ++u) {
            const real c = c0[k + u], s = s0[k + u], x = f[u];
            const real t2 = c * t - s * x, x2 = s * t + c * x;
            zr[(j - u + 1) * R] = t2;
            t = x2;
          }
          cc = j - U + 1; cv = t;
          k += U;
          continue;
        }
        if (qr) {
          real f[U];
#pragma unroll
          for (int u = 0; u < U; ++u) f[u] = zr[(j + u + 1) * R];
          real x = cv;
#pragma unroll
          for (int u = 0; u < U; ++u) {
            const real c = c0[k + u], s = s0[k + u], t = f[u];
            const real t2 = c * t - s * x, x2 = s * t + c * x;
            zr[(j + u) * R] = x2;
            x = t2;
          }
          cc = j + U; cv = x;
          k += U;
          continue;
        }
        const real c = c0[k], s = s0[k];
        real x, t;
        if (cc == j) { x = cv; t = zr[(j + 1) * R]; }
        else if (cc == j + 1) { x = zr[j * R]; t = cv; }
        else {
          if (cc >= 0) zr[cc * R] = cv;
          x = zr[j * R];
          t = zr[(j + 1) * R];
        }
        const real t2 = c * t - s * x, x2 = s * t + c * x;
        if (k + 1 < len && j0[k + 1] == j + 1) { zr[j * R] = x2; cc = j + 1; cv = t2; }
        else { zr[(j + 1) * R] = t2; cc = j; cv = x2; }
        ++k;
      }
    // The other tile was last read before the previous barrier: safe to overwrite.
#pragma unroll
    for (int u = 0; u < PER; ++u) {
      const int k = base + TILE + u * R + tid;
      if (k < cnt) { const int o = (b ^ 1) * TILE + u * R + tid; tc[o] = pc[u]; ts[o] = ps[u]; tj[o] = pj[u]; }
    }
    __syncthreads();
  }
  if (mine && cc >= 0) zr[cc * R] = cv;
  __syncthreads();
  for (int idx = tid; idx < R * N; idx += R) {
    const int i = idx % R, j = idx / R;
    if (r0 + i < N) Z[r0 + i + (long long)j * N] = zs[idx];
  }
}
`;
  return { name: `${entry}.cu`, source, entry };
}
