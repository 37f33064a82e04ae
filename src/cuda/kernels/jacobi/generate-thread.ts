/**
 * Batched syev for n <= 8 (plan.ts THREAD_MAX): one thread per matrix, the matrix and V in registers, the cyclic
 * (row-order) Jacobi fully unrolled over the n (n - 1) / 2 pairs of a sweep (the design for
 * the smallest sizes: the warp design of generate-warp.ts spends a lane group, shared memory and
 * warp barriers per rotation on matrices whose whole sweep is a few dozen FMAs).
 *
 * Same rules as the warp design and the CPU reference (cpu/lapack/jacobi.ts): the `uplo` triangle
 * read once, a pair rotates while |a_pq| > sqrt(n) eps sqrt(|a_pp|) sqrt(|a_qq|), the 2 x 2 block
 * set to its exact result, `maxSweeps` sweeps at most (info n + 1), NaN or Inf in A: info n + 2
 * and NaN outputs; eigenvalues ascending (ties by index), eigenvector j in column j.
 *
 * Loads and stores (`staged`): the block's matrices of A and vectors of W move between global and
 * shared memory by one block-wide copy each way (common/span-stage.ts: 16-byte vectors over a densely
 * packed span, else element by element, coalesced along columns), each thread then reading and
 * writing only its own slot; two barriers in all. Unstaged, each thread reads and writes its own
 * matrix in global memory, a few bytes of each 32-byte sector a load.
 */
import type { KernelSource } from '../../runtime/types.js';
import { matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { stagedConstants, stagedFrame, stagedSharedBytes, stagedSlots, type SpanCopy } from '../common/span-stage.js';
import { jacobiPrelude, syevTag } from './snippets.js';
import type { SyevThreadParams } from './params.js';

/** Threads (matrices) per block of the per-thread design. */
export const THREAD_BLOCK = 128;

/** The pairs of one cyclic sweep, in row order: (0,1), (0,2), ..., (n-2, n-1). */
function pairs(n: number): [number, number][] {
  const out: [number, number][] = [];
  for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) out.push([p, q]);
  return out;
}

/** The statements of one rotation of pair (p, q): A := J^T A J on the full symmetric registers, V := V J. */
function rotation(n: number, p: number, q: number, vectors: boolean): string {
  const others = Array.from({ length: n }, (_, k) => k).filter((k) => k !== p && k !== q);
  const lines = [
    `{ const real apq = a${p}${q}, app = a${p}${p}, aqq = a${q}${q};`,
    `  if (apq != real(0) && absReal(apq) > tol * sqrtReal(absReal(app)) * sqrtReal(absReal(aqq))) {`,
    `    const real t = tangent((aqq - app) / (real(2) * apq));`,
    `    const real c = real(1) / sqrtReal(real(1) + t * t), s = t * c;`,
    // Rows/columns k != p, q of the symmetric matrix: [a_kp a_kq] := [c a_kp - s a_kq, s a_kp + c a_kq].
    ...others.map((k) => `    rot2(a${Math.min(k, p)}${Math.max(k, p)}, a${Math.min(k, q)}${Math.max(k, q)}, c, s);`),
    `    a${p}${p} = app - t * apq; a${q}${q} = aqq + t * apq; a${p}${q} = real(0);`,
    ...(vectors ? Array.from({ length: n }, (_, i) => `    rot2(v${i}${p}, v${i}${q}, c, s);`) : []),
    `    rotated = true;`,
    `  } }`,
  ];
  return lines.map((l) => `      ${l}`).join('\n');
}

/** Dynamic shared bytes of a block (0 unstaged). */
export const syevThreadSharedBytes = (p: Pick<SyevThreadParams, 'dtype' | 'n' | 'staged'>): number => (p.staged ? stagedSharedBytes(THREAD_BLOCK, p.dtype, p.n) : 0);

export function syevThreadSource(p: SyevThreadParams): KernelSource {
  const { dtype, n, uplo, vectors, kind, maxSweeps, staged } = p;
  const layout = staged ? `_g${p.denseA ? 'd' : 'e'}${p.denseW ? 'd' : 'e'}` : '';
  const entry = `syev_thread_${syevTag(p)}_s${maxSweeps}${layout}`;
  const idx = Array.from({ length: n }, (_, i) => i);
  const upper = idx.flatMap((i) => idx.filter((j) => j >= i).map((j) => [i, j] as const));
  const s = stagedSlots(dtype, n);
  // Element (i, j) of A's storage: this thread's slot (staged) or global memory.
  const aAt = (i: number, j: number): string => (staged ? `sa[${i + j * n}]` : `g[${i} + ${j} * (long long)ldA]`);
  const copyA: SpanCopy = { operand: 'A', layout: { kind, dense: p.denseA }, dtype, rows: n, cols: n, shared: 'sA', slot: s.a };
  const copyW: SpanCopy = { operand: 'W', layout: { kind, dense: p.denseW }, dtype, rows: n, cols: 1, shared: 'sW', slot: s.w };
  // Element (i, j), i <= j, of the symmetric matrix from the stored triangle.
  const load = ([i, j]: readonly [number, number]): string => `  real a${i}${j} = ${uplo === 'lower' ? aAt(j, i) : aAt(i, j)};`;
  const diag = idx.map((i) => `a${i}${i}`);
  // The sweeps and the outputs of one matrix (`mat` its index in the group), from the registers a_ij.
  const body = `${upper.map(load).join('\n')}
  const bool failed = !(${upper.map(([i, j]) => `absReal(a${i}${j}) <= MAXR`).join(' && ')});
${vectors ? idx.map((i) => `  real ${idx.map((j) => `v${i}${j} = real(${i === j ? 1 : 0})`).join(', ')};`).join('\n') : ''}
  const real tol = sqrtReal(real(N)) * EPS;
  bool done = failed || N < 2;
  for (int sweep = 0; sweep < MAX_SWEEPS && !done; ++sweep) {
    bool rotated = false;
${pairs(n).map(([pp, qq]) => rotation(n, pp, qq, vectors)).join('\n')}
    done = !rotated;
  }
  info[index ? index[mat] : mat] = failed ? N + 2 : (done ? 0 : N + 1);
  // Ascending order by rank (ties by index); a failed matrix (NaN everywhere) in place.
  const real d[N] = { ${diag.join(', ')} };
  #pragma unroll
  for (int j = 0; j < N; ++j) {
    const int rank = failed ? j : rankOf(d, j);
    w[rank] = failed ? nanReal() : d[j];
  }
${vectors ? `  const real vv[N][N] = { ${idx.map((i) => `{ ${idx.map((j) => `v${i}${j}`).join(', ')} }`).join(', ')} };
  #pragma unroll
  for (int j = 0; j < N; ++j) {
    const int rank = failed ? j : rankOf(d, j);
    #pragma unroll
    for (int i = 0; i < N; ++i) ${staged ? 'sa[i + rank * N]' : 'g[i + (long long)rank * ldA]'} = failed ? nanReal() : vv[i][j];
  }` : ''}`;
  const kernelBody = staged
    ? stagedFrame({ element: 'real', a: copyA, w: copyW, writesA: vectors, body })
    : `  const long long mat = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (mat >= count) return;
  real* g = ${matrixPointer('A', kind, 'mat')};
  real* w = ${matrixPointer('W', kind, 'mat')};
${body}`;
  const source = `${jacobiPrelude(dtype)}
constexpr int N = ${n};
constexpr int MAX_SWEEPS = ${maxSweeps};
${staged ? stagedConstants(THREAD_BLOCK, s.a, s.w) : ''}
/** Where eigenvalue j goes in ascending order (ties by index); NaN-free d only. */
static __device__ __forceinline__ int rankOf(const real (&d)[N], int j) {
  int rank = 0;
  #pragma unroll
  for (int k = 0; k < N; ++k) rank += (d[k] < d[j] || (d[k] == d[j] && k < j)) ? 1 : 0;
  return rank;
}

extern "C" __global__ void __launch_bounds__(${THREAD_BLOCK}) ${entry}(
    ${operandParameters('A', kind, true)},
    ${operandParameters('W', kind, true)},
    int* __restrict__ info, const int* __restrict__ index, int count) {
${kernelBody}
}
`;
  return { name: `${entry}.cu`, source, entry };
}
