/**
 * The staged class kernel of a variable-size batched GEMM (classes up to 32; the tables and the
 * member order of generate-vbatched.ts). A block serves `members` members, a team of
 * (bound / tm) x (bound / tn) threads each:
 * - the team copies its member's stored A and B into shared memory, column by column (a column's
 *   elements by consecutive threads, so the loads coalesce), masked to the member's sizes and
 *   zero-padded to bound x bound: op(A)'s columns past k and op(B)'s rows past k are zero, so the
 *   inner product runs over the whole bound with no masks, a compile-time loop fully unrolled;
 * - each thread keeps a tm x tn tile of C in registers: rows ti, ti + bound / tm, ... and columns
 *   tj, tj + bound / tn, ... (consecutive threads on consecutive rows: stores coalesce along a
 *   column), summed by fused multiply-adds from p = 0 up (the padding adds exact zeros), then
 *   alpha acc + beta C, stored masked to m x n; beta = 0 never reads C (a compile-time variant).
 * Shared memory keeps the stored layouts, leading dimension bound, or bound + 1 (odd) where the
 * product reads the operand across its columns (op(A) of a transposed A, op(B) of a plain B), so
 * a warp's reads spread over the banks.
 * A block whose members have nothing to do (slots past the count, the device form's zero rows)
 * leaves after one barrier, block-uniform. The device form (params.ts VbatchedCounting) loops:
 * the block takes `members` members at a time below the class's count, a barrier between turns.
 */
import type { KernelSource } from '../../runtime/types.js';
import { elementBytes, precisionLetter, precisionPrelude } from '../common/precision.js';
import { LIVE_MEMBERS, countingTag, memberOpening, transTag, vbatchParameters } from './generate-vbatched.js';
import type { GemmKernelShape, VstagedGemmParams } from './params.js';

/** The static shared memory a block may take (no opt-in: at least four blocks fit an SM of 228 KiB). */
export const VSTAGED_SHARED_MAX = 48 * 1024;

interface StagedLayout {
  /** Leading dimensions of the stored A and B in shared memory. */
  readonly ldA: number;
  readonly ldB: number;
}

function stagedLayout(p: Pick<VstagedGemmParams, 'bound' | 'transA' | 'transB'>): StagedLayout {
  return { ldA: p.transA === 'N' ? p.bound : p.bound + 1, ldB: p.transB === 'N' ? p.bound + 1 : p.bound };
}

/** Threads a member. */
export const vstagedTeam = (p: Pick<VstagedGemmParams, 'bound' | 'tm' | 'tn'>): number => (p.bound / p.tm) * (p.bound / p.tn);

/** The block's static shared memory in bytes. */
export function vstagedSharedBytes(p: Pick<VstagedGemmParams, 'bound' | 'transA' | 'transB' | 'members' | 'dtype'>): number {
  const l = stagedLayout(p);
  return p.members * p.bound * (l.ldA + l.ldB) * elementBytes(p.dtype);
}

/** Threads of a block; the shared memory is static, so the launch asks for none. */
export function vstagedGemmShape(p: VstagedGemmParams): GemmKernelShape {
  return { threads: p.members * vstagedTeam(p), sharedBytes: 0 };
}

/** Why `p` is not a valid staged kernel, or undefined. */
export function vstagedProblem(p: VstagedGemmParams): string | undefined {
  const divides = (t: number): boolean => Number.isInteger(t) && t >= 1 && p.bound % t === 0;
  if (!Number.isInteger(p.bound) || p.bound < 1 || p.bound > 32) return 'bound must be in 1..32';
  if (!divides(p.tm) || !divides(p.tn)) return 'tm and tn must divide the bound';
  if (!Number.isInteger(p.members) || p.members < 1) return 'members must be a positive integer';
  if (vstagedGemmShape(p).threads > 1024) return 'more than 1024 threads a block';
  if (vstagedSharedBytes(p) > VSTAGED_SHARED_MAX) return `more than ${VSTAGED_SHARED_MAX} bytes of shared memory`;
  return undefined;
}

/** Pure: the same parameters always give the same source. */
export function generateVstagedGemm(p: VstagedGemmParams): KernelSource {
  const problem = vstagedProblem(p);
  if (problem !== undefined) throw new Error(`invalid vbatched staged gemm params (${problem}): ${JSON.stringify(p)}`);
  const l = stagedLayout(p);
  const threads = vstagedGemmShape(p).threads;
  const entry = `gemm_vstaged_${precisionLetter(p.dtype)}${transTag(p)}_c${p.bound}_m${p.members}_t${p.tm}x${p.tn}${p.betaZero ? '_b0' : ''}${countingTag(p)}`;
  // The stored matrices' sizes: op(A) is m x k, op(B) is k x n.
  const [rowsA, colsA] = p.transA === 'N' ? ['m', 'k'] : ['k', 'm'];
  const [rowsB, colsB] = p.transB === 'N' ? ['k', 'n'] : ['n', 'k'];
  // op(A)(i, q) and op(B)(q, j) in the staged stored layouts.
  const opA = (i: string, q: string): string => (p.transA === 'N' ? `${i} + ${q} * LDA` : `${q} + (${i}) * LDA`);
  const opB = (q: string, j: string): string => (p.transB === 'N' ? `${q} + (${j}) * LDB` : `${j} + ${q} * LDB`);
  const stage = (shared: string, global: string, ld: string, ldGlobal: string, rows: string, cols: string): string => `{
    const int rows = work ? ${rows} : 0, cols = ${cols};
    #pragma unroll
    for (int q = 0; q < TM * TN; ++q) {   // TPM * TM * TN = B * B elements
      const int e = t + q * TPM, row = e % B, col = e / B;
      ${shared}[row + col * ${ld}] = row < rows && col < cols ? ${global}[row + (long long)col * ${ldGlobal}] : real(0);
    }
  }`;
  // The member's product and its store (after the staged operands' barrier; `work` in scope).
  const product = `  const int ti = t % RT, tj = t / RT;
  real acc[TM][TN];
  #pragma unroll
  for (int r = 0; r < TM; ++r)
    #pragma unroll
    for (int s = 0; s < TN; ++s) acc[r][s] = real(0);
  #pragma unroll
  for (int q = 0; q < B; ++q) {
    real av[TM], bv[TN];
    #pragma unroll
    for (int r = 0; r < TM; ++r) av[r] = myA[${opA('ti + r * RT', 'q')}];
    #pragma unroll
    for (int s = 0; s < TN; ++s) bv[s] = myB[${opB('q', 'tj + s * CT')}];
    #pragma unroll
    for (int r = 0; r < TM; ++r)
      #pragma unroll
      for (int s = 0; s < TN; ++s) acc[r][s] = fmaReal(av[r], bv[s], acc[r][s]);
  }
  #pragma unroll
  for (int s = 0; s < TN; ++s) {
    const int j = tj + s * CT;
    #pragma unroll
    for (int r = 0; r < TM; ++r) {
      const int i = ti + r * RT;
      if (i < m && j < n) {
        real* cij = c + i + (long long)j * ldC;
        *cij = ${p.betaZero ? 'alpha * acc[r][s]' : 'alpha * acc[r][s] + beta * *cij'};
      }
    }
  }
`;
  const plainForm = `  const int slot = threadIdx.x / TPM, t = threadIdx.x % TPM;
  const int index = blockIdx.x * MEMBERS + slot;
  // A slot past the last member reads the last member's row and leaves it alone.
  ${memberOpening('min(index, count - 1)')}
  ${p.betaZero ? '(void)beta;' : ''}
  const bool work = index < count && m > 0 && n > 0;
  if (!__syncthreads_or(work)) return;      // no member of this block has work (block-uniform)
  real* const myA = sA + slot * (B * LDA);
  real* const myB = sB + slot * (B * LDB);
  ${stage('myA', 'a', 'LDA', 'ldA', rowsA, colsA)}
  ${stage('myB', 'b', 'LDB', 'ldB', rowsB, colsB)}
  __syncthreads();
  if (!work) return;                        // no barrier below
${product}`;
  // The device form: the block takes MEMBERS members at a time, gridDim.x * MEMBERS apart, below the class's count.
  const loopForm = `  const int slot = threadIdx.x / TPM, t = threadIdx.x % TPM;
  ${LIVE_MEMBERS}
  ${p.betaZero ? '(void)beta;' : ''}
  real* const myA = sA + slot * (B * LDA);
  real* const myB = sB + slot * (B * LDB);
  for (int first = blockIdx.x * MEMBERS; first < members; first += gridDim.x * MEMBERS) {
  const int index = first + slot;
  // A slot past the last member reads the last member's row and leaves it alone.
  ${memberOpening('min(index, members - 1)')}
  const bool work = index < members && m > 0 && n > 0;
  if (!__syncthreads_or(work)) continue;    // no member of these slots has work (block-uniform)
  ${stage('myA', 'a', 'LDA', 'ldA', rowsA, colsA)}
  ${stage('myB', 'b', 'LDB', 'ldB', rowsB, colsB)}
  __syncthreads();
  if (work) {
${product}  }
  __syncthreads();                          // the staged operands are read: the next members may overwrite them
  }
`;
  const source = `// Variable-size batched GEMM, one size class (m, n, k <= ${p.bound}), operands staged in shared memory:
// C = alpha op(A) op(B) + beta C, op(A) ${p.transA}, op(B) ${p.transB}.
// Generated by src/cuda/kernels/gemm/generate-vstaged.ts.
${precisionPrelude(p.dtype)}

extern "C" __global__ void __launch_bounds__(${threads}) ${entry}(
    ${vbatchParameters(p)})
{
  constexpr int B = ${p.bound};               // class bound: op(A) and op(B) zero-padded to B x B
  constexpr int MEMBERS = ${p.members};         // members per block
  constexpr int TM = ${p.tm}, TN = ${p.tn};        // C elements per thread: TM rows by TN columns
  constexpr int RT = B / TM, CT = B / TN;   // a member's team: RT threads along rows, CT along columns
  constexpr int TPM = RT * CT;              // threads per member
  constexpr int LDA = ${l.ldA}, LDB = ${l.ldB};     // the stored A and B in shared memory
  __shared__ real sA[MEMBERS * B * LDA];
  __shared__ real sB[MEMBERS * B * LDB];
${p.deviceCount === true ? loopForm : plainForm}}
`;
  return { name: `${entry}.cu`, source, entry };
}
