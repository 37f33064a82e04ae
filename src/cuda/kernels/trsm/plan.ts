/**
 * The batched triangular solve's (and multiply's) plan for one group of equal-size matrices: the
 * paper's two-sided recursion (batched-triangular-kblas, TRSM: split op(A) in halves, solve the
 * first diagonal block, update the rest of B with one GEMM, solve the second; TRMM the same
 * blocks in the other order) unrolled on the host into
 * a short list of launches over the whole batch, down to triangles the shared-memory leaf solves
 * (generate-leaf.ts). Sizes and shapes from the tuning table (model/tuning/), `force` for tests.
 */
import type { DType } from '../../../core/dtype.js';
import type { Side } from '../../../core/enums.js';
import { byPrecision } from '../../../core/dtype-table.js';
import { MyriadError } from '../../../core/errors.js';
import type { TrsmTuning } from '../../model/tuning/index.js';
import type { OperandKind } from '../common/batch-pointer.js';
import { elementBytes } from '../common/precision.js';
import { splitPoint } from '../common/split.js';
import { CHAIN_RHS_MAX } from './generate-chain.js';
import { LEAF_MAX_THREADS } from './generate-leaf.js';
import { PIPELINED_MAX, PIPELINED_STAGES_MAX } from './generate-pipelined.js';
import { PRODUCT_LEAF_MAX } from './generate-product-leaf.js';
import { REGISTER_LEAF_LANES, REGISTER_LEAF_MAX, REGISTER_LEAF_WARPS, registerLeafOrder, registerLeafWarpElements } from './generate-register-leaf.js';
import type { MmaGemmParams, TiledGemmParams } from '../gemm/index.js';
import type { Span, TriangularOp, TrmmLeaf, TrmmRegisterLeafShape, TrsmForce, TrsmLeafShape, TrsmPlan, TrsmStep, TrsmVariant } from './params.js';

export interface TrsmProblem extends TrsmVariant {
  readonly op: TriangularOp;
  readonly dtype: DType;
  /** B is m x n. */
  readonly m: number;
  readonly n: number;
  readonly count: number;
  readonly kind: OperandKind;
  /** Dynamic shared bytes one block may use (the device's opt-in limit less a reserve). */
  readonly sharedLimit: number;
}

/** Whether the solve runs from B's first row (left) / column (right) forward. */
export function solvesForward(v: TrsmVariant): boolean {
  // left: op(A) X = B, lower: forward; right: X op(A) = B, lower: the last column first.
  return v.side === 'left' ? opLower(v) : !opLower(v);
}

/** Whether op(A) is lower triangular (A lower as stored, or upper and transposed). */
export function opLower(v: Pick<TrsmVariant, 'uplo' | 'transA'>): boolean {
  return (v.uplo === 'lower') !== (v.transA === 'T');
}

/** Whether `force` names anything but `key` (a choice forced elsewhere keeps the paths it names). */
function forcedBesides(force: TrsmForce, key: keyof TrsmForce): boolean {
  return Object.entries(force).some(([k, value]) => k !== key && value !== undefined);
}

/**
 * The recursion over a triangle of size t, flattened in launch order. `forward`: the block of the
 * first rows (left) / columns (right) of B depends on no other (solvesForward). trsm solves that
 * one first and updates the other with its solution; trmm multiplies the other first, adds the
 * product with the first block's input, then multiplies the first.
 */
export function recursionSteps(t: number, leafMax: number, align: number, forward: boolean, op: TriangularOp = 'trsm'): TrsmStep[] {
  if (!(leafMax >= 1)) throw new MyriadError('INVALID_ARGUMENT', `trsm leaf size must be at least 1, got ${leafMax}`, 'leafMax');
  const steps: TrsmStep[] = [];
  const run = (span: Span, scaled: boolean): void => {
    if (span.size <= leafMax) {
      steps.push({ kind: 'leaf', span, scaled });
      return;
    }
    const h = splitPoint(span.size, align);
    const lo: Span = { off: span.off, size: h };
    const hi: Span = { off: span.off + h, size: span.size - h };
    const [first, second] = forward ? [lo, hi] : [hi, lo];
    if (op === 'trsm') {
      run(first, scaled);
      steps.push({ kind: 'update', target: second, source: first, scaled });
      run(second, false);   // the update has scaled it by alpha
    } else {
      run(second, true);
      steps.push({ kind: 'update', target: second, source: first, scaled: true });
      run(first, true);
    }
  };
  if (t > 0) run({ off: 0, size: t }, true);
  return steps;
}

/** Threads a matrix loads its triangle with, at least: a warp from triangles of 32 (fewer for smaller ones). */
const LOADERS_MAX = 32;

/**
 * The leaf's launch shape for triangles of `size` and `nvec` vectors per matrix: a chunk of
 * `chunk` vectors per pass (the shared tile's columns), and at least as many threads a matrix as
 * load its triangle well (the next power of two of `size`, to 32): with one vector, one thread a
 * matrix had read all t^2 elements of its triangle in turn.
 */
export function leafShape(dtype: DType, size: number, nvec: number, count: number, vectorsMax: number, tuning: TrsmTuning, sharedLimit: number): TrsmLeafShape {
  const bytes = elementBytes(dtype);
  const cap = Math.max(1, Math.min(vectorsMax, LEAF_MAX_THREADS));
  let chunk = nvec <= 32 ? Math.min(nvec, cap) : Math.min(Math.ceil(nvec / 32) * 32, cap);
  const perMatrix = (v: number): number => (size * (size + 1) / 2 + size * (v | 1)) * bytes;
  while (perMatrix(chunk) > sharedLimit && chunk > 1) chunk = Math.ceil(chunk / 2);
  if (perMatrix(chunk) > sharedLimit)
    throw new MyriadError('UNSUPPORTED', `a trsm leaf of ${size} does not fit ${sharedLimit} shared bytes`, 'a.rows');
  let loaders = 1;
  while (loaders < Math.min(size, LOADERS_MAX)) loaders *= 2;
  const vectors = Math.max(chunk, Math.min(loaders, cap));
  const matrices = Math.max(1, Math.min(
    Math.floor(Math.min(tuning.blockThreads, LEAF_MAX_THREADS) / vectors),
    Math.floor(tuning.sharedTarget / perMatrix(chunk)),
    Math.floor(sharedLimit / perMatrix(chunk)),
    count,
  ));
  return { vectors, matrices, ldx: chunk | 1, sharedBytes: matrices * perMatrix(chunk) };
}

/**
 * The register leaf's launch shape for triangles of `size` with `nvec` vectors per matrix: up to
 * REGISTER_LEAF_WARPS tasks a block, within the shared limit and the batch's tasks. The tasks'
 * shared memory, not the block, bounds the warps an SM holds (12.8 kB a warp at 32, float64,
 * side left: 17 of them), so small blocks lose nothing.
 */
export function registerLeafShape(problem: Pick<TrsmProblem, 'dtype' | 'side' | 'count' | 'sharedLimit'>, size: number, nvec: number): TrmmRegisterLeafShape {
  const perWarp = registerLeafWarpElements({ dtype: problem.dtype, side: problem.side, order: registerLeafOrder(size) }) * elementBytes(problem.dtype);
  if (perWarp > problem.sharedLimit)
    throw new MyriadError('UNSUPPORTED', `a trmm register leaf of ${size} does not fit ${problem.sharedLimit} shared bytes`, 'a.rows');
  const tasks = problem.count * Math.ceil(nvec / REGISTER_LEAF_LANES);
  const warps = Math.max(1, Math.min(REGISTER_LEAF_WARPS, Math.floor(problem.sharedLimit / perWarp), tasks));
  return { warps, sharedBytes: warps * perWarp };
}

/** Vectors one pass of a leaf solves per matrix (the kernel's W): grid.y walks B in steps of it. */
export const leafChunk = (shape: TrsmLeafShape): number => Math.min(shape.vectors, shape.ldx);

/**
 * Whether a problem is solved by inverted diagonal blocks of `nb` (TrsmInverted): trsm (not trmm)
 * on strided batches, triangles of at least `from`, within `maxBytes` of workspace (the inverses
 * and one block of B per matrix).
 */
export function invertsBlocks(problem: TrsmProblem, from: number, nb: number, maxBytes: number): boolean {
  if (problem.op !== 'trsm' || problem.kind !== 'strided') return false;
  const left = problem.side === 'left';
  const t = left ? problem.m : problem.n;
  const nvec = left ? problem.n : problem.m;
  if (t < from || t <= 1 || nvec === 0) return false;
  return invertedWorkspace(problem.dtype, t, nvec, problem.count, nb) <= maxBytes;
}

/** Workspace elements of the inverted path: count x slots inverses of nb x nb, and count blocks of nb x nvec. */
export function invertedElements(t: number, nvec: number, count: number, nb: number): { readonly inverses: number; readonly block: number } {
  return { inverses: count * Math.ceil(t / nb) * nb * nb, block: count * Math.min(nb, t) * nvec };
}

function invertedWorkspace(dtype: DType, t: number, nvec: number, count: number, nb: number): number {
  const e = invertedElements(t, nvec, count, nb);
  return (e.inverses + e.block) * elementBytes(dtype);
}

/**
 * trmm's leaf where none is forced, by the data type, the triangle's order t and the side: the
 * product leaf with leaves of 32 for float32 from 32, else the register leaf. Measured on an NVIDIA H200,
 * 2026-11-30 (`MYRIAD_QUICK_FIRST=0 node scripts/probe/trmm-leaf.mjs`: left, lower, 'N', B square,
 * the bench's counts, median of 7), time against the register leaf's: float32 0.82 at 32, 0.88 at
 * 64, 0.93 at 128, 0.96 at 256 and 512 (leaves of 64: 1.18 at 64, 1.08 at 128), 1.27 at 16;
 * float64 0.90-1.28 (1.28 at 16, 1.07 at 32, 1.01 at 64 with leaves of 32, 0.90 at 128 and 0.96
 * at 512 with leaves of 64), so float64 keeps the register leaf.
 * The pipelined kernel ('pipelined', generate-pipelined.ts; leaves of PIPELINED_LEAF_MAX unless
 * told otherwise) takes side left only (trmmLeafFor gives side right another leaf). Timed on the same
 * card, 2026-11-30 (`MYRIAD_QUICK_FIRST=0 node scripts/probe/trmm-pipe.mjs`, the same method), ms
 * register / product / pipelined with two and three stages: float64 32 0.906 / 0.833 / 0.768 /
 * 0.651, 64 1.121 / 1.408 / 1.259 / 1.598, 16 0.694 / 0.793 / 1.098 (two); float32 32 1.119 / 0.854 /
 * 1.186 / 1.048. So float64 side left of orders 25-32 (one leaf: the whole triangle) takes it with
 * three stages; 17-24 were not timed.
 */
export function defaultTrmmLeaf(dtype: DType, t: number, side: Side = 'left'): { readonly leaf: TrmmLeaf; readonly leafMax?: number } {
  const single = byPrecision(dtype, { double: false, single: true });
  if (!single && side === 'left' && t > 24 && t <= 32) return { leaf: 'pipelined' };
  return single && t >= 32 ? { leaf: 'product', leafMax: 32 } : { leaf: 'register' };
}

/** Shared stages of the pipelined kernel: one task multiplied while the next two are copied (float64 32: 0.651 ms against 0.768 with two). */
export const PIPELINED_STAGES = 3;

function pipelinedStages(force: TrsmForce): number {
  const stages = force.pipelinedStages ?? PIPELINED_STAGES;
  if (!(Number.isInteger(stages) && stages >= 2 && stages <= PIPELINED_STAGES_MAX))
    throw new MyriadError('INVALID_ARGUMENT', `trmm's pipelined stages must be an integer in 2..${PIPELINED_STAGES_MAX}, got ${stages}`, 'pipelinedStages');
  return stages;
}

/** The pipelined kernel's leaves where leafMax is not forced: above 64 its FMAs per byte near the float64 FMA rate (generate-pipelined.ts). */
export const PIPELINED_LEAF_MAX = 64;

/**
 * trmm's leaf for a problem: the forced one, else defaultTrmmLeaf; the pipelined kernel is side
 * left only, so side right takes defaultTrmmLeaf's choice of the others wherever it is named.
 */
export function trmmLeafFor(dtype: DType, t: number, side: Side, force: TrsmForce): { readonly leaf: TrmmLeaf; readonly leafMax?: number } {
  const chosen = force.trmmLeaf !== undefined ? { leaf: force.trmmLeaf } : defaultTrmmLeaf(dtype, t, side);
  if (chosen.leaf !== 'pipelined' || side === 'left') return chosen;
  const fallback = defaultTrmmLeaf(dtype, t, 'left');
  return fallback.leaf === 'pipelined' ? { leaf: 'register' } : fallback;
}

/** Chains (matrices x tiles of right-hand sides) one launch of the chained substitution takes: grid.y. */
const CHAIN_GRID_Y = 65535;

/** What the chain's choice reads: the problem, and the SMs of the card it runs on. */
export type ChainProblem = Omit<TrsmProblem, 'sharedLimit' | 'kind'> & { readonly sms: number };

/**
 * The right-hand sides per chain of the flag-chained substitution (generate-chain.ts) where it
 * serves the problem, else 0: trsm, side left, m from the `from` of the table's chain band that holds
 * its n columns (or forced by `chain: true`; any other forced choice, e.g. `invertFrom`,
 * keeps the paths it names), within `chainMaxElements` of B and `chainMaxPerSm` matrices an SM.
 * Chains of 1, 2, 4, 8 or 16 columns (the next power of two).
 */
export function chainRhs(problem: ChainProblem, tuning: TrsmTuning, force: TrsmForce = {}): number {
  if (problem.op !== 'trsm' || problem.side !== 'left' || force.chain === false || problem.m === 0 || problem.n === 0) return 0;
  const otherForced = forcedBesides(force, 'chain');
  const band = tuning.chain[problem.dtype].find((b) => problem.n <= b.maxRhs);
  const inTable = band !== undefined && problem.m >= band.from && problem.m * problem.n <= tuning.chainMaxElements &&
    problem.count <= tuning.chainMaxPerSm * problem.sms;
  if (force.chain !== true && (otherForced || !inTable)) return 0;
  let rhs = 1;
  while (rhs < Math.min(problem.n, CHAIN_RHS_MAX)) rhs *= 2;
  return problem.count * Math.ceil(problem.n / rhs) <= CHAIN_GRID_Y ? rhs : 0;
}

/**
 * Whether trmm runs as one launch of the gemm family's product with a triangular op(A)
 * (TrsmPlan.product; float64 on the tensor cores, float32 on the CUDA cores): side left, forced
 * (`trmmProduct`) or by the precision's `trmmProduct` table where the triangle's order is at least
 * its `from` and the batch has at least its `panels` column panels of 64 (a block walks one panel's
 * row tiles in turn: one large triangle would leave SMs idle).
 */
export function trmmProductTakes(problem: Pick<TrsmProblem, 'op' | 'side' | 'dtype' | 'm' | 'n' | 'count'>, tuning: TrsmTuning, force: TrsmForce = {}): boolean {
  if (problem.op !== 'trmm' || problem.side !== 'left' || force.trmmProduct === false) return false;
  if (force.trmmProduct === true) return true;
  const table = byPrecision<{ readonly from: number; readonly panels: number } | undefined>(problem.dtype, { double: tuning.trmmProduct?.double, single: tuning.trmmProduct?.single });
  return table !== undefined && !forcedBesides(force, 'trmmProduct') && problem.m >= table.from && problem.count * Math.ceil(problem.n / 64) >= table.panels;
}

/**
 * The one-launch product's parameters for trmm side left (op(A) of order t): the precision's table's
 * tiles for the transpose, or (no table: forced where none is) the gemm planner's, made there.
 */
function trmmProductParams(problem: TrsmProblem, tuning: TrsmTuning): MmaGemmParams | TiledGemmParams | undefined {
  const layout = { kind: problem.kind, dense: false };
  const common = { dtype: problem.dtype, transA: problem.transA, transB: 'N', betaZero: true, layouts: { a: layout, b: layout, c: layout } } as const;
  const inBand = (b: { readonly maxDim: number }): boolean => problem.m <= b.maxDim;
  return byPrecision<() => MmaGemmParams | TiledGemmParams | undefined>(problem.dtype, {
    double: () => {
      const band = tuning.trmmProduct?.double?.tiles[problem.transA].find(inBand);
      return band === undefined ? undefined : { variant: 'mma', ...common, ...band.config };
    },
    single: () => {
      const band = tuning.trmmProduct?.single?.tiles[problem.transA].find(inBand);
      return band === undefined ? undefined : { variant: 'tiled', ...common, ...band.config };
    },
  })();
}

export function planTrsm(problem: TrsmProblem, tuning: TrsmTuning, options: { readonly force?: TrsmForce } = {}): TrsmPlan {
  const { op, dtype, side, uplo, transA, diag, kind } = problem;
  const force = options.force ?? {};
  if (trmmProductTakes(problem, tuning, force)) {
    const params = trmmProductParams(problem, tuning);
    return { leaf: { op, dtype, side, uplo, transA, diag, kind }, steps: [], shapes: new Map(), product: params === undefined ? {} : { params } };
  }
  const left = side === 'left';
  const t = left ? problem.m : problem.n;
  const nvec = left ? problem.n : problem.m;
  const nb = force.invertBlock ?? tuning.invertBlock;
  if (!(Number.isInteger(nb) && nb >= 1)) throw new MyriadError('INVALID_ARGUMENT', `trsm's inverted block must be a positive integer, got ${nb}`, 'invertBlock');
  if (invertsBlocks(problem, force.invertFrom ?? tuning.invertFrom[dtype], nb, force.invertFrom !== undefined ? Infinity : tuning.invertMaxBytes)) {
    // Leaves exactly the blocks [j nb, (j + 1) nb): every split at a multiple of nb from 0.
    const steps = recursionSteps(t, nb, nb, solvesForward(problem), 'trsm');
    return { leaf: { op, dtype, side, uplo, transA, diag, kind }, steps, shapes: new Map(), inverted: { nb, slots: Math.ceil(t / nb) } };
  }
  const chosen = op !== 'trmm' ? undefined : trmmLeafFor(dtype, t, side, force);
  const trmmLeaf = chosen?.leaf;
  const register = trmmLeaf === 'register';
  const leafMax = trmmLeaf === 'register' ? Math.min(force.leafMax ?? tuning.leafMax[dtype], REGISTER_LEAF_MAX)
    : trmmLeaf === 'product' ? Math.min(force.leafMax ?? chosen?.leafMax ?? PRODUCT_LEAF_MAX, PRODUCT_LEAF_MAX)
    : trmmLeaf === 'pipelined' ? Math.min(force.leafMax ?? chosen?.leafMax ?? PIPELINED_LEAF_MAX, PIPELINED_MAX)
    : force.leafMax ?? tuning.leafMax[dtype];
  const steps = recursionSteps(t, leafMax, tuning.splitAlign, solvesForward(problem), op);
  if (trmmLeaf === 'product') return { leaf: { op, dtype, side, uplo, transA, diag, kind }, steps, shapes: new Map(), productLeaf: true };
  if (trmmLeaf === 'pipelined') return { leaf: { op, dtype, side, uplo, transA, diag, kind }, steps, shapes: new Map(), pipelined: { stages: pipelinedStages(force) } };
  if (register) {
    const registerShapes = new Map<number, TrmmRegisterLeafShape>();
    for (const s of steps) {
      if (s.kind === 'leaf' && !registerShapes.has(s.span.size))
        registerShapes.set(s.span.size, registerLeafShape(problem, s.span.size, nvec));
    }
    return { leaf: { op, dtype, side, uplo, transA, diag, kind }, steps, shapes: new Map(), registerShapes };
  }
  const shapes = new Map<number, TrsmLeafShape>();
  for (const s of steps) {
    if (s.kind === 'leaf' && !shapes.has(s.span.size))
      shapes.set(s.span.size, leafShape(dtype, s.span.size, nvec, problem.count, force.vectorsMax ?? tuning.vectorsMax, tuning, problem.sharedLimit));
  }
  return { leaf: { op, dtype, side, uplo, transA, diag, kind }, steps, shapes };
}
