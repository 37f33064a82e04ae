/**
 * The very-small batched GEMM kernel (m, n, k <= 32), after Masliah et al., "High-performance
 * matrix-matrix multiplications of very small matrices", section 4.2:
 * - m, n, k are compile-time constants, so every loop is fully unrolled and the integer
 *   instruction count (loop counters, addresses) stays minimal ("Instruction Mix");
 * - A and B are staged in shared memory and reused from there and from registers (the
 *   "shared memory based approach"); each thread keeps `rn` elements of C in registers;
 * - `tbc` matrices share one thread block ("TB-level concurrency"), so tiny sizes still give
 *   blocks of hundreds of threads and a full GPU;
 * - loads and stores move the block's matrices as one contiguous span where the batch is densely
 *   packed (see ../common/tile-load.ts), so they are coalesced even for 2 x 2 matrices.
 */
import type { KernelSource } from '../../runtime/types.js';
import { matrixPointer, operandParameters } from '../common/batch-pointer.js';
import { elementType, gemmElementBytes, gemmLetter, gemmPrelude, multiplyAdd, opLetters, scalarParameters, scalarSetup, updateElement, zeroElement } from './element.js';
import { loadTiles, storeTiles } from '../common/tile-load.js';
import type { GemmKernelShape, GemmOperandLayouts, SmallGemmParams } from './params.js';

/** Odd leading dimensions in shared memory: strided shared accesses then hit distinct banks. */
const odd = (x: number): number => x | 1;

interface SmallLayout {
  /** op(A) in shared memory: M x K, column p at p * ldsA. */
  ldsA: number;
  /** op(B) in shared memory: K x N, column j at j * ldsB. */
  ldsB: number;
  perA: number;
  perB: number;
  perC: number;
}

function sharedLayout(p: SmallGemmParams): SmallLayout {
  // Transposed A is written across columns of op(A): pad so those writes spread over banks.
  const ldsA = p.transA === 'T' ? odd(p.m) : p.m;
  // Threads of one warp read op(B) from several columns at once: always odd.
  const ldsB = odd(p.k);
  return { ldsA, ldsB, perA: p.k * ldsA, perB: p.n * ldsB, perC: p.stageC ? p.m * p.n : 0 };
}

/** (matrix, row, column group) work items of one block. */
export function smallGemmWork(p: Pick<SmallGemmParams, 'tbc' | 'm' | 'n' | 'rn'>): number {
  return p.tbc * p.m * Math.ceil(p.n / p.rn);
}

export function smallGemmShape(p: SmallGemmParams): GemmKernelShape {
  const l = sharedLayout(p);
  return {
    threads: p.threads,
    sharedBytes: p.tbc * (l.perA + l.perB + l.perC) * gemmElementBytes(p),
  };
}

export function layoutTag(l: GemmOperandLayouts): string {
  const one = (o: GemmOperandLayouts['a']): string => (o.kind === 'pointer' ? 'p' : o.dense ? 'd' : 's');
  return one(l.a) + one(l.b) + one(l.c);
}

function smallGemmEntry(p: SmallGemmParams): string {
  const ops = opLetters(p);
  return `gemm_small_${gemmLetter(p)}${ops.a}${ops.b}_${p.m}x${p.n}x${p.k}`
    + `_tbc${p.tbc}_rn${p.rn}_t${p.threads}${p.stageC ? '_sc' : ''}_${layoutTag(p.layouts)}${p.betaZero ? '_b0' : ''}`;
}

function validateSmallParams(p: SmallGemmParams): void {
  const bad = (why: string): never => { throw new Error(`invalid small gemm params (${why}): ${JSON.stringify(p)}`); };
  for (const d of [p.m, p.n, p.k]) if (!Number.isInteger(d) || d < 1 || d > 64) bad('m, n, k must be integers in 1..64');
  if (!Number.isInteger(p.rn) || p.rn < 1 || p.rn > p.n) bad('rn must be in 1..n');
  if (!Number.isInteger(p.tbc) || p.tbc < 1) bad('tbc must be a positive integer');
  if (!Number.isInteger(p.threads) || p.threads < 1 || p.threads > 1024) bad('threads must be in 1..1024');
  if (p.threads > smallGemmWork(p)) bad('more threads than work items');
  if (smallGemmShape(p).sharedBytes > 48 * 1024) bad('more than 48 KiB of static shared memory');
  for (const o of [p.layouts.a, p.layouts.b, p.layouts.c]) if (o.dense && o.kind !== 'strided') bad('only strided operands can be dense');
}

/** Pure: the same parameters always give the same source. */
export function generateSmallGemm(p: SmallGemmParams): KernelSource {
  validateSmallParams(p);
  const l = sharedLayout(p);
  const { threads } = smallGemmShape(p);
  const entry = smallGemmEntry(p);
  const dtype = p.dtype;
  const E = elementType(p);
  const ops = opLetters(p);
  const storedA = p.transA === 'N' ? { rows: p.m, cols: p.k } : { rows: p.k, cols: p.m };
  const storedB = p.transB === 'N' ? { rows: p.k, cols: p.n } : { rows: p.n, cols: p.k };
  const loadA = loadTiles({
    operand: 'A', layout: p.layouts.a, dtype, element: E, ...storedA, shared: 'sA', sharedPerMatrix: l.perA,
    // op(A)(i, p) at i + p * LDSA; stored A(r, c) is op(A)(r, c) ('N') or op(A)(c, r) ('T').
    sharedIndex: (r, c) => (p.transA === 'N' ? `${r} + ${c} * LDSA` : `${c} + ${r} * LDSA`),
  });
  const loadB = loadTiles({
    operand: 'B', layout: p.layouts.b, dtype, element: E, ...storedB, shared: 'sB', sharedPerMatrix: l.perB,
    // op(B)(p, j) at p + j * LDSB; stored B(r, c) is op(B)(r, c) ('N') or op(B)(c, r) ('T').
    sharedIndex: (r, c) => (p.transB === 'N' ? `${r} + ${c} * LDSB` : `${c} + ${r} * LDSB`),
  });
  const copyC = {
    operand: 'C' as const, layout: p.layouts.c, dtype, element: E, rows: p.m, cols: p.n, shared: 'sC', sharedPerMatrix: l.perC,
    sharedIndex: (r: string, c: string) => `${r} + ${c} * M`,
  };
  // Per work item: the result to shared memory (staged) or straight to C.
  const writeItem = p.stageC
    ? `${E}* cs = sC + mat * (M * N) + i + j0 * M;
      #pragma unroll
      for (int r = 0; r < RN; ++r)
        if (!RAGGED || j0 + r < N) cs[r * M] = ${updateElement(p, 'acc[r]', 'cs[r * M]')};`
    : `${E}* cg = ${matrixPointer('C', p.layouts.c.kind, 'first + mat')} + i + (long long)j0 * ldC;
      #pragma unroll
      for (int r = 0; r < RN; ++r) {
        if (RAGGED && j0 + r >= N) break;
        ${E}* cr = cg + (long long)r * ldC;
        *cr = ${updateElement(p, 'acc[r]', '*cr')};
      }`;
  const storeStaged = p.stageC
    ? `// C goes back through shared memory so the block writes whole contiguous runs.
  __syncthreads();
  ${storeTiles(copyC)}`
    : '';

  const source = `// Batched GEMM for very small matrices: C = alpha op(A) op(B) + beta C, op(A) ${ops.a}, op(B) ${ops.b}.
// Generated by src/cuda/kernels/gemm/generate-small.ts (Masliah et al., section 4.2).
${gemmPrelude(p)}

extern "C" __global__ void __launch_bounds__(${threads}) ${entry}(
    ${operandParameters('A', p.layouts.a.kind, false, E)},
    ${operandParameters('B', p.layouts.b.kind, false, E)},
    ${operandParameters('C', p.layouts.c.kind, true, E)},
    int count, ${scalarParameters(p)})
{
  constexpr int M = ${p.m}, N = ${p.n}, K = ${p.k};
  constexpr int TBC = ${p.tbc};             // matrices per block
  constexpr int RN = ${p.rn};               // columns of C per thread
  constexpr int TPM = M * ((N + RN - 1) / RN); // work items per matrix
  constexpr bool RAGGED = N % RN != 0;      // the last column group is short
  constexpr int WORK = TBC * TPM;           // work items of the block
  constexpr int THREADS = ${threads};
  constexpr int ITEMS = (WORK + THREADS - 1) / THREADS; // work items per thread
  constexpr int LDSA = ${l.ldsA};           // op(A) in shared memory: M x K
  constexpr int LDSB = ${l.ldsB};           // op(B) in shared memory: K x N
  static_assert(THREADS == ${threads}, "thread count");
  __shared__ ${E} sA[TBC * ${l.perA}];
  __shared__ ${E} sB[TBC * ${l.perB}];
  ${p.stageC ? `__shared__ ${E} sC[TBC * ${l.perC}];` : ''}
  (void)LDSA; (void)LDSB; (void)ldA; (void)ldB; (void)ldC; (void)strideA; (void)strideB; (void)strideC;
  ${scalarSetup(p)}${p.betaZero ? '(void)beta;' : ''}

  const int first = blockIdx.x * TBC;       // the block's first matrix
  const int nmat = min(TBC, count - first); // matrices in this block (the last one may be short)
  const int t = threadIdx.x;

  ${loadA}
  ${loadB}
  ${p.stageC && !p.betaZero ? storeOrLoadC(loadTiles(copyC)) : ''}
  __syncthreads();

  // Work item w = (mat, i, column group): C(i, j0 .. min(j0 + RN, N) - 1) of matrix 'mat' of
  // the block; each thread takes items t, t + THREADS, ...
  #pragma unroll
  for (int w = 0; w < ITEMS; ++w) {
    const int item = t + w * THREADS;
    if (WORK % THREADS != 0 && item >= WORK) break;
    const int mat = item / TPM;
    const int i = (item % TPM) % M;
    const int j0 = ((item % TPM) / M) * RN;
    const ${E}* a = sA + mat * ${l.perA} + i;
    const ${E}* b = sB + mat * ${l.perB} + j0 * LDSB;
    ${E} acc[RN];
    #pragma unroll
    for (int r = 0; r < RN; ++r) acc[r] = ${zeroElement(p)};
    #pragma unroll
    for (int p = 0; p < K; ++p) {
      const ${E} ap = a[p * LDSA];
      #pragma unroll
      for (int r = 0; r < RN; ++r)
        if (!RAGGED || j0 + r < N) acc[r] = ${multiplyAdd(p, 'ap', 'b[p + r * LDSB]', 'acc[r]')};
    }
    if (mat < nmat) {
      ${writeItem}
    }
  }
  ${storeStaged}
}
`;
  return { name: `${entry}.cu`, source, entry };
}

/** A labelled block, for readability of the generated text. */
function storeOrLoadC(code: string): string {
  return `// beta != 0: C is read once, cooperatively, into shared memory.
  ${code}`;
}
