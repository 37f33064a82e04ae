/**
 * Which Cholesky design and parameters serve one group of equal-size matrices: n <= 32 the warp
 * design, 32 < n <= registerMax the block register design, larger n the panel design; shapes and
 * thresholds from the architecture's tuning table (model/tuning/), `force` for tests and sweeps.
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import { MyriadError } from '../../../core/errors.js';
import { bandFor, type PotrfBlockedTuning, type PotrfTuning } from '../../model/tuning/index.js';
import type { OperandKind } from '../common/batch-pointer.js';
import { elementBytes } from '../common/precision.js';
import { REGISTER_DESIGN_MAX } from '../common/register-tile.js';
import { splitPoint } from '../common/split.js';
import { SMALL_MAX_N, smallWarps } from '../common/warp-slots.js';
import type { PotrfForce, PotrfPlan, PotrfVariant } from './params.js';

export interface PotrfProblem {
  readonly dtype: DType;
  readonly uplo: Uplo;
  readonly n: number;
  readonly kind: OperandKind;
  /** Dynamic shared bytes one block may use (the device's opt-in limit less a reserve). */
  readonly sharedLimit: number;
}

/** Left-part columns staged per step of the panel kernel. */
export const PANEL_KB = 16;

/** The widest panel (widest, then halving to 1) whose m x IB block fits in `limit` shared bytes; 0 if none. */
export function choosePanelWidth(dtype: DType, n: number, kb: number, limit: number, widest = 8): number {
  for (let ib = widest; ib >= 1; ib >>= 1) if ((ib * kb + n * ib) * elementBytes(dtype) <= limit) return ib;
  return 0;
}

/** The design for n: forced (it must accept n), else by size from the table. */
export function selectPotrf(dtype: DType, n: number, tuning: PotrfTuning, forced?: PotrfVariant): PotrfVariant {
  if (forced !== undefined) {
    const fits = forced === 'small' ? n <= SMALL_MAX_N : forced === 'register' ? n <= REGISTER_DESIGN_MAX : true;
    if (!fits) throw new MyriadError('UNSUPPORTED', `potrf variant '${forced}' does not accept n = ${n}`, 'a');
    return forced;
  }
  if (n <= SMALL_MAX_N) return 'small';
  if (n <= Math.min(tuning.registerMax[dtype], REGISTER_DESIGN_MAX)) return 'register';
  return 'panel';
}

export function planPotrf(problem: PotrfProblem, tuning: PotrfTuning, options: { readonly force?: PotrfForce } = {}): PotrfPlan {
  const { dtype, uplo, n, kind } = problem;
  const force = options.force ?? {};
  const variant = selectPotrf(dtype, n, tuning, force.variant);
  if (variant === 'small') {
    return { variant, params: { dtype, n, uplo, kind, warps: smallWarps(n), classic: n <= tuning.classicMax[dtype] } };
  }
  if (variant === 'register') {
    const shape = force.register ?? bandFor(tuning.registerShapes[dtype], n)!.shape;
    return { variant, params: { dtype, n, uplo, kind, warps: shape.warps, nb: shape.nb, minBlocks: shape.minBlocks } };
  }
  const widest = force.panelWidest ?? bandFor(tuning.panelWidest[dtype], n)!.widest;
  const ib = choosePanelWidth(dtype, n, PANEL_KB, problem.sharedLimit, widest);
  return { variant, params: { dtype, uplo, kind, ib, kb: PANEL_KB, loop: force.panelLoop ?? tuning.panelLoop } };
}

/**
 * The recursive (blocked) Cholesky over the whole batch for large n (mid-size batches
 * and single large matrices; gpu-only-cholesky.txt, batched-triangular-kblas.txt POTRF): split A
 * into halves, factor A11, A21 := A21 L11^-T (trsm), A22 -= A21 A21^T (syrk), factor A22; diagonal
 * blocks of at most RECURSIVE_LEAF are the batched kernels above, the rest is GEMM-rich work of the
 * trsm and syrk families. RECURSIVE_LEAF is not swept; RECURSIVE_MIN is measured (below).
 */
export const RECURSIVE_LEAF = 128;
/**
 * n from which the recursion (the blocked driver over the whole batch) replaces the one-block-per-
 * matrix designs, whatever the count. First for fewer matrices than SMs (H100, 2026-11-26,
 * scripts/probe/potrf-blocked.mjs, ms recursion / panel design: float64 256 x 16 0.386 / 0.557,
 * 256 x 64 0.387 / 0.544, 256 x 120 0.360 / 0.559, 384 x 16 0.643 / 1.064, 384 x 64 0.677 / 1.120,
 * 384 x 120 0.791 / 1.514; float32 256 x 16 0.385 / 0.739); since 2026-11-26 (H100) for any count (float64,
 * 256 matrices, ms, the fused driver / the panel design / potrfBatched: 256 0.40 / 0.78 / 0.51, 384
 * 0.93 / 2.04 / 1.21, 512 1.73 / 3.66 / 2.41, 768 4.38 / 9.30 / 6.42).
 */
export const RECURSIVE_MIN = 256;

/** Whether a strided group of `count` matrices of n takes the recursion (`force` overrides). */
export function potrfRecursive(n: number, count: number, smCount: number, force?: boolean): boolean {
  if (force !== undefined) return force && n > RECURSIVE_LEAF;
  void count; void smCount;   // the crossover no longer depends on them (kept: the launcher's question)
  return n >= RECURSIVE_MIN;
}

/**
 * Whether a strided group that takes the large path (potrfRecursive) runs panel by panel: from the
 * table's `minN` (gpu-only-cholesky.txt's blocked algorithm), `force` overriding.
 */
export function potrfBlocked(n: number, tuning: PotrfBlockedTuning, force?: boolean): boolean {
  return force ?? n >= tuning.minN;
}

/** One step of the flattened recursion, in launch order (offsets and sizes of the diagonal blocks). */
export type PotrfRecursionStep =
  | { readonly kind: 'leaf'; readonly off: number; readonly size: number }
  | { readonly kind: 'update'; readonly off: number; readonly top: number; readonly rest: number };

/**
 * The right-looking blocked Cholesky (gpu-only-cholesky.txt, the blocked algorithm; LAPACK's
 * dpotrf): for each panel of `panel` columns, factor its diagonal block (by the recursion above,
 * leaves of at most `leaf`), then one update: the panel below (or right of) the diagonal block by
 * trsm with it, and the whole trailing matrix by one syrk. Every trsm has a triangle of at most
 * `panel`, every syrk k = `panel`: the serial chain is n / panel panels, not the recursion's
 * latency-bound halves. The same steps as the recursion's, so one loop runs both.
 */
export function potrfBlockedSteps(n: number, panel: number, leaf = RECURSIVE_LEAF): PotrfRecursionStep[] {
  if (!(Number.isInteger(panel) && panel >= 1)) throw new MyriadError('INVALID_ARGUMENT', `potrf's panel must be a positive integer, got ${panel}`, 'panel');
  const steps: PotrfRecursionStep[] = [];
  for (let off = 0; off < n; off += panel) {
    const size = Math.min(panel, n - off);
    for (const s of potrfRecursionSteps(size, leaf)) steps.push({ ...s, off: s.off + off });
    if (off + size < n) steps.push({ kind: 'update', off, top: size, rest: n - off - size });
  }
  return steps;
}

/** The recursion for a matrix of n: leaves of at most `leaf`, splits at multiples of 32 near the half. */
export function potrfRecursionSteps(n: number, leaf = RECURSIVE_LEAF): PotrfRecursionStep[] {
  const steps: PotrfRecursionStep[] = [];
  const run = (off: number, size: number): void => {
    if (size <= leaf) {
      steps.push({ kind: 'leaf', off, size });
      return;
    }
    const top = splitPoint(size, 32);
    run(off, top);
    steps.push({ kind: 'update', off, top, rest: size - top });
    run(off + top, size - top);
  };
  if (n > 0) run(0, n);
  return steps;
}
