/**
 * The class kernels of a variable-size batched GEMM (common/vbatch.ts has the classes): one launch
 * serves every member of a class, each member's pointers and sizes read from two device tables,
 * members in the launcher's order (by size, largest first):
 * - pointers: 3 per member, A, B and C (offsets folded in);
 * - ints: 6 per member, m, n, k, ldA, ldB, ldC (k is 0 where alpha is 0: A and B are then never read).
 *
 * `vsmall` (classes up to 32): a team of TEAM threads per member, TBC members per block; the team
 * takes the member's m n elements of C in turn (column-major order, so a warp's stores are
 * consecutive), each a dot product over k read straight from memory (through L1: a member's A
 * and B are a few KiB), summed by fused multiply-adds from p = 0 up, then alpha acc + beta C:
 * the very-small kernel's arithmetic (generate-small.ts), element for element.
 * `vtiled` (larger classes): the tiled kernel (generate-tiled.ts) with a prologue that reads the
 * member's sizes and pointers; grid x spans the class's tiles, and a block whose tile lies outside
 * its member's C leaves at once (block-uniform, before any barrier).
 * beta = 0: C is never read (a compile-time variant, as in the uniform kernels).
 * The device form's variants (params.ts VbatchedCounting, entry suffix `_dc`): the class's count
 * from its counter, the blocks looping over the members; each member's arithmetic is the same text.
 */
import type { KernelSource } from '../../runtime/types.js';
import { precisionLetter, precisionPrelude } from '../common/precision.js';
import { mmaGemmShape, mmaGemmSource } from './generate-mma.js';
import { noPrefetchTag } from './prefetch-c.js';
import { tiledGemmShape, tiledGemmSource } from './generate-tiled.js';
import type { KernelFrame } from './tile-prologue.js';
import type { GemmKernelShape, MmaGemmParams, TiledGemmParams, VbatchedCounting, VmmaGemmParams, VsmallGemmParams, VtiledGemmParams } from './params.js';

/** Entries per member in the two tables. */
export const GEMM_VBATCH_POINTERS = 3;
export const GEMM_VBATCH_INTS = 6;

/** Every class kernel's parameter list (the launchers pass the two tables, the count, alpha and beta). */
export const VBATCH_PARAMETERS = 'real* const* __restrict__ ptrs, const int* __restrict__ dims, int count, real alpha, real beta';

/** The device form's parameter list (params.ts VbatchedCounting): the class's counter after beta. */
const VBATCH_LIVE_PARAMETERS = `${VBATCH_PARAMETERS}, const int* __restrict__ live`;

/** A class kernel's parameter list. */
export const vbatchParameters = (p: VbatchedCounting): string => (p.deviceCount === true ? VBATCH_LIVE_PARAMETERS : VBATCH_PARAMETERS);

/** The entry-name suffix of the device form's class kernels. */
export const countingTag = (p: VbatchedCounting): string => (p.deviceCount === true ? '_dc' : '');

/**
 * CUDA text, the device form's opening: \`members\`, the class's member count as the classification
 * left it in its counter (at most the region's rows).
 */
export const LIVE_MEMBERS = 'const int members = min(*live, count);   // the classification\'s count of this class';

/** The member's sizes and pointers, as every class kernel reads them (`member`: its index in the launch). */
export function memberOpening(member: string): string {
  return `const int* dm = dims + ${GEMM_VBATCH_INTS} * (long long)(${member});
  const int m = dm[0], n = dm[1], k = dm[2], ldA = dm[3], ldB = dm[4], ldC = dm[5];
  const real* a = ptrs[${GEMM_VBATCH_POINTERS} * (long long)(${member})];
  const real* b = ptrs[${GEMM_VBATCH_POINTERS} * (long long)(${member}) + 1];
  real* c = ptrs[${GEMM_VBATCH_POINTERS} * (long long)(${member}) + 2];`;
}

export const transTag = (p: { transA: string; transB: string }): string => `${p.transA}${p.transB}`;

function validateVsmall(p: VsmallGemmParams): void {
  const bad = (why: string): never => { throw new Error(`invalid vbatched small gemm params (${why}): ${JSON.stringify(p)}`); };
  if (!Number.isInteger(p.bound) || p.bound < 1 || p.bound > 32) bad('bound must be in 1..32');
  if (!Number.isInteger(p.team) || p.team < 1 || p.team % 32 !== 0) bad('team must be a positive multiple of 32');
  if (!Number.isInteger(p.tbc) || p.tbc < 1 || p.team * p.tbc > 1024) bad('tbc teams must fit 1024 threads');
}

export function vsmallGemmShape(p: VsmallGemmParams): GemmKernelShape {
  return { threads: p.team * p.tbc, sharedBytes: 0 };
}

/** Pure: the same parameters always give the same source. */
export function generateVsmallGemm(p: VsmallGemmParams): KernelSource {
  validateVsmall(p);
  const threads = p.team * p.tbc;
  const entry = `gemm_vsmall_${precisionLetter(p.dtype)}${transTag(p)}_c${p.bound}_t${p.team}x${p.tbc}${p.betaZero ? '_b0' : ''}${countingTag(p)}`;
  const opA = p.transA === 'N' ? 'a[i + (long long)q * ldA]' : 'a[q + (long long)i * ldA]';
  const opB = p.transB === 'N' ? 'b[q + (long long)j * ldB]' : 'b[j + (long long)q * ldB]';
  const source = `// Variable-size batched GEMM, one size class (m, n, k <= ${p.bound}): C = alpha op(A) op(B) + beta C, op(A) ${p.transA}, op(B) ${p.transB}.
// Generated by src/cuda/kernels/gemm/generate-vbatched.ts.
${precisionPrelude(p.dtype)}

extern "C" __global__ void __launch_bounds__(${threads}) ${entry}(
    ${vbatchParameters(p)})
{
  constexpr int TEAM = ${p.team};            // threads per member
  constexpr int TBC = ${p.tbc};              // members per block
${p.deviceCount === true ? `  ${LIVE_MEMBERS}
  // The teams take the members in turn (no barrier: each team leaves on its own).
  for (int member = blockIdx.x * TBC + threadIdx.x / TEAM; member < members; member += gridDim.x * TBC) {
${vsmallMember(opA, opB, p.betaZero)}
  }` : `  const int member = blockIdx.x * TBC + threadIdx.x / TEAM;
  if (member >= count) return;
${vsmallMember(opA, opB, p.betaZero)}`}
}
`;
  return { name: `${entry}.cu`, source, entry };
}

/** The team design's work on one member (\`member\` in scope). */
function vsmallMember(opA: string, opB: string, betaZero: boolean): string {
  return `  const int lane = threadIdx.x % TEAM;
  ${memberOpening('member')}
  ${betaZero ? '(void)beta;' : ''}
  const int elements = m * n;
  for (int e = lane; e < elements; e += TEAM) {
    const int i = e % m, j = e / m;
    real acc = 0;
    for (int q = 0; q < k; ++q) acc = fmaReal(${opA}, ${opB}, acc);
    real* cij = c + i + (long long)j * ldC;
    *cij = ${betaZero ? 'alpha * acc' : 'alpha * acc + beta * *cij'};
  }`;
}

/** The uniform tiled parameters a class kernel runs (its operands as pointer arrays). */
export function vtiledAsTiled(p: VtiledGemmParams): TiledGemmParams {
  const pointer = { kind: 'pointer' as const, dense: false };
  return {
    variant: 'tiled', dtype: p.dtype, transA: p.transA, transB: p.transB, betaZero: p.betaZero,
    layouts: { a: pointer, b: pointer, c: pointer }, bm: p.bm, bn: p.bn, bk: p.bk, tm: p.tm, tn: p.tn,
  };
}

export function vtiledGemmShape(p: VtiledGemmParams): GemmKernelShape {
  return tiledGemmShape(vtiledAsTiled(p));
}

/** Tiles of the class's largest C (a tiled or tensor-core class): grid x of a launch. */
export function classTiles(p: Pick<VtiledGemmParams | VmmaGemmParams, 'bound' | 'bm' | 'bn'>): number {
  return Math.ceil(p.bound / p.bm) * Math.ceil(p.bound / p.bn);
}

/**
 * The class kernels' opening, after the batch member's sizes: this block's tile of the member's C
 * (grid x spans the class's tiles; a tile outside the member's C leaves at once, block-uniform).
 */
const CLASS_PROLOGUE = `const int batch = blockIdx.z * gridDim.y + blockIdx.y;
  if (batch >= count) return;
  ${memberOpening('batch')}
  const int tilesM = (m + BM - 1) / BM;
  if ((int)blockIdx.x >= tilesM * ((n + BN - 1) / BN)) return;   // outside this member's C
  const int i0 = (blockIdx.x % tilesM) * BM;
  const int j0 = (blockIdx.x / tilesM) * BN;`;

/**
 * The device form's opening: the block's tile of each member in turn, members y + z gridDim.y,
 * + gridDim.y gridDim.z, ... below the class's count (a tile outside a member's C skips it,
 * block-uniform); the frame's close ends the member with a barrier, so the next member's copies
 * never overwrite shared buffers a slower warp still reads.
 */
const CLASS_LOOP_PROLOGUE = `${LIVE_MEMBERS}
  for (int batch = blockIdx.z * gridDim.y + blockIdx.y; batch < members; batch += gridDim.y * gridDim.z) {
  ${memberOpening('batch')}
  const int tilesM = (m + BM - 1) / BM;
  if ((int)blockIdx.x >= tilesM * ((n + BN - 1) / BN)) continue;   // outside this member's C
  const int i0 = (blockIdx.x % tilesM) * BM;
  const int j0 = (blockIdx.x / tilesM) * BN;`;

const CLASS_LOOP_CLOSE = `
  __syncthreads();                          // the block's shared buffers are free for the next member
  }`;

/** The frame of a tiled or tensor-core class kernel named `entry`. */
function classFrame(p: VbatchedCounting, entry: string): KernelFrame {
  return p.deviceCount === true
    ? { entry: `${entry}${countingTag(p)}`, parameters: vbatchParameters(p), unused: '', prologue: CLASS_LOOP_PROLOGUE, close: CLASS_LOOP_CLOSE }
    : { entry, parameters: VBATCH_PARAMETERS, unused: '', prologue: CLASS_PROLOGUE };
}

/** Pure: the same parameters always give the same source. */
export function generateVtiledGemm(p: VtiledGemmParams): KernelSource {
  if (!Number.isInteger(p.bound) || p.bound < 1) throw new Error(`invalid vbatched tiled gemm params (bound): ${JSON.stringify(p)}`);
  const entry = `gemm_vtiled_${precisionLetter(p.dtype)}${transTag(p)}_c${p.bound}_${p.bm}x${p.bn}x${p.bk}_t${p.tm}x${p.tn}${noPrefetchTag(p)}${p.betaZero ? '_b0' : ''}`;
  return tiledGemmSource(vtiledAsTiled(p), classFrame(p, entry));
}

/** The uniform mma parameters a class kernel runs (its operands as pointer arrays, no tile groups). */
function vmmaAsMma(p: VmmaGemmParams): MmaGemmParams {
  const pointer = { kind: 'pointer' as const, dense: false };
  const { variant: _variant, bound: _bound, tileGroup: _tileGroup, deviceCount: _deviceCount, ...config } = p;
  return { ...config, variant: 'mma', layouts: { a: pointer, b: pointer, c: pointer } };
}

export function vmmaGemmShape(p: VmmaGemmParams): GemmKernelShape {
  return mmaGemmShape(vmmaAsMma(p));
}

/** Pure: the class kernel on the FP64 tensor cores. */
export function generateVmmaGemm(p: VmmaGemmParams): KernelSource {
  if (!Number.isInteger(p.bound) || p.bound < 1) throw new Error(`invalid vbatched mma gemm params (bound): ${JSON.stringify(p)}`);
  const m = vmmaAsMma(p);
  const flags = `${p.minBlocks !== undefined ? `b${p.minBlocks}` : ''}${noPrefetchTag(p)}`;
  const entry = `gemm_vmma_d${transTag(p)}_c${p.bound}_${p.bm}x${p.bn}x${p.bk}_w${p.wm}x${p.wn}_s${p.stages}${flags}_k${m.mmaK ?? 8}${p.betaZero ? '_b0' : ''}`;
  return mmaGemmSource(m, classFrame(p, entry));
}
