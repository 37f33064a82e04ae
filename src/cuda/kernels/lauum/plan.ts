/**
 * The batched lauum's plan for one group of equal-size matrices: the paper's recursion
 * (batched-triangular-kblas, LAUUM: for lower A = [L11 0; L21 L22], L^T L has A11 = L11^T L11 +
 * L21^T L21, A21 = L22^T L21, A22 = L22^T L22: lauum of L11, a SYRK onto it, a TRMM, lauum of L22;
 * upper symmetric) unrolled on the host into launches over the whole batch, down to triangles a
 * leaf computes: the shared-memory leaf (generate-leaf.ts) or the register leaf
 * (generate-register-leaf.ts). Sizes and shapes from the tuning table (model/tuning/), `force` for
 * tests.
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import { MyriadError } from '../../../core/errors.js';
import type { LauumTuning } from '../../model/tuning/index.js';
import type { OperandKind } from '../common/batch-pointer.js';
import { elementBytes } from '../common/precision.js';
import { splitPoint } from '../common/split.js';
import { LAUUM_LEAF_MAX_THREADS } from './generate-leaf.js';
import { LAUUM_REGISTER_TILE_MAX, lauumRegisterLeafError, lauumRegisterThreads } from './generate-register-leaf.js';
import type { LauumForce, LauumLeafShape, LauumPlan, LauumRegisterLeafParams, LauumStep, Span } from './params.js';

export interface LauumProblem {
  readonly dtype: DType;
  readonly uplo: Uplo;
  /** A is n x n. */
  readonly n: number;
  readonly count: number;
  readonly kind: OperandKind;
  /** Dynamic shared bytes one block may use (the device's opt-in limit less a reserve). */
  readonly sharedLimit: number;
}

/** The recursion over a triangle of size n, flattened in launch order (see LauumStep). */
export function lauumSteps(n: number, leafMax: number, align: number): LauumStep[] {
  if (!(leafMax >= 1)) throw new MyriadError('INVALID_ARGUMENT', `lauum leaf size must be at least 1, got ${leafMax}`, 'leafMax');
  const steps: LauumStep[] = [];
  const run = (span: Span): void => {
    if (span.size <= leafMax) {
      steps.push({ kind: 'leaf', span });
      return;
    }
    const h = splitPoint(span.size, align);
    const lo: Span = { off: span.off, size: h };
    const hi: Span = { off: span.off + h, size: span.size - h };
    run(lo);
    steps.push({ kind: 'syrk', lo, hi }, { kind: 'trmm', lo, hi });
    run(hi);
  };
  if (n > 0) run({ off: 0, size: n });
  return steps;
}

/** The leaf's launch shape for triangles of `size`. */
export function lauumLeafShape(dtype: DType, size: number, count: number, tuning: LauumTuning, sharedLimit: number): LauumLeafShape {
  const lds = size | 1;
  const perMatrix = size * lds * elementBytes(dtype);
  if (perMatrix > sharedLimit) throw new MyriadError('UNSUPPORTED', `a lauum leaf of ${size} does not fit ${sharedLimit} shared bytes`, 'a.rows');
  const cap = Math.min(tuning.blockThreads, LAUUM_LEAF_MAX_THREADS);
  const threads = Math.min(cap, Math.max(32, Math.ceil((size * size) / 32) * 32));
  const matrices = Math.max(1, Math.min(
    Math.floor(cap / threads),
    Math.floor(tuning.sharedTarget / perMatrix),
    Math.floor(sharedLimit / perMatrix),
    count,
  ));
  return { threads, matrices, lds, sharedBytes: matrices * perMatrix };
}

/**
 * The register leaf's accumulators a side and form for leaves of `size` (forced, or the table's
 * band), or undefined: the shared-memory leaf.
 */
export function lauumRegisterChoice(dtype: DType, size: number, tuning: LauumTuning, force: LauumForce = {}): { readonly reg: number; readonly pipelined: boolean; readonly packed: boolean } | undefined {
  if (force.leaf === 'shared') return undefined;
  const band = tuning.registerLeaf[dtype].find((b) => size <= b.upTo);
  if (band === undefined && force.leaf !== 'register') return undefined;
  return { reg: force.reg ?? band?.reg ?? 2, pipelined: force.pipelined ?? band?.pipelined ?? false, packed: force.packed ?? band?.packed ?? false };
}

/** The register leaf's launch shape: (tile / reg)^2 threads a matrix, as many matrices a block as the table's targets allow. */
export function lauumRegisterShape(p: LauumRegisterLeafParams, size: number, count: number, tuning: LauumTuning, sharedLimit: number): LauumLeafShape {
  const bad = lauumRegisterLeafError(p);
  if (bad !== undefined) throw new MyriadError('INVALID_ARGUMENT', `lauum register leaf: ${bad}`, 'force.reg');
  const threads = lauumRegisterThreads(p);
  if (threads > 1024) throw new MyriadError('INVALID_ARGUMENT', `lauum register leaf: ${threads} threads a matrix (tile ${p.tile}, reg ${p.reg})`, 'force.reg');
  const lds = size | 1;
  // The pipelined form keeps two buffers a matrix; the packed triangle t (t + 1) / 2 elements, the square t columns of lds.
  const perMatrix = (p.pipelined === true ? 2 : 1) * (p.packed === true ? (size * (size + 1)) / 2 : size * lds) * elementBytes(p.dtype);
  if (perMatrix > sharedLimit) throw new MyriadError('UNSUPPORTED', `a lauum leaf of ${size} does not fit ${sharedLimit} shared bytes`, 'a.rows');
  const matrices = Math.max(1, Math.min(
    Math.floor(Math.max(tuning.blockThreads, threads) / threads),
    Math.floor(Math.max(tuning.sharedTarget, perMatrix) / perMatrix),
    Math.floor(sharedLimit / perMatrix),
    count,
  ));
  return { threads, matrices, lds, sharedBytes: matrices * perMatrix };
}

export function planLauum(problem: LauumProblem, tuning: LauumTuning, options: { readonly force?: LauumForce } = {}): LauumPlan {
  const { dtype, uplo, kind } = problem;
  const force = options.force ?? {};
  const leafMax = force.leafMax ?? tuning.leafMax[dtype];
  const steps = lauumSteps(problem.n, leafMax, tuning.splitAlign);
  const shapes = new Map<number, LauumLeafShape>();
  const registerLeaves = new Map<number, LauumRegisterLeafParams>();
  for (const s of steps) {
    const size = s.kind === 'leaf' ? s.span.size : undefined;
    if (size === undefined || shapes.has(size)) continue;
    const choice = size <= LAUUM_REGISTER_TILE_MAX ? lauumRegisterChoice(dtype, size, tuning, force) : undefined;
    if (choice === undefined) {
      shapes.set(size, lauumLeafShape(dtype, size, problem.count, tuning, problem.sharedLimit));
      continue;
    }
    const { reg, pipelined, packed } = choice;
    let tile = 1;
    while (tile < Math.max(size, reg)) tile *= 2;
    const params: LauumRegisterLeafParams = { dtype, uplo, kind, tile, reg, ...(pipelined ? { pipelined } : {}), ...(packed ? { packed } : {}) };
    registerLeaves.set(size, params);
    shapes.set(size, lauumRegisterShape(params, size, problem.count, tuning, problem.sharedLimit));
  }
  return { leaf: { dtype, uplo, kind }, steps, shapes, registerLeaves };
}
