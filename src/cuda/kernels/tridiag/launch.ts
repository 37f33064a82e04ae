/**
 * syevTridiagCuda: the tridiagonal-QL syev of device batches, one plan and one launch per group of
 * equal-size matrices; `syevTridiagGroup` serves one group (jacobi's syevCuda sends it the groups
 * at and above the table's crossover). Vectors from the table's `splitFrom`: the split design's three
 * launches per workspace chunk (generate-apply.ts).
 */
import { batchCount } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import type { SyevRequest } from '../../../core/ops.js';
import { tuningFor, type TridiagTuning } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { BLOCK_WORKSPACE_BYTES, launchPerMatrix, perMatrixChunks, STEIN_CHUNK_BYTES } from '../common/block-launch.js';
import type { FamilyOptions } from '../common/family-options.js';
import { zeroInfo } from '../common/info-zero.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { deviceDtype, groupOperands, indexArgs, operandArgs, release, sharedLimit, type OperandArgs } from '../common/operands.js';
import { gemmCuda } from '../gemm/index.js';
import { ormqrCuda } from '../ormqr/index.js';
import { applySharedBytes, tridiagApplySource } from './generate-apply.js';
import { tridiagPanelSource } from './generate-panel.js';
import { steinParts, tridiagSteinSource } from './generate-stein.js';
import { TRIDIAG_COMPUTE, syevTridiagSource, tridiagLayout } from './generate-syev.js';
import type { SteinKernels, SyevSplitPlan, SyevSteinPlan, SyevTridiagParams, TridiagForce } from './params.js';
import { planSyevSplit, planSyevStein, planSyevTridiag, tridiagSplits, tridiagSteins } from './plan.js';
import { steinSlice } from './snippets.js';

export type TridiagOptions = FamilyOptions<TridiagForce, TridiagTuning>;

/** One group of a syev request: A and W of `count` equal-size matrices, info and the group's index map. */
export interface SyevGroup {
  readonly dtype: DType;
  readonly uplo: Uplo;
  readonly vectors: boolean;
  readonly a: OperandArgs;
  readonly w: OperandArgs;
  readonly info: DeviceArray;
  readonly index: DeviceArray | null;
  readonly count: number;
}

/** The part of a plan key the options add (tests and sweeps only: the hot path has none). */
const optionsKey = (opts: TridiagOptions): string =>
  (opts.force === undefined ? '' : JSON.stringify(opts.force)) + (opts.tuning === undefined ? '' : `/${JSON.stringify(opts.tuning)}`);

export function syevTridiagGroup(dev: GpuDevice, g: SyevGroup, opts: TridiagOptions = {}): void {
  const n = g.a.rows;
  if (n === 0) { zeroInfo(dev, g.info, g.index, g.count); return; }
  // One plan memo: the design (split or not) and its parameters.
  const plan = plannedOnce(dev, `syev-tridiag/${g.dtype}/${n}/${g.uplo}/${g.vectors}/${g.a.kind}/${optionsKey(opts)}`,
    (): { stein: SyevSteinPlan } | { split: SyevSplitPlan } | { one: SyevTridiagParams } => {
      const pr = { dtype: g.dtype, n, uplo: g.uplo, vectors: g.vectors, kind: g.a.kind, sharedLimit: sharedLimit(dev) };
      const tuning = opts.tuning ?? tuningFor(dev.info.arch, 'tridiag');
      if (tridiagSteins(pr, tuning, opts.force)) return { stein: planSyevStein(pr, tuning, { force: opts.force }) };
      return tridiagSplits(pr, tuning, opts.force) ? { split: planSyevSplit(pr, tuning, { force: opts.force }) } : { one: planSyevTridiag(pr, tuning, { force: opts.force }) };
    });
  const chunkBytes = opts.force?.chunkBytes;
  if ('stein' in plan) { steinGroup(dev, g, plan.stein, chunkBytes); return; }
  if ('split' in plan) { splitGroup(dev, g, plan.split, chunkBytes); return; }
  const p = plan.one;
  const l = tridiagLayout(p);
  const k = kernelFor(dev, 'syev-tridiag', p, () => syevTridiagSource(p));
  launchPerMatrix(dev, k, { threads: p.threads, sharedBytes: l.sharedBytes, work: l.work, workDtype: TRIDIAG_COMPUTE, what: "the tridiagonal syev's working matrices", maxBytes: chunkBytes },
    g.count, [...operandArgs(g.a), ...operandArgs(g.w)], [arg.ptr(g.info), ...indexArgs(g.index, g.count)]);
}

/**
 * The split design over one group: per workspace chunk, record (one block per matrix), apply
 * (blocks of rows, every matrix of the chunk), finish (one block per matrix). No host read.
 */
function splitGroup(dev: GpuDevice, g: SyevGroup, p: SyevSplitPlan, chunkBytes = BLOCK_WORKSPACE_BYTES): void {
  const record = kernelFor(dev, 'syev-tridiag', p.record, () => syevTridiagSource(p.record));
  const apply = kernelFor(dev, 'syev-tridiag-apply', p.apply, () => tridiagApplySource(p.apply));
  const finish = kernelFor(dev, 'syev-tridiag', p.finish, () => syevTridiagSource(p.finish));
  const head = [...operandArgs(g.a), ...operandArgs(g.w)];
  const tail = [arg.ptr(g.info), ...indexArgs(g.index, g.count)];
  const threads = p.record.threads, n = p.apply.n, rows = p.apply.rows;
  const applyShared = applySharedBytes(p.apply);
  perMatrixChunks(dev, { work: p.slice, workDtype: TRIDIAG_COMPUTE, what: "the split syev's slices (Z, state, rotations)", maxChunk: 65535, maxBytes: chunkBytes }, g.count, (ws, first, blocks) => {
    const slices = arg.ptr(ws === undefined ? 0n : ws.ptr);
    record.launch({ grid: [blocks, 1, 1], block: [threads, 1, 1], sharedBytes: tridiagLayout(p.record).sharedBytes }, [...head, slices, arg.i64(first), ...tail]);
    apply.launch({ grid: [Math.ceil(n / rows), blocks, 1], block: [rows, 1, 1], sharedBytes: applyShared }, [slices, arg.i64(first), arg.i32(g.count)]);
    finish.launch({ grid: [blocks, 1, 1], block: [threads, 1, 1], sharedBytes: tridiagLayout(p.finish).sharedBytes }, [...head, slices, arg.i64(first), ...tail]);
  });
}

/**
 * The inverse-iteration design over one group: per workspace chunk, reduce (a block per matrix),
 * values and vectors (ceil(n / threads) blocks per matrix), V := Q V by the batched ormqr over the chunk's slices (rows 1 ... n-1:
 * Q = diag(1, Q'), n - 2 reflectors), store. No host read. The chunks take up to cardChunkBytes of
 * workspace (common/block-launch.ts STEIN_CHUNK_BYTES where the card cannot allocate that): a chunk's launches each last
 * about one matrix's latency-bound chain whatever its size, so a group split in two chunks takes twice
 * as long.
 */
function steinGroup(dev: GpuDevice, g: SyevGroup, p: SyevSteinPlan, chunkBytes?: number): void {
  const reduce = kernelFor(dev, 'syev-tridiag', p.reduce, () => syevTridiagSource(p.reduce));
  const panel = p.panel === undefined ? undefined : kernelFor(dev, 'syev-tridiag-panel', p.panel, () => tridiagPanelSource(p.panel!));
  const store = kernelFor(dev, 'syev-tridiag', p.store, () => syevTridiagSource(p.store));
  const head = [...operandArgs(g.a), ...operandArgs(g.w)];
  const tail = [arg.ptr(g.info), ...indexArgs(g.index, g.count)];
  const threads = p.reduce.threads, n = p.values.n, l = steinSlice(n);
  const what = "the inverse-iteration syev's slices (reflectors, vectors, factors)";
  const chunking = { work: p.slice, workDtype: TRIDIAG_COMPUTE, what, maxChunk: 65535, maxBytes: chunkBytes, fallbackBytes: STEIN_CHUNK_BYTES };
  perMatrixChunks(dev, chunking, g.count, (ws, first, blocks) => {
    if (ws === undefined) throw new Error('the inverse-iteration design needs its slices');
    const slices = arg.ptr(ws.ptr);
    reduce.launch({ grid: [blocks, 1, 1], block: [threads, 1, 1], sharedBytes: tridiagLayout(p.reduce).sharedBytes }, [...head, slices, arg.i64(first), ...tail]);
    const part = (rows: number, cols: number, offset: number) => ({ kind: 'strided', data: ws, rows, cols, count: blocks, ld: n, stride: p.slice, offset, order: 'col' } as const);
    if (panel !== undefined) {
      // dsytrd: a panel of nb columns (dlatrd), then Z(p1:n, p1:n) -= V W^T + W V^T by two GEMMs.
      const nb = p.panel!.nb;
      for (let p0 = 0; p0 < n - 1; p0 += nb) {
        const p1 = Math.min(p0 + nb, n - 1), m = n - p1;
        panel.launch({ grid: [blocks, 1, 1], block: [p.panel!.threads, 1, 1], sharedBytes: 0 }, [slices, arg.i64(first), arg.i32(g.count), arg.i32(p0)]);
        const v = part(m, p1 - p0, p1 + p0 * n), w = part(m, p1 - p0, l.wb + p1), c = part(m, m, p1 + p1 * n);
        gemmCuda(dev, { transA: 'N', transB: 'T', alpha: -1, a: v, b: w, beta: 1, c });
        gemmCuda(dev, { transA: 'N', transB: 'T', alpha: -1, a: w, b: v, beta: 1, c });
      }
    }
    steinOnSlices(dev, p, ws.ptr, first, g.count, blocks);
    if (p.vectors !== undefined && n >= 3) ormqrCuda(dev, { side: 'left', trans: 'N', a: part(n - 1, n - 2, 1), tau: part(n - 2, 1, l.tau), c: part(n - 1, n, l.v + 1) });
    store.launch({ grid: [blocks, 1, 1], block: [threads, 1, 1], sharedBytes: tridiagLayout(p.store).sharedBytes }, [...head, slices, arg.i64(first), ...tail]);
  });
}

/**
 * The inverse-iteration design's values and (where planned) vectors and clusters kernels over a chunk of `blocks`
 * slices (snippets.ts `steinSlice`, one after another from `slices`) whose tridiagonal (d, e, d_{n-1}
 * in Z's last element), failure and convergence flags are already filled, matrices first ... first +
 * blocks - 1 of a group of `count`: the eigenvalues into lam, the tridiagonal's eigenvectors into V.
 */
export function steinOnSlices(dev: GpuDevice, k: SteinKernels, slices: bigint, first: number, count: number, blocks: number): void {
  const stages = [k.values, ...(k.vectors === undefined ? [] : [k.vectors]), ...(k.clusters === undefined ? [] : [k.clusters])];
  for (const params of stages) {
    const kernel = kernelFor(dev, 'syev-tridiag-stein', params, () => tridiagSteinSource(params));
    kernel.launch({ grid: [blocks * steinParts(params), 1, 1], block: [params.threads, 1, 1], sharedBytes: 0 }, [arg.ptr(slices), arg.i64(first), arg.i32(count)]);
  }
}

export function syevTridiagCuda(dev: GpuDevice, r: SyevRequest<DeviceArray, DeviceArray>, opts: TridiagOptions = {}): void {
  if (batchCount(r.a) === 0) return;
  const dtype = deviceDtype(r.a);
  const grouping = groupOperands(dev, [r.a, r.w]);
  try {
    for (const g of grouping.groups) {
      const [a, w] = g.operands as [OperandArgs, OperandArgs];
      syevTridiagGroup(dev, { dtype, uplo: r.uplo, vectors: r.jobz === 'vectors', a, w, info: r.info, index: g.index, count: g.count }, opts);
    }
  } finally {
    release(dev, grouping);
  }
}
