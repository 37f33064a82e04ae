/**
 * potrfCuda: batched Cholesky of device batches, one plan (plan.ts) and one launch per group of
 * equal-size matrices; the panel design launches once per panel.
 */
import { batchCount, type Batch, type StridedBatch } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import { MyriadError } from '../../../core/errors.js';
import type { Uplo } from '../../../core/enums.js';
import type { PotrfRequest } from '../../../core/ops.js';
import { bandFor, tuningFor, type PotrfTuning } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { Workspace } from '../../runtime/workspace.js';
import { zeroInfo } from '../common/info-zero.js';
import { recursionForced, type FamilyOptions } from '../common/family-options.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { deviceDtype, groupOperands, indexArgs, operandArgs, release, sharedLimit, stridedArgs, type LaunchGroup, type OperandArgs } from '../common/operands.js';
import { block } from '../common/sub-blocks.js';
import { syrkCuda } from '../syrk/index.js';
import { gemmCuda } from '../gemm/index.js';
import { potrfPanelSolveBlocks, potrfPanelSolveSharedBytes, potrfPanelSolveSource, potrfPanelSolveThreads } from './generate-panel-solve.js';
import { potrfDiagonalFits, potrfDiagonalSource, potrfDiagonalThreads } from './generate-diagonal.js';
import { potrfFusedPanelSharedBytes, potrfFusedPanelSource, potrfFusedPanelSyncInts, potrfFusedPanelThreads } from './generate-fused-panel.js';
import { trsmCuda, type TrsmOptions } from '../trsm/index.js';
import { combineInfo } from '../common/info-combine.js';
import { SMALL_MAX_N, smallGrid } from '../common/warp-slots.js';
import { REGISTER_DESIGN_MAX } from '../common/register-tile.js';
import { PANEL_MAX_THREADS, potrfPanelSharedBytes, potrfPanelSource } from './generate-panel.js';
import { potrfRegisterSource } from './generate-register.js';
import { potrfSmallSource } from './generate-small.js';
import type { PotrfDiagonalParams, PotrfForce, PotrfPlan } from './params.js';
import { planPotrf, potrfBlocked, potrfBlockedSteps, potrfRecursionSteps, potrfRecursive } from './plan.js';

export type PotrfOptions = FamilyOptions<PotrfForce, PotrfTuning>;

/**
 * Whether potrfCuda takes a batch to its large path (strided, large or few matrices: the
 * fused-diagonal driver or the recursion); the solves ask it too, to factor through it.
 */
export function potrfLargePath(dev: GpuDevice, a: Batch<DeviceArray>, opts: PotrfOptions = {}): boolean {
  return a.kind === 'strided' && a.count > 0 && potrfRecursive(a.rows, a.count, dev.info.smCount, recursionForced(opts.force));
}

export function potrfCuda(dev: GpuDevice, r: PotrfRequest<DeviceArray, DeviceArray>, opts: PotrfOptions = {}): void {
  const count = batchCount(r.a);
  if (count === 0) return;
  const dtype = deviceDtype(r.a);
  if (r.a.kind === 'strided' && potrfLargePath(dev, r.a, opts)) {
    potrfRecursion(dev, dtype, r.uplo, r.a, r.info, count, opts);
    return;
  }
  const grouping = groupOperands(dev, [r.a]);
  try {
    for (const g of grouping.groups) potrfGroup(dev, dtype, r.uplo, g, r.info, opts);
  } finally {
    release(dev, grouping);
  }
}

/** Factors one group of equal-size matrices (also used by posv beyond its fused sizes). */
export function potrfGroup(dev: GpuDevice, dtype: DType, uplo: Uplo, g: LaunchGroup, info: DeviceArray, opts: PotrfOptions = {}): void {
  const a = g.operands[0]!;
  const n = a.rows;
  if (n === 0) {
    zeroInfo(dev, info, g.index, g.count);
    return;
  }
  const args = [...operandArgs(a), arg.ptr(info), ...indexArgs(g.index, g.count)];
  const planNow = (): PotrfPlan =>
    planPotrf({ dtype, uplo, n, kind: a.kind, sharedLimit: sharedLimit(dev) }, opts.tuning ?? tuningFor(dev.info.arch, 'potrf'), { force: opts.force });
  const plan = opts.tuning === undefined && opts.force === undefined ? plannedOnce(dev, `potrf/${dtype}/${uplo}/${n}/${a.kind}`, planNow) : planNow();
  if (plan.variant === 'small') {
    const p = plan.params;
    const k = kernelFor(dev, 'potrf-small', p, () => potrfSmallSource(p));
    k.launch({ grid: [smallGrid({ dtype, n, warps: p.warps, tile: uplo === 'upper', lanes: n }, g.count), 1, 1], block: [p.warps * 32, 1, 1] }, args);
    return;
  }
  if (plan.variant === 'register') {
    const p = plan.params;
    const k = kernelFor(dev, 'potrf-register', p, () => potrfRegisterSource(p));
    k.launch({ grid: [g.count, 1, 1], block: [p.warps * 32, 1, 1] }, args);
    return;
  }
  const p = plan.params;
  if (p.ib === 0) throw new MyriadError('UNSUPPORTED', `n = ${n} is too large for the batched Cholesky panel kernel on ${dev.info.name}`, 'a.rows');
  const k = kernelFor(dev, 'potrf-panel', p, () => potrfPanelSource(p));
  // loop-exclusive (the default): one launch per panel, each sized to its panel; loop-inclusive: one.
  for (let i0 = 0; i0 < n; i0 += p.loop === true ? n : p.ib) {
    const m = n - i0;
    const threads = Math.min(PANEL_MAX_THREADS, Math.ceil(m / 32) * 32);
    k.launch({ grid: [g.count, 1, 1], block: [threads, 1, 1], sharedBytes: potrfPanelSharedBytes(p, m) },
      [...args, arg.i32(n), arg.i32(i0)]);
  }
}

/**
 * The large path over a strided batch. By default (from the table's `blocked.diagonalMinN`) the
 * fused-diagonal driver below (potrfInvertedPanels). Otherwise (forced, or a table without it) by
 * halves (potrfRecursionSteps) or panel by panel (potrfBlockedSteps, from `blocked.minN`); both are
 * one list of steps: leaves by the kernels above (their info, relative
 * to the leaf, into a scratch array and combined into `info` by the first failure), updates by the
 * trsm and syrk families on sub-blocks of every matrix. A matrix that failed goes on being updated
 * (its content past the failing column is unspecified, as potrf's tests take it); the others are
 * untouched by it.
 */
function potrfRecursion(dev: GpuDevice, dtype: DType, uplo: Uplo, a: StridedBatch<DeviceArray>, info: DeviceArray, count: number, opts: PotrfOptions): void {
  const { recursive: _recursive, blocked, panel, trsm, diagonal, outerPanels, lookahead, fusedPanel, ...leafForce } = opts.force ?? {};
  const tuning = (opts.tuning ?? tuningFor(dev.info.arch, 'potrf')).blocked;
  const byPanels = potrfBlocked(a.rows, tuning, blocked);
  const fused = diagonal ?? bandFor(tuning.diagonal[dtype], a.rows)?.nb ?? 0;
  // The fused driver from its own threshold (below the blocked driver's: every n the large path
  // takes for few matrices), unless the driver is forced either way.
  if (fused > 0 && (blocked ?? a.rows >= tuning.diagonalMinN)) {
    if (!potrfDiagonalFits(fused)) throw new MyriadError('INVALID_ARGUMENT', `potrf's fused diagonal block must be a multiple of 4 of at most 128, got ${fused}`, 'diagonal');
    const outer = outerPanels ?? bandFor(tuning.outerPanels[dtype], a.rows)?.panels ?? 1;
    if (!Number.isInteger(outer) || outer < 1) throw new MyriadError('INVALID_ARGUMENT', `potrf's outer panels must be a positive integer, got ${outer}`, 'outerPanels');
    potrfInvertedPanels(dev, dtype, uplo, a, info, count, fused, outer, lookahead ?? a.rows >= tuning.lookaheadFrom[dtype], fusedPanel ?? (count <= tuning.fusedPanelMaxCount && a.rows <= tuning.fusedPanelMaxN[dtype]));
    return;
  }
  const width = panel ?? tuning.panel;
  const steps = byPanels ? potrfBlockedSteps(a.rows, width) : potrfRecursionSteps(a.rows);
  // The panel's trsm (t = width) by its inverted diagonal block where the table says so; the
  // diagonal blocks' own updates (t <= width / 2) keep trsm's table.
  const panelTrsm: TrsmOptions = trsm !== undefined ? { force: trsm } : byPanels && tuning.invertPanel ? { force: { invertFrom: width } } : {};
  const innerTrsm: TrsmOptions = trsm !== undefined ? { force: trsm } : {};
  const leafOpts: PotrfOptions = { ...(opts.tuning ? { tuning: opts.tuning } : {}), ...(Object.keys(leafForce).length > 0 ? { force: leafForce } : {}) };
  // Few matrices: leaves above 32 by the register design (one launch, 0.07 ms for a 128 leaf of one
  // matrix on an H100 against 0.2 ms in 8 launches of the panel design the table picks for batches).
  const fewLeaves = leafForce.variant === undefined && tuning.registerLeavesFew && count < dev.info.smCount;
  const registerLeaf: PotrfOptions = { ...leafOpts, force: { ...leafForce, variant: 'register' } };
  const leafOptsFor = (size: number): PotrfOptions => (fewLeaves && size > SMALL_MAX_N && size <= REGISTER_DESIGN_MAX ? registerLeaf : leafOpts);
  zeroInfo(dev, info, null, count);
  const frame = Workspace.of(dev).frame();
  try {
    const scratch = frame.take('int32', count, "the large Cholesky's scratch info");
    for (const step of steps) {
      if (step.kind === 'leaf') {
        const b = block(a, step.off, step.off, step.size, step.size) as StridedBatch<DeviceArray>;
        const args: OperandArgs = { kind: 'strided', pointer: b.data.ptr, offset: b.offset, stride: b.stride, ld: b.ld, rows: b.rows, cols: b.cols };
        potrfGroup(dev, dtype, uplo, { count, operands: [args], index: null }, scratch, leafOptsFor(step.size));
        combineInfo(dev, info, scratch, count, step.off);
        continue;
      }
      const { off, top, rest } = step;
      const a11 = block(a, off, off, top, top);
      const a22 = block(a, off + top, off + top, rest, rest);
      if (uplo === 'lower') {
        const a21 = block(a, off + top, off, rest, top);
        trsmCuda(dev, { side: 'right', uplo: 'lower', transA: 'T', diag: 'nonunit', alpha: 1, a: a11, b: a21 }, top >= width ? panelTrsm : innerTrsm);
        syrkCuda(dev, { uplo: 'lower', trans: 'N', alpha: -1, a: a21, beta: 1, c: a22 });
      } else {
        const a12 = block(a, off, off + top, top, rest);
        trsmCuda(dev, { side: 'left', uplo: 'upper', transA: 'T', diag: 'nonunit', alpha: 1, a: a11, b: a12 }, top >= width ? panelTrsm : innerTrsm);
        syrkCuda(dev, { uplo: 'upper', trans: 'T', alpha: -1, a: a12, beta: 1, c: a22 });
      }
    }
  } finally {
    frame.end();
  }
}

/**
 * The blocked right-looking Cholesky with fused diagonal blocks (gpu-only-cholesky.txt's blocked
 * algorithm with lookahead; the panel as in generate-diagonal.ts): per panel of nb columns, one
 * kernel factors A11 = L11 L11^T and writes W = L11^-1 (and info), then one kernel rewrites the
 * panel below in place, A21 := A21 W^T ('upper': A12 := W A12; generate-panel-solve.ts), or with
 * `fusedPanel` both in one launch (generate-fused-panel.ts: the row blocks wait on a flag per
 * matrix, a fresh slot of `sync` per panel); then the trailing update. With lookahead (the paper's section on it), the update is two parts: the next panel's
 * columns first, on the main stream (a SYRK on its diagonal block, a GEMM below it), then the
 * rest of the trailing matrix on the device's side stream, where it overlaps the next panel's
 * diagonal kernel (one SM) and GEMM; the main stream waits for it only before the next such
 * update touches the same columns. Nothing waits on the host. The same steps for every matrix of
 * the batch (one thread block each in the diagonal kernel); a failed matrix goes on being
 * updated past its failing column, the others never see it.
 */
function potrfInvertedPanels(
  dev: GpuDevice, dtype: DType, uplo: Uplo, a: StridedBatch<DeviceArray>, info: DeviceArray, count: number, nb: number, outer: number, lookahead: boolean,
  fusedPanel: boolean,
): void {
  const n = a.rows;
  const lower = uplo === 'lower';
  const side = lookahead && dev.side !== undefined && dev.joinSide !== undefined ? { fork: dev.side.bind(dev), join: dev.joinSide.bind(dev) } : null;
  zeroInfo(dev, info, null, count);
  const p: PotrfDiagonalParams = { dtype, uplo, nb };
  const diagonalKernel = kernelFor(dev, 'potrf-diagonal', p, () => potrfDiagonalSource(p));
  const panelKernel = fusedPanel ? kernelFor(dev, 'potrf-fused-panel', p, () => potrfFusedPanelSource(p)) : null;
  const solveKernel = panelKernel ? null : kernelFor(dev, 'potrf-panel-solve', p, () => potrfPanelSolveSource(p));
  // The panel's columns (off, width) over rows [r0, r0 + rows), as stored ('upper': its transpose's place).
  const panelPart = (off: number, width: number, r0: number, rows: number): StridedBatch<DeviceArray> =>
    (lower ? block(a, r0, off, rows, width) : block(a, off, r0, width, rows)) as StridedBatch<DeviceArray>;
  // C(rows, cols) -= P(rows) P(cols)^T for the panel's rows ranges: a SYRK where they are the same, a GEMM otherwise.
  const update = (off: number, width: number, r0: number, rows: number, c0: number, cols: number): void => {
    if (rows === 0 || cols === 0) return;
    const pr = panelPart(off, width, r0, rows);
    if (r0 === c0) {
      syrkCuda(dev, { uplo, trans: lower ? 'N' : 'T', alpha: -1, a: pr, beta: 1, c: block(a, r0, r0, rows, rows) });
      return;
    }
    const pc = panelPart(off, width, c0, cols);
    if (lower) gemmCuda(dev, { transA: 'N', transB: 'T', alpha: -1, a: pr, b: pc, beta: 1, c: block(a, r0, c0, rows, cols) });
    else gemmCuda(dev, { transA: 'T', transB: 'N', alpha: -1, a: pc, b: pr, beta: 1, c: block(a, c0, r0, cols, rows) });
  };
  // The columns [c0, c0 + cols) from row c0 down, by the panel (off, width): the SYRK of their
  // diagonal block and the GEMM below it.
  const updateColumns = (off: number, width: number, c0: number, cols: number): void => {
    update(off, width, c0, cols, c0, cols);
    update(off, width, c0 + cols, n - c0 - cols, c0, cols);
  };
  const frame = Workspace.of(dev).frame();
  try {
    const w = frame.take(dtype, count * nb * nb, `the large Cholesky's inverted diagonal blocks (${count} of ${nb} x ${nb})`);
    // The fused panels' tickets and flags: a fresh slot per panel, zeroed once for the call.
    const syncInts = potrfFusedPanelSyncInts(count);
    const sync = panelKernel ? frame.take('int32', Math.ceil(n / nb) * syncInts, `the large Cholesky's panel flags (${Math.ceil(n / nb)} panels of ${count} matrices)`) : null;
    if (sync) dev.fill(sync, 0);
    let forked = false;
    // Two levels: outer panels of `outer` inner ones. The inner panels update only their own outer
    // panel's columns (k = nb); the trailing matrix beyond is updated once per outer panel, with
    // k = outer * nb: a SYRK of k = 96 or 128 reads and writes C for few flops (12-14 TFLOP/s
    // measured), one of k = 384 or 512 is compute-bound. outer = 1 is the one-level driver.
    const width = nb * outer;
    for (let j0 = 0; j0 < n; j0 += width) {
      const end = Math.min(j0 + width, n);
      for (let off = j0; off < end; off += nb) {
        const size = Math.min(nb, end - off);
        const rest = n - off - size;
        const a11 = block(a, off, off, size, size) as StridedBatch<DeviceArray>;
        const diagonalArgs = [...stridedArgs(a11), arg.ptr(w), arg.ptr(info), arg.i32(count), arg.i32(size), arg.i32(off)];
        if (panelKernel && sync && rest > 0) {
          const rowBlocks = potrfPanelSolveBlocks(rest);
          const slot = sync.ptr + BigInt((off / nb) * syncInts * 4);
          panelKernel.launch({ grid: [count * (1 + rowBlocks), 1, 1], block: [potrfFusedPanelThreads(nb), 1, 1], sharedBytes: potrfFusedPanelSharedBytes(p) },
            [...diagonalArgs, arg.i32(rest), arg.i32(rowBlocks), arg.ptr(slot)]);
        } else {
          diagonalKernel.launch({ grid: [count, 1, 1], block: [potrfDiagonalThreads(nb), 1, 1] }, diagonalArgs);
          if (rest === 0) continue;
          const panelBlock = panelPart(off, size, off + size, rest);
          solveKernel?.launch({ grid: [potrfPanelSolveBlocks(rest), count, 1], block: [potrfPanelSolveThreads(nb), 1, 1], sharedBytes: potrfPanelSolveSharedBytes(p) },
            [...stridedArgs(panelBlock), arg.ptr(w), arg.i32(count), arg.i32(rest), arg.i32(size)]);
        }
        if (rest === 0) continue;
        if (end - off - size > 0) updateColumns(off, size, off + size, end - off - size);
      }
      const rest = n - end;
      if (rest === 0) continue;
      const k = end - j0;
      if (side === null) {
        update(j0, k, end, rest, end, rest);
        continue;
      }
      // Lookahead: the next outer panel's columns now (after the side's previous update of them), the rest beside.
      const next = Math.min(width, rest);
      if (forked) side.join();
      updateColumns(j0, k, end, next);
      forked = rest > next;
      if (forked) side.fork(() => update(j0, k, end + next, rest - next, end + next, rest - next));
    }
    // Joined only after a fork: inside a graph capture the side stream takes part only from its first fork on.
    if (forked) side?.join();
  } finally {
    frame.end();
  }
}
