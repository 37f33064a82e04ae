/**
 * What the complex triangle-by-vectors designs share (ztrsm's solve and ztrmm's multiply): for
 * triangles of order <= 32 the warp kernel's parameter object, the triangle T the vectors of B meet,
 * the shape of a request (the triangle's order, the vectors), the warp-slot layout, the grid's y
 * extent and the launch loop over a request's groups; beyond 32 the recursion's steps as requests on
 * sub-blocks (`triangleSteps`, over the real trsm's split points) and the launcher that runs them
 * (`runTriangle`: leaves on the warp kernel, updates on the family's complex GEMM). Each family keeps
 * its own kernel text, plan and how its recursion applies alpha.
 *
 * Every vector of B meets one triangular matrix T: side 'left' the columns of B against T = op(A),
 * 'right' its rows against T = op(A)^T. Element (r, k) of T is A(r, k) when the kernel reads A by rows
 * ('left' with 'N', 'right' with 'T' or 'C') and A(k, r) otherwise, conjugated for 'C', and T is lower
 * exactly when A's stored triangle is lower and read by rows, or upper and read by columns.
 */
import type { DType } from '../../../core/dtype.js';
import type { Diag, Side, Uplo } from '../../../core/enums.js';
import { batchCount } from '../../../core/batch.js';
import { MyriadError } from '../../../core/errors.js';
import type { ComplexGemmRequest, ComplexOp, ComplexScalar, ComplexTrsmRequest } from '../../../core/op-specs.js';
import { arg, type DeviceArray, type GpuDevice, type KernelArg, type KernelSource } from '../../runtime/types.js';
import type { OperandKind } from './batch-pointer.js';
import { complexBytes } from './complex.js';
import { kernelFor, plannedOnce } from './kernel-cache.js';
import { deviceDtype, groupOperands, indexArgs, operandArgs, release, type OperandArgs } from './operands.js';
import { block, type BlockBatch } from './sub-blocks.js';
import { SMALL_MAX_N, smallGrid, smallWarps, type SmallLayout } from './warp-slots.js';

/** The parameter object of a triangle warp kernel. `dtype` is the parts' type (float64: complex128, float32: complex64). */
export interface TriangleWarpParams {
  readonly dtype: DType;
  /** Order of the triangle (B's rows for side 'left', its columns for 'right'). */
  readonly n: number;
  readonly side: Side;
  readonly uplo: Uplo;
  readonly transA: ComplexOp;
  readonly diag: Diag;
  readonly kindA: OperandKind;
  readonly kindB: OperandKind;
  /** Warps per block. */
  readonly warps: number;
  /** Vectors of B per pass (a compile-time constant). */
  readonly rhs: number;
}

/** How a kernel reads A and B (the file comment's T). */
export interface TriangleView {
  /** T(r, k) = A(r, k) (else A(k, r)). */
  readonly rowwise: boolean;
  /** T is lower triangular. */
  readonly lowerT: boolean;
  readonly conj: boolean;
  readonly unit: boolean;
  readonly left: boolean;
}

export function triangleView(p: Pick<TriangleWarpParams, 'side' | 'uplo' | 'transA' | 'diag'>): TriangleView {
  const left = p.side === 'left';
  const rowwise = left === (p.transA === 'N');
  return { rowwise, lowerT: (p.uplo === 'lower') === rowwise, conj: p.transA === 'C', unit: p.diag === 'unit', left };
}

/** Whether op(A) meets B's first rows (left) / columns (right) first: op(A) lower for 'left', upper for 'right'. */
export function triangleRunsForward(v: { readonly side: Side; readonly uplo: Uplo; readonly transA: ComplexOp }): boolean {
  const opLower = (v.uplo === 'lower') === (v.transA === 'N');
  return v.side === 'left' ? opLower : !opLower;
}

/** Order of the triangle and number of vectors of a trsm or trmm on B (rows x cols). */
export function triangleShape(side: Side, rows: number, cols: number): { order: number; vectors: number } {
  return side === 'left' ? { order: rows, vectors: cols } : { order: cols, vectors: rows };
}

/** The warp-slot layout (one lane per row of T) for the launch grid (warp-slots.ts smallGrid). */
export function triangleWarpLayout(p: Pick<TriangleWarpParams, 'dtype' | 'n' | 'warps'>): SmallLayout {
  return { dtype: p.dtype, n: p.n, warps: p.warps, tile: false, lanes: p.n };
}

/** Blocks per SM the grid aims at before it splits the vectors of each matrix over blockIdx.y. */
const BLOCKS_PER_SM = 4;

/** The largest gridDim.y. */
const GRID_Y_MAX = 65535;

/**
 * Blocks along y: the passes of each matrix's vectors spread over blockIdx.y where the matrices
 * alone give fewer than BLOCKS_PER_SM blocks an SM (each y block reads its matrices' triangles
 * again, so a batch that fills the device keeps one).
 */
export function passGridY(blocksX: number, passes: number, smCount: number): number {
  const want = Math.ceil((BLOCKS_PER_SM * smCount) / Math.max(1, blocksX));
  return Math.max(1, Math.min(passes, want, GRID_Y_MAX));
}

/**
 * A triangle design: its name (memo keys: `<name>/...`, kernels: `<name>-small`), the warp kernel's
 * plan and source, and beyond its order the recursion's steps and the GEMM they update with.
 */
export interface TriangleWarpDesign {
  readonly name: string;
  /** The operation, as errors name it ('trsm', 'trmm'). */
  readonly op: string;
  readonly plan: (problem: TriangleWarpProblem) => TriangleWarpParams;
  readonly source: (p: TriangleWarpParams) => KernelSource;
  /** The recursion over a triangle above TRIANGLE_WARP_MAX (the family's `triangleSteps`). */
  readonly steps: (r: TriangleBlockRequest<DeviceArray>) => readonly TriangleStep<DeviceArray>[];
  /** The recursion's updates: the complex GEMM's public face. */
  readonly gemm: (dev: GpuDevice, r: ComplexGemmRequest<DeviceArray>) => void;
  /** The launches of a triangle of order <= TRIANGLE_WARP_MAX where the family has its own (default: launchTriangleWarp). */
  readonly leaf?: (dev: GpuDevice, r: ComplexTrsmRequest<DeviceArray>) => void;
}

/** The largest triangle the warp kernels take. */
export const TRIANGLE_WARP_MAX = SMALL_MAX_N;

/**
 * A complex trsm or trmm on strided or list batches, a triangle of any order: the warp kernel to
 * TRIANGLE_WARP_MAX, the design's recursion beyond it (its steps in order over the whole batch).
 * Variable batches are the router's (shape groups).
 */
export function runTriangle(dev: GpuDevice, design: TriangleWarpDesign, r: ComplexTrsmRequest<DeviceArray>): void {
  const { a, b } = r;
  if (a.kind === 'variable') throw new MyriadError('UNSUPPORTED', `the complex ${design.op} kernels take strided and list batches`, 'a');
  if (b.kind === 'variable') throw new MyriadError('UNSUPPORTED', `the complex ${design.op} kernels take strided and list batches`, 'b');
  if (batchCount(b) === 0) return;
  const { order, vectors } = triangleShape(r.side, b.rows, b.cols);
  if (order === 0 || vectors === 0) return;
  const leaf = design.leaf ?? ((d: GpuDevice, q: ComplexTrsmRequest<DeviceArray>) => launchTriangleWarp(d, design, q));
  if (order <= TRIANGLE_WARP_MAX) {
    leaf(dev, r);
    return;
  }
  for (const step of design.steps({ ...r, a, b })) {
    if (step.kind === 'leaf') leaf(dev, step.request);
    else design.gemm(dev, step.request);
  }
}

/** A complex trsm or trmm on strided or list batches (sub-blocks of them: sub-blocks.ts). */
export type TriangleBlockRequest<S> = Omit<ComplexTrsmRequest<S>, 'a' | 'b'> & { readonly a: BlockBatch<S>; readonly b: BlockBatch<S> };

/** One launch of a recursion, in order: a leaf (a triangle of order <= TRIANGLE_WARP_MAX) or a GEMM update. */
export type TriangleStep<S> =
  | { readonly kind: 'leaf'; readonly request: TriangleBlockRequest<S> }
  | { readonly kind: 'update'; readonly request: ComplexGemmRequest<S> };

/** Rows or columns off .. off + size - 1 of the triangle. */
export interface TriangleSpan { readonly off: number; readonly size: number }

/**
 * A split of the recursion (the real trsm's recursionSteps): a leaf on a diagonal block, or an update
 * of block `target` of B from block `source`; `scaled`: the first step that touches its block of B.
 */
export type TriangleSplit =
  | { readonly kind: 'leaf'; readonly span: TriangleSpan; readonly scaled: boolean }
  | { readonly kind: 'update'; readonly target: TriangleSpan; readonly source: TriangleSpan; readonly scaled: boolean };

/** How a recursion applies alpha: a leaf's alpha, and an update's alpha and beta, by the step's `scaled`. */
export interface TriangleScalars {
  readonly leaf: (scaled: boolean) => ComplexScalar;
  readonly update: (scaled: boolean) => { readonly alpha: ComplexScalar; readonly beta: ComplexScalar };
}

/**
 * The splits as requests on sub-blocks of every matrix: each leaf the request on its diagonal block
 * of A and its block of B (rows for 'left', columns for 'right'), each update one GEMM
 * B(T) := alpha op(A)(T, S) B(S) + beta B(T) (left) or B(T) := alpha B(S) op(A)(S, T) + beta B(T)
 * (right), op(A)'s block read through transA from the stored one. alpha = 0: no update (0 times an
 * Inf in A would spread NaN). Pure and over any storage, so the CPU reference can run the same
 * requests (tests).
 */
export function triangleSteps<S>(r: TriangleBlockRequest<S>, splits: Iterable<TriangleSplit>, scalars: TriangleScalars): TriangleStep<S>[] {
  const left = r.side === 'left';
  const m = r.b.rows;
  const n = r.b.cols;
  const zero = r.alpha[0] === 0 && r.alpha[1] === 0;
  const plain = r.transA === 'N';
  const steps: TriangleStep<S>[] = [];
  for (const s of splits) {
    if (s.kind === 'leaf') {
      const { off, size } = s.span;
      steps.push({ kind: 'leaf', request: {
        ...r, alpha: scalars.leaf(s.scaled), a: block(r.a, off, off, size, size), b: left ? block(r.b, off, 0, size, n) : block(r.b, 0, off, m, size),
      } });
      continue;
    }
    if (zero) continue;
    const { target: t, source: src } = s;
    const { alpha, beta } = scalars.update(s.scaled);
    // op(A)(T, S) (left) or op(A)(S, T) (right): the stored block, read through transA.
    if (left) {
      const a = plain ? block(r.a, t.off, src.off, t.size, src.size) : block(r.a, src.off, t.off, src.size, t.size);
      steps.push({ kind: 'update', request: {
        transA: r.transA, transB: 'N', alpha, a, b: block(r.b, src.off, 0, src.size, n), beta, c: block(r.b, t.off, 0, t.size, n),
      } });
    } else {
      const a = plain ? block(r.a, src.off, t.off, src.size, t.size) : block(r.a, t.off, src.off, t.size, src.size);
      steps.push({ kind: 'update', request: {
        transA: 'N', transB: r.transA, alpha, a: block(r.b, 0, src.off, m, src.size), b: a, beta, c: block(r.b, 0, t.off, m, t.size),
      } });
    }
  }
  return steps;
}

/** One launch group of a triangle request: its operands (common/operands.ts), their count and index, the shape and the parts' dtype. */
export interface TriangleGroup {
  readonly a: OperandArgs;
  readonly b: OperandArgs;
  readonly index: DeviceArray | null;
  readonly count: number;
  readonly shape: { readonly order: number; readonly vectors: number };
  readonly dtype: DType;
}

/**
 * Calls `launch` for each launch group of A and B of a request (pointer tables of pairs), then
 * releases the grouping's temporaries.
 */
export function forTriangleGroups(dev: GpuDevice, r: ComplexTrsmRequest<DeviceArray>, launch: (g: TriangleGroup) => void): void {
  const dtype = deviceDtype(r.b);
  const grouping = groupOperands(dev, [r.a, r.b], complexBytes(dtype));
  try {
    for (const g of grouping.groups) {
      const [a, b] = [g.operands[0]!, g.operands[1]!];
      launch({ a, b, index: g.index, count: g.count, shape: triangleShape(r.side, b.rows, b.cols), dtype });
    }
  } finally {
    release(dev, grouping);
  }
}

/** A triangle kernel's arguments: A, B, the group's index, the vectors and alpha's parts. */
export const triangleArgs = (g: TriangleGroup, alpha: ComplexScalar): KernelArg[] =>
  [...operandArgs(g.a), ...operandArgs(g.b), ...indexArgs(g.index, g.count), arg.i32(g.shape.vectors), arg.f64(alpha[0]), arg.f64(alpha[1])];

/**
 * The launches of a triangle warp kernel for a request whose triangle has order 1 .. 32 and at least
 * one vector: one per launch group of A and B (forTriangleGroups).
 */
export function launchTriangleWarp(dev: GpuDevice, design: TriangleWarpDesign, r: ComplexTrsmRequest<DeviceArray>): void {
  forTriangleGroups(dev, r, (g) => {
    const { a, b, shape, dtype } = g;
    const p = plannedOnce(dev, `${design.name}/${dtype}/${shape.order},${shape.vectors}/${r.side}${r.uplo}${r.transA}${r.diag}/${a.kind},${b.kind}`, () => design.plan({
      dtype, n: shape.order, vectors: shape.vectors, side: r.side, uplo: r.uplo, transA: r.transA, diag: r.diag, kindA: a.kind, kindB: b.kind,
    }));
    const k = kernelFor(dev, `${design.name}-small`, p, () => design.source(p));
    const blocks = smallGrid(triangleWarpLayout(p), g.count);
    const y = passGridY(blocks, Math.ceil(shape.vectors / p.rhs), dev.info.smCount);
    k.launch({ grid: [blocks, y, 1], block: [p.warps * 32, 1, 1] }, triangleArgs(g, r.alpha));
  });
}

/** What a triangle warp kernel's plan reads: the parameter object less its choices, and the vectors. */
export type TriangleWarpProblem = Omit<TriangleWarpParams, 'warps' | 'rhs'> & { readonly vectors: number };

/** Warps as the real small kernels (warp-slots.ts smallWarps); vectors per pass min(vectors, rhsMax), at least 1. */
export function planTriangleWarp(p: TriangleWarpProblem, rhsMax: number): TriangleWarpParams {
  return {
    dtype: p.dtype, n: p.n, side: p.side, uplo: p.uplo, transA: p.transA, diag: p.diag, kindA: p.kindA, kindB: p.kindB,
    warps: smallWarps(p.n), rhs: Math.max(1, Math.min(rhsMax, p.vectors)),
  };
}
