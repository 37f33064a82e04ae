/**
 * TSM2R with A staged through shared memory (params.stages >= 2): the same outer product as
 * generate-r.ts (paper Algorithm 4), but the prefetch of A (paper 3.1.5) no longer lives in
 * registers. Each thread copies its own rows of A, t3 k-steps at a time, into a private ring of
 * `stages` shared-memory slots with cp.async, and reads them back when their turn comes. With
 * n = 16 or 32 the t2 x vec accumulators take most registers, which capped the register prefetch
 * at a few bytes in flight per thread (paper 3.1.8's Util_mem far under 1); here stages - 1 slots
 * are in flight at no register cost. A thread reads only what it copied itself, so the ring
 * needs no barrier: cp.async.wait_group orders it. B tiles ride in the same commit groups (one
 * barrier per tile, as before), which is why stages - 1 <= tileK / t3.
 *
 * engine 'dmma' (float64): the inner product runs on the tensor cores (mma.sync m16n8k16 .f64,
 * sm_90), twice the DFMA rate, so n = 32 is no longer near the FP64 roofline of paper 3.1.8's
 * t2 threshold. A warp owns 32 x vec rows (2 vec m16 tiles) and all t2 columns (n8 tiles). Since
 * a product sums over k, k may be relabelled freely: lane (g, t) copies rows 2g and 2g+1 (one
 * 16-byte cp.async, the A fragment's rows g and g+8) of column 4q + t, and B's tile is stored in
 * fragment order, so every fragment is one 16-byte shared load with no bank conflict.
 */
import type { DType } from '../../../core/dtype.js';
import { elementBytes } from '../common/precision.js';
import type { KernelSource } from '../../runtime/types.js';
import type { Tsm2rParams } from './params.js';
import { bIndex, clusterReduceAndStore, tsm2rSignature, component, tsm2Prelude, vectorType, widestVector } from './snippets.js';

/** The element type of the dmma engine (FP64 tensor cores, mma.sync m16n8k16 .f64). */
export const DMMA_DTYPE: DType = 'float64';

/** Columns of a B tile row as stored: t2 (fma) or t2 rounded up to whole n8 tiles (dmma). */
function stagedTileWidth(p: Tsm2rParams): number {
  return p.engine === 'dmma' ? Math.ceil(p.t2 / 8) * 8 : p.t2;
}

/** Elements of shared memory: two B tiles and the A ring, or the cluster's reduction buffer. */
export function stagedSharedElements(p: Tsm2rParams): number {
  const tiles = 2 * p.tileK * stagedTileWidth(p) + p.stages * p.t3 * p.t1 * p.vec;
  const reduction = p.split > 1 ? p.t1 * p.vec * p.t2 : 0;
  return Math.max(tiles, reduction);
}

/** The reasons a staged parameter set cannot be generated (empty: fine). */
export function stagedProblems(p: Tsm2rParams): string[] {
  const out: string[] = [];
  if (p.transA !== 'N') out.push('a staged A needs op(A) = N');
  if (p.prefetch !== 0) out.push('the L2 prefetch is for the register path (stages = 0)');
  if (p.stages - 1 > p.tileK / p.t3) out.push('stages - 1 must not exceed tileK / t3');
  if ((2 * p.tileK * stagedTileWidth(p) * elementBytes(p.dtype)) % 16 !== 0) out.push('the A ring must start 16-byte aligned');
  if (p.engine === 'dmma') {
    if (p.dtype !== DMMA_DTYPE) out.push('dmma is float64 only');
    if (p.t3 % 16 !== 0 || p.tileK % 16 !== 0) out.push('dmma needs t3 and tileK multiples of 16');
    if (p.vec > 2) out.push('dmma takes vec 1 or 2 (32 or 64 rows per warp)');
  }
  return out;
}

/** The B tile fill: op(B)(kt + r, p + c) -> dst[pos], zero past kEnd or n; pos as the engine reads it. */
function loadTileB(p: Tsm2rParams): string {
  // Consecutive threads read consecutive addresses of B: down a column when op(B) = N.
  const rc = p.transB === 'N' ? 'const int r = e % TK, c = e / TK;' : 'const int r = e / BW, c = e % BW;';
  const pos = p.engine === 'dmma'
    // [k16 step][n8 tile][half][lane = 4 (c % 8) + r % 4][2]: lane (g, t) finds b0..b3 in two 16-byte words.
    ? '((((r >> 4) * NT + (c >> 3)) * 2 + ((r >> 3) & 1)) * 32 + (c & 7) * 4 + (r & 3)) * 2 + ((r >> 2) & 1)'
    : 'r * BW + c';
  return `auto loadTileB = [&](int buf, int kt) {
        real* dst = smem + buf * (TK * BW);
        #pragma unroll 1                             // unrolled, its addresses took ~100 registers
        for (int it = 0; it < (TK * BW + T1 - 1) / T1; ++it) {
          const int e = tid + it * T1;
          if ((TK * BW) % T1 == 0 || e < TK * BW) {
            ${rc}
            const bool ok = kt + r < kEnd && p + c < N && c < T2;
            cpAsyncReal(dst + ${pos}, ok ? B + ${bIndex(p.transB, 'kt + r', 'p + c')} : B, ok);
          }
        }
      };`;
}

export function generateTsm2rStaged(p: Tsm2rParams, name: string): KernelSource {
  const E = elementBytes(p.dtype);
  const dmma = p.engine === 'dmma';
  const V = p.vec;
  const cluster = p.split > 1 ? `__cluster_dims__(1, ${p.split}, 1) ` : '';
  // Unrolled over a B tile, ptxas hoists the next slots' shared loads and runs out of registers
  // once the accumulators are large (fma, > 64 registers of them); dmma's are small.
  const unrollSlots = dmma || (p.vec * p.t2 * E) / 4 <= 64 ? '' : ' 1';

  // This thread's A copies for one slot: k-steps kq0 .. kq0 + T3 - 1 (zeros past kEnd or m).
  const issueA = dmma
    ? `auto issueA = [&](int slot, int kq0) {
        #pragma unroll
        for (int q = 0; q < T3 / 4; ++q) {
          const int kq = kq0 + 4 * q + t;
          #pragma unroll
          for (int i = 0; i < MT; ++i) {
            const int r = rowW + 16 * i + 2 * g;
            const int valid = kq < kEnd ? min(max(m - r, 0), 2) : 0;
            cpAsyncBytes<16>(As + (((slot * (T3 / 4) + q) * MT + i) * T1 + tid) * 2,
                             valid > 0 ? A + (i64)kq * lda + r : A, valid * 8);
          }
        }
      };`
    : `auto issueA = [&](int slot, int kq0) {
        #pragma unroll
        for (int u = 0; u < T3; ++u) {
          const int kq = kq0 + u;
          const int valid = kq < kEnd ? rowsValid : 0;
          cpAsyncBytes<V * ${E}>(As + ((slot * T3 + u) * T1 + tid) * V, valid > 0 ? A + (i64)kq * lda + row0 : A, valid * ${E});
        }
      };`;

  // One slot's products: t3 k-steps against rows s .. s + t3 - 1 of the B tile.
  let compute: string;
  if (dmma) {
    compute = `const real* a = As + readSlot * (T3 * T1 * V) + tid * 2;
          #pragma unroll
          for (int ks = 0; ks < T3 / 16; ++ks) {
            const real* bt = smem + buf * (TK * BW) + ((s / 16 + ks) * NT) * 128 + lane * 2;
            real b[NT][4];
            #pragma unroll
            for (int j = 0; j < NT; ++j) {
              const double2 lo = *reinterpret_cast<const double2*>(bt + j * 128);
              const double2 hi = *reinterpret_cast<const double2*>(bt + j * 128 + 64);
              b[j][0] = lo.x; b[j][1] = lo.y; b[j][2] = hi.x; b[j][3] = hi.y;
            }
            #pragma unroll
            for (int i = 0; i < MT; ++i) {
              real af[8];
              #pragma unroll
              for (int qq = 0; qq < 4; ++qq) {
                const double2 v = *reinterpret_cast<const double2*>(a + (((4 * ks + qq) * MT + i) * T1) * 2);
                af[2 * qq] = v.x; af[2 * qq + 1] = v.y;
              }
              #pragma unroll
              for (int j = 0; j < NT; ++j) dmma16816(acc[i][j], af, b[j]);
            }
          }`;
  } else {
    const W = widestVector(p.dtype, p.t2);
    const vecB = vectorType(p.dtype, W);
    const vecA = vectorType(p.dtype, V);
    const lines: string[] = [];
    for (let j = 0; j < p.t2; j += W) {
      lines.push(`{ const ${vecB} b = *reinterpret_cast<const ${vecB}*>(bRow + ${j});`);
      for (let w = 0; w < W; w++)
        for (let v = 0; v < V; v++) lines.push(`  acc[${v}][${j + w}] = fmaReal(${component('x', V, v)}, ${component('b', W, w)}, acc[${v}][${j + w}]);`);
      lines.push('}');
    }
    compute = `const real* a = As + readSlot * (T3 * T1 * V) + tid * V;
          #pragma unroll
          for (int u = 0; u < T3; ++u) {
            const ${vecA} x = *reinterpret_cast<const ${vecA}*>(a + u * (T1 * V));
            const real* bRow = smem + buf * (TK * BW) + (s + u) * BW;
            ${lines.join('\n            ')}
          }`;
  }

  const store = (row: string, col: string, value: string): string => `{
          real* c = C + (${row}) + (i64)(${col}) * ldc;
          real r = alpha * (${value});
          if (beta != (real)0) r = fmaReal(beta, *c, r); // beta = 0: C is never read
          *c = r;
        }`;

  // Accumulator -> (row within the block, column within the pass) for the epilogues.
  const accDecl = dmma ? 'real acc[MT][NT][4];' : 'real acc[V][T2];';
  const accZero = dmma
    ? `#pragma unroll
    for (int i = 0; i < MT; ++i)
      #pragma unroll
      for (int j = 0; j < NT; ++j)
        #pragma unroll
        for (int q4 = 0; q4 < 4; ++q4) acc[i][j][q4] = (real)0;`
    : `#pragma unroll
    for (int v = 0; v < V; ++v)
      #pragma unroll
      for (int j = 0; j < T2; ++j) acc[v][j] = (real)0;`;
  // visit(localRow, localCol, value) over this thread's accumulators.
  const eachAcc = (body: (lr: string, lc: string, val: string) => string): string => dmma
    ? `#pragma unroll
    for (int i = 0; i < MT; ++i)
      #pragma unroll
      for (int j = 0; j < NT; ++j)
        #pragma unroll
        for (int q4 = 0; q4 < 4; ++q4) {
          const int lr = warp * (32 * V) + 16 * i + 2 * g + (q4 >> 1), lc = 8 * j + 2 * t + (q4 & 1);
          if (lc < T2) ${body('lr', 'lc', 'acc[i][j][q4]')}
        }`
    : `#pragma unroll
    for (int v = 0; v < V; ++v)
      #pragma unroll
      for (int j = 0; j < T2; ++j) { const int lr = tid * V + v, lc = j; ${body('lr', 'lc', 'acc[v][j]')} }`;

  const epilogue = p.split === 1
    ? `${eachAcc((lr, lc, val) => `{ if (rowBase + ${lr} < m && p + ${lc} < N) ${store(`rowBase + ${lr}`, `p + ${lc}`, val)} }`)}`
    : `// Cluster reduction (as generate-r.ts): partial sums meet in distributed shared memory, added
    // in rank order (the same bits on every run).
    cpAsyncWaitAll();
    __syncthreads();                       // the B tiles and the A ring are dead; reuse them
    real* red = smem;                      // [T2][T1 * V]
    ${eachAcc((lr, lc, val) => `red[${lc} * (T1 * V) + ${lr}] = ${val};`)}
    ${clusterReduceAndStore(store)}`;

  const mma = dmma ? `// D = A B + D on the tensor cores: A 16 x 16 (8 per lane), B 16 x 8 (4 per lane), D 16 x 8 (4 per lane).
static __device__ __forceinline__ void dmma16816(double (&d)[4], const double (&a)[8], const double (&b)[4]) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};\\n"
    : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
    : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
      "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
}
` : '';

  const source = `// ${name}: generated by src/cuda/kernels/tsm2/generate-r-staged.ts (TSM2R, A staged through shared memory${dmma ? ', DMMA' : ''})
${tsm2Prelude(p.dtype, { cpAsync: true, cluster: p.split > 1 })}${mma}
constexpr int N = ${p.n}, T1 = ${p.t1}, T2 = ${p.t2}, T3 = ${p.t3}, TK = ${p.tileK}, V = ${V}, STAGES = ${p.stages};
constexpr int BW = ${stagedTileWidth(p)};${dmma ? ' constexpr int NT = BW / 8, MT = 2 * V;' : ''}${p.split > 1 ? ` constexpr int S = ${p.split};` : ''}

${tsm2rSignature(name, cluster, p.t1)}
{
  extern __shared__ __align__(16) unsigned char smemBytes[];
  real* smem = reinterpret_cast<real*>(smemBytes);   // [2][TK][BW] B tiles, then the A ring
  real* As = smem + 2 * TK * BW;                     // [STAGES][T3][T1][V], private per thread
  const int tid = threadIdx.x;
  const int rowBase = blockIdx.x * (T1 * V);
${dmma
    ? `  const int warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;
  const int rowW = rowBase + warp * (32 * V);        // the warp's rows: rowW + 16 i + 2 g + {0, 1}`
    : `  const int row0 = rowBase + tid * V;
  const int rowsValid = min(max(m - row0, 0), V);`}
  const int kBegin = blockIdx.y * kChunk;            // this block's share of k
  const int kEnd = min(k, kBegin + kChunk);

  for (int p = 0; p < N; p += T2) {                  // passes over t2 columns of C
    if (p > 0) __syncthreads();                      // the last pass's B tiles are read
    ${accDecl}
    ${accZero}
    if (kBegin < kEnd) {
      ${loadTileB(p)}
      ${issueA}
      loadTileB(0, kBegin);                          // committed with slot 0
      #pragma unroll
      for (int s = 0; s < STAGES - 1; ++s) { issueA(s, kBegin + s * T3); cpAsyncCommit(); }
      int buf = 0, readSlot = 0, writeSlot = STAGES - 1;
      for (int kt = kBegin; kt < kEnd; kt += TK) {
        #pragma unroll${unrollSlots}
        for (int s = 0; s < TK; s += T3) {
          cpAsyncWait<STAGES - 2>();                 // this slot (and, at s = 0, B tile kt) landed
          if (s == 0) {
            __syncthreads();                         // tile kt visible; everyone done with buf ^ 1
            if (kt + TK < kEnd) loadTileB(buf ^ 1, kt + TK);
          }
          issueA(writeSlot, kt + s + (STAGES - 1) * T3);
          cpAsyncCommit();
          ${compute}
          readSlot = readSlot + 1 == STAGES ? 0 : readSlot + 1;
          writeSlot = writeSlot + 1 == STAGES ? 0 : writeSlot + 1;
        }
        buf ^= 1;
      }
      cpAsyncWaitAll();                              // the zero-filled slots past kEnd too
    }

    ${epilogue}
  }
}
`;
  return { name: `${name}.cu`, source, entry: name };
}
