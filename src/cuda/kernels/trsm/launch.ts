/**
 * The batched triangular solve and multiply of device batches (trmmCuda here, trsmCuda in
 * launch-trsm.ts over the same `triangularCuda`). Strided A and B run as one group; list and
 * variable batches are grouped by shape and leading dimensions into list batches (pointer arrays
 * for the leaf, the same lists for the GEMM). Per group, the plan's launches run in order over the
 * whole group: leaves (generate-leaf.ts) and GEMM updates through the gemm family's public face on
 * sub-blocks (offsets moved, rows and cols cut; the coefficients in blocks.ts). alpha = 0: B := 0
 * (generate-zero.ts), A never read.
 * trsmCuda's path by inverted diagonal blocks runs trtri, whose recursion runs trmmCuda, so it
 * lives in launch-trsm.ts: this file imports no other family that could import it back.
 */
import { batchCount } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import type { TrmmRequest, TrsmRequest } from '../../../core/ops.js';
import { blocksPerSM } from '../../model/occupancy.js';
import { tuningFor, type TrsmTuning } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { Workspace } from '../../runtime/workspace.js';
import { cachedKernel, kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { deviceDtype, operandArgs, sharedLimit, type OperandArgs } from '../common/operands.js';
import { groupBlocks, type BlockBatch } from '../common/sub-blocks.js';
import { gemmCuda } from '../gemm/index.js';
import { updateRequest, leafOffsets } from './blocks.js';
import { CHAIN_NB, CHAIN_THREADS, chainSyncInts, trsmChainSharedBytes, trsmChainSource } from './generate-chain.js';
import { trsmLeafSource } from './generate-leaf.js';
import { PIPELINED_THREADS, PIPELINED_VECTORS, pipelinedOrder, pipelinedSharedBytes, trmmPipelinedSource } from './generate-pipelined.js';
import { PRODUCT_LEAF_VECTORS, productLeafOrder, productLeafShape, trmmProductLeafSource } from './generate-product-leaf.js';
import { REGISTER_LEAF_LANES, registerLeafOrder, trmmRegisterLeafSource } from './generate-register-leaf.js';
import { trsmZeroSource, ZERO_THREADS } from './generate-zero.js';
import type { Span, TriangularOp, TrmmPipelinedParams, TrmmProductLeafParams, TrmmRegisterLeafParams, TrsmChainParams, TrsmForce, TrsmInverted, TrsmLeafParams, TrsmPlan, TrsmVariant } from './params.js';
import { chainRhs, leafChunk, opLower, planTrsm } from './plan.js';

export interface TrsmOptions {
  /** A leaf size or shape to use instead of the table's (tests, benchmarks). */
  readonly force?: TrsmForce;
  /** Plan with this table instead of the device architecture's. */
  readonly tuning?: TrsmTuning;
}

type Sub = BlockBatch<DeviceArray>;

/** Matrices of one shape: the batches as the GEMM takes them, and the leaf's operand arguments. */
export interface TrsmGroup {
  readonly count: number;
  readonly m: number;
  readonly n: number;
  readonly a: Sub;
  readonly b: Sub;
  readonly argsA: OperandArgs;
  readonly argsB: OperandArgs;
}

/** Runs one group's plan by inverted diagonal blocks (launch-trsm.ts). */
export type InvertedSolve = (dev: GpuDevice, plan: TrsmPlan, inv: TrsmInverted, r: TrsmRequest<DeviceArray>, g: TrsmGroup) => void;

/** trmm (B := alpha op(A) B, or alpha B op(A)): the same launches, multiplying. */
export function trmmCuda(dev: GpuDevice, r: TrmmRequest<DeviceArray>, opts: TrsmOptions = {}): void {
  triangularCuda(dev, 'trmm', r, opts);
}

/**
 * The solve or multiply of a device batch, group by group; a plan by inverted diagonal blocks
 * (trsm only, plan.ts `inverted`) runs on `inverted`, which trsmCuda gives (launch-trsm.ts).
 */
export function triangularCuda(dev: GpuDevice, op: TriangularOp, r: TrsmRequest<DeviceArray>, opts: TrsmOptions, inverted?: InvertedSolve): void {
  const count = batchCount(r.b);
  if (count === 0) return;
  const dtype = deviceDtype(r.b);
  const temporaries: DeviceArray[] = [];
  try {
    for (const g of groups(dev, r, temporaries)) triangularGroup(dev, op, dtype, r, g, opts, inverted);
  } finally {
    if (temporaries.length > 0) {
      dev.synchronize();
      for (const t of temporaries) t.dispose();
    }
  }
}

/** One group's launches: B := 0 where alpha = 0, else the plan's leaves and updates in order. */
function triangularGroup(
  dev: GpuDevice, op: TriangularOp, dtype: DType, r: TrsmRequest<DeviceArray>, g: TrsmGroup, opts: TrsmOptions, inverted: InvertedSolve | undefined,
): void {
  if (g.m === 0 || g.n === 0) return;
  const kind = g.argsB.kind;
  if (r.alpha === 0) {
    const k = cachedKernel(dev, `trsm-zero/${JSON.stringify({ dtype, kind })}`, () => trsmZeroSource({ dtype, kind }));
    const blocks = Math.min(Math.ceil((g.count * g.m * g.n) / ZERO_THREADS), 65535 * 4);
    k.launch({ grid: [blocks, 1, 1], block: [ZERO_THREADS, 1, 1] }, [...operandArgs(g.argsB), arg.i32(g.count), arg.i32(g.m), arg.i32(g.n)]);
    return;
  }
  const tuning = opts.tuning ?? tuningFor(dev.info.arch, 'trsm');
  const rhs = chainRhs({ op, side: r.side, uplo: r.uplo, transA: r.transA, diag: r.diag, dtype, m: g.m, n: g.n, count: g.count, sms: dev.info.smCount }, tuning, opts.force);
  if (rhs > 0) {
    chainedSolve(dev, dtype, r, g, rhs);
    return;
  }
  const variant: TrsmVariant = { side: r.side, uplo: r.uplo, transA: r.transA, diag: r.diag };
  const planNow = (): TrsmPlan =>
    planTrsm({ ...variant, op, dtype, m: g.m, n: g.n, count: g.count, kind, sharedLimit: sharedLimit(dev) }, tuning, { force: opts.force });
  const plan = opts.tuning === undefined && opts.force === undefined
    ? plannedOnce(dev, `${op}/${r.side}${r.uplo}${r.transA}${r.diag}/${dtype}/${g.m},${g.n},${g.count}/${kind}`, planNow)
    : planNow();
  if (plan.product !== undefined) {
    // One launch: B := alpha op(A) B in place (the gemm family's triangular op(A)).
    gemmCuda(dev, { transA: r.transA, transB: 'N', alpha: r.alpha, beta: 0, a: g.a, b: g.b, c: g.b }, {
      triangularA: { lower: opLower(r), unit: r.diag === 'unit' }, ...(plan.product.params === undefined ? {} : { variant: plan.product.params }),
    });
    return;
  }
  if (plan.inverted !== undefined) {
    if (inverted === undefined) throw new Error(`unreachable: ${op} planned by inverted blocks without their launcher`);
    inverted(dev, plan, plan.inverted, r, g);
    return;
  }
  for (const step of plan.steps) {
    if (step.kind === 'leaf') launchLeaf(dev, plan, g, step.span, step.scaled ? r.alpha : 1);
    else gemmCuda(dev, updateRequest(op, r, g.a, g.b, g.m, g.n, step));
  }
}

/**
 * trsm side left with few right-hand sides on large triangles: one launch of the flag-chained
 * substitution (generate-chain.ts) over every (matrix, tile of `rhs` columns) chain, its counters
 * and flags zeroed in the workspace first (stream-ordered: nothing waits on the host).
 */
function chainedSolve(dev: GpuDevice, dtype: DType, r: TrsmRequest<DeviceArray>, g: TrsmGroup, rhs: number): void {
  const p: TrsmChainParams = { dtype, uplo: r.uplo, transA: r.transA, diag: r.diag, rhs, kind: g.argsB.kind };
  const k = kernelFor(dev, 'trsm-chain', p, () => trsmChainSource(p));
  const tiles = Math.ceil(g.n / rhs);
  const chains = g.count * tiles;
  const frame = Workspace.of(dev).frame();
  try {
    const sync = frame.take('int32', chains * chainSyncInts(g.m), `trsm's chain counters and flags (${chains} chains of ${g.m} rows)`);
    dev.fill(sync, 0);
    k.launch({ grid: [Math.ceil(g.m / CHAIN_NB), chains, 1], block: [CHAIN_THREADS, 1, 1], sharedBytes: trsmChainSharedBytes(p) }, [
      ...operandArgs(g.argsA), ...operandArgs(g.argsB), arg.ptr(sync), arg.i32(g.m), arg.i32(g.n), arg.i32(tiles), arg.real(dtype, r.alpha),
    ]);
  } finally {
    frame.end();
  }
}

/** A leaf's operands: A's diagonal block `span` and B's rows (side left) or columns (right) beside it, and B's vectors a matrix. */
function spanOperands(g: TrsmGroup, span: Span, left: boolean): { readonly a: OperandArgs; readonly b: OperandArgs; readonly nvec: number } {
  const delta = leafOffsets(left, span.off, g.argsA.ld, g.argsB.ld);
  return { a: { ...g.argsA, offset: g.argsA.offset + delta.a }, b: { ...g.argsB, offset: g.argsB.offset + delta.b }, nvec: left ? g.n : g.m };
}

function launchLeaf(dev: GpuDevice, plan: TrsmPlan, g: TrsmGroup, span: Span, alpha: number): void {
  if (plan.productLeaf === true) {
    launchProductLeaf(dev, plan, g, span, alpha);
    return;
  }
  if (plan.pipelined !== undefined) {
    launchPipelined(dev, plan, plan.pipelined.stages, g, span, alpha);
    return;
  }
  if (plan.registerShapes !== undefined) {
    launchRegisterLeaf(dev, plan, g, span, alpha);
    return;
  }
  const p: TrsmLeafParams = plan.leaf;
  const shape = plan.shapes.get(span.size)!;
  const { a, b, nvec } = spanOperands(g, span, p.side === 'left');
  const k = kernelFor(dev, `${p.op}-leaf`, p, () => trsmLeafSource(p));
  const grid: [number, number, number] = [Math.ceil(g.count / shape.matrices), Math.min(Math.ceil(nvec / leafChunk(shape)), 65535), 1];
  k.launch({ grid, block: [shape.vectors, shape.matrices, 1], sharedBytes: shape.sharedBytes }, [
    ...operandArgs(a), ...operandArgs(b),
    arg.i32(g.count), arg.i32(span.size), arg.i32(nvec), arg.i32(shape.ldx), arg.real(p.dtype, alpha),
  ]);
}

/** trmm's register leaf (generate-register-leaf.ts): a warp a task of 32 vectors of one matrix, the batch's tasks in order over a 1-D grid. */
function launchRegisterLeaf(dev: GpuDevice, plan: TrsmPlan, g: TrsmGroup, span: Span, alpha: number): void {
  const { side, uplo, transA, diag, dtype, kind } = plan.leaf;
  const p: TrmmRegisterLeafParams = { side, uplo, transA, diag, dtype, kind, order: registerLeafOrder(span.size) };
  const shape = plan.registerShapes!.get(span.size)!;
  const { a, b, nvec } = spanOperands(g, span, side === 'left');
  const k = kernelFor(dev, 'trmm-register-leaf', p, () => trmmRegisterLeafSource(p));
  const tasks = g.count * Math.ceil(nvec / REGISTER_LEAF_LANES);
  k.launch({ grid: [Math.ceil(tasks / shape.warps), 1, 1], block: [REGISTER_LEAF_LANES, shape.warps, 1], sharedBytes: shape.sharedBytes }, [
    ...operandArgs(a), ...operandArgs(b), arg.i32(g.count), arg.i32(span.size), arg.i32(nvec), arg.real(dtype, alpha),
  ]);
}

/** trmm's product leaf (generate-product-leaf.ts): a task one matrix and 32 of its vectors, the batch's tasks in order over a 1-D grid. */
function launchProductLeaf(dev: GpuDevice, plan: TrsmPlan, g: TrsmGroup, span: Span, alpha: number): void {
  const { side, uplo, transA, diag, dtype, kind } = plan.leaf;
  const p: TrmmProductLeafParams = { side, uplo, transA, diag, dtype, kind, order: productLeafOrder(span.size) };
  const shape = productLeafShape(p);
  const { a, b, nvec } = spanOperands(g, span, side === 'left');
  const k = kernelFor(dev, 'trmm-product-leaf', p, () => trmmProductLeafSource(p));
  const tasks = g.count * Math.ceil(nvec / PRODUCT_LEAF_VECTORS);
  k.launch({ grid: [Math.ceil(tasks / shape.tasks), 1, 1], block: [shape.threadsPerTask, shape.tasks, 1], sharedBytes: shape.sharedBytes }, [
    ...operandArgs(a), ...operandArgs(b), arg.i32(g.count), arg.i32(span.size), arg.i32(nvec), arg.real(dtype, alpha),
  ]);
}

/**
 * trmm's pipelined kernel (generate-pipelined.ts, side left): persistent blocks, as many as the SMs
 * hold at once (by the compiled kernel's registers and the stages' shared bytes), at most one a task.
 */
function launchPipelined(dev: GpuDevice, plan: TrsmPlan, stages: number, g: TrsmGroup, span: Span, alpha: number): void {
  const { side, uplo, transA, diag, dtype, kind } = plan.leaf;
  const p: TrmmPipelinedParams = { side, uplo, transA, diag, dtype, kind, order: pipelinedOrder(span.size), stages };
  const sharedBytes = pipelinedSharedBytes(p);
  const { a, b, nvec } = spanOperands(g, span, true);
  const k = kernelFor(dev, 'trmm-pipelined', p, () => trmmPipelinedSource(p));
  const tasks = g.count * Math.ceil(nvec / PIPELINED_VECTORS);
  const resident = dev.info.smCount * Math.max(1, blocksPerSM(dev.info, { threads: PIPELINED_THREADS, registersPerThread: k.registers, sharedBytes }));
  k.launch({ grid: [Math.min(tasks, resident), 1, 1], block: [PIPELINED_THREADS, 1, 1], sharedBytes }, [
    ...operandArgs(a), ...operandArgs(b), arg.i32(g.count), arg.i32(span.size), arg.i32(nvec), arg.real(dtype, alpha),
  ]);
}

/** Strided A and B: one group as they are; otherwise list batches by (m, n, lda, ldb). */
function groups(dev: GpuDevice, r: TrsmRequest<DeviceArray>, temporaries: DeviceArray[]): TrsmGroup[] {
  return groupBlocks(dev, [r.a, r.b], temporaries, ([, b]) => b!.rows === 0 || b!.cols === 0).map((g) => ({
    count: g.count, m: g.batches[1]!.rows, n: g.batches[1]!.cols, a: g.batches[0]!, b: g.batches[1]!, argsA: g.args[0]!, argsB: g.args[1]!,
  }));
}
