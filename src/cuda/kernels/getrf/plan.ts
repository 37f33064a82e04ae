/**
 * Which LU design and parameters serve one group of equal-size matrices: max(rows, cols) <= 32
 * the warp design, up to registerMax the block register design, beyond the blocked fallback;
 * shapes and thresholds from the architecture's tuning table, `force` for tests and sweeps.
 */
import type { DType } from '../../../core/dtype.js';
import { MyriadError } from '../../../core/errors.js';
import { bandFor, type GetrfTuning } from '../../model/tuning/index.js';
import type { OperandKind } from '../common/batch-pointer.js';
import { elementBytes } from '../common/precision.js';
import { REGISTER_DESIGN_MAX } from '../common/register-tile.js';
import { SMALL_WARPS } from '../common/warp-slots.js';
import { GETRF_SMALL_MAX } from './generate-small.js';
import type { GetrfForce, GetrfPlan, GetrfVariant } from './params.js';

export interface GetrfProblem {
  readonly dtype: DType;
  readonly rows: number;
  readonly cols: number;
  readonly kind: OperandKind;
  /** Dynamic shared bytes one block may use. */
  readonly sharedLimit: number;
}

/** The widest panel (widest, then halving to 1) whose m x IB block fits in `limit` shared bytes; 0 if none. */
export function chooseLuPanelWidth(dtype: DType, m: number, limit: number, widest = 16): number {
  for (let ib = widest; ib >= 1; ib >>= 1) if (m * ib * elementBytes(dtype) <= limit) return ib;
  return 0;
}


/** The design for a rows x cols matrix: forced (it must accept the size), else by size from the table. */
export function selectGetrf(dtype: DType, rows: number, cols: number, tuning: GetrfTuning, forced?: GetrfVariant): GetrfVariant {
  const big = Math.max(rows, cols);
  if (forced !== undefined) {
    const fits = forced === 'small' ? big <= GETRF_SMALL_MAX : forced === 'register' ? big <= REGISTER_DESIGN_MAX : true;
    if (!fits) throw new MyriadError('UNSUPPORTED', `getrf variant '${forced}' does not accept ${rows} x ${cols}`, 'a');
    return forced;
  }
  if (big <= GETRF_SMALL_MAX) return 'small';
  if (big <= Math.min(tuning.registerMax[dtype], REGISTER_DESIGN_MAX)) return 'register';
  return 'blocked';
}

export function planGetrf(problem: GetrfProblem, tuning: GetrfTuning, options: { readonly force?: GetrfForce } = {}): GetrfPlan {
  const { dtype, rows, cols, kind } = problem;
  const force = options.force ?? {};
  const variant = selectGetrf(dtype, rows, cols, tuning, force.variant);
  if (variant === 'small') return { variant, params: { dtype, rows, cols, kind, warps: SMALL_WARPS } };
  if (variant === 'register') {
    const shape = force.register ?? bandFor(tuning.registerShapes[dtype], Math.max(rows, cols))!.shape;
    return { variant, params: { dtype, rows, cols, kind, warps: shape.warps, nb: shape.nb, minBlocks: shape.minBlocks } };
  }
  const ib = chooseLuPanelWidth(dtype, rows, problem.sharedLimit, force.panelWidest ?? tuning.panelWidest[dtype]);
  return { variant, params: { dtype, kind, ib } };
}
