/**
 * gemm's plan: the unrolled JavaScript for small matrices that come one at a time (list and
 * variable batches), the WebAssembly register blocks otherwise; and the WebAssembly design's
 * parameters for a shape. Pure: the tuning table and `force` decide.
 */
import { dtypeInfo } from '../../core/dtype-table.js';
import type { DType } from '../../core/dtype.js';
import type { Op } from '../../core/ops.js';
import { lanes, type GemmWasmParams } from '../kernels/gemm-wasm.js';
import type { CpuTuning } from '../tuning.js';

export type GemmVariant = 'js' | 'wasm';
export interface GemmProblem { readonly m: number; readonly n: number; readonly k: number; readonly dtype: DType; readonly strided: boolean }
export interface GemmForce { readonly variant?: GemmVariant }

/** The variant for a run of one shape. */
export function planGemm(p: GemmProblem, tuning: CpuTuning, force: GemmForce = {}): GemmVariant {
  const forced = force.variant ?? tuning.gemmForce;
  // the unrolled JavaScript exists only to n = 16 (generated in full)
  if (forced === 'wasm' || (forced === 'js' && Math.max(p.m, p.n, p.k) <= 16)) return forced;
  const max = tuning.unrollMax.gemm[p.dtype];
  return !p.strided && p.m <= max && p.n <= max && p.k <= max ? 'js' : 'wasm';
}

/** The WebAssembly design's parameters for a shape (tile and blocking from the table). */
export function gemmWasmParamsFor(tuning: CpuTuning, m: number, n: number, k: number, dtype: DType, transB: Op, fma: boolean): GemmWasmParams {
  const t = tuning.gemmWasm[dtype];
  const E = dtypeInfo(dtype).bytes;
  const vectors = Math.ceil(m / lanes(dtype));
  const tile = fma && vectors % 3 === 0 ? t.fmaTile : vectors === 3 ? t.threeVectorTile : t.tile;
  // An A whose columns are a multiple of 256 bytes and which outgrows the L2 block gets one cache
  // line more per column, or its columns alias onto a few cache sets (float64 512 ran at half the 256 rate).
  const lda = m * k * E > t.blockBytes && (m * E) % 256 === 0 ? m + 64 / E : m;
  return { m, n, k, dtype, transB, tile, unroll: t.unroll, lda, rowBlock: Math.floor(t.blockBytes / (k * E)), fma };
}
