/**
 * getrfCuda: batched LU with partial pivoting of device batches, one plan (plan.ts) per group of
 * equal-size matrices; the blocked design launches a panel and a trailing update per panel. Strided
 * batches on the large path: panel by panel (getrfPanels) or by halves (getrfRecursion).
 */
import { batchCount, type Batch, type StridedBatch } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import { MyriadError } from '../../../core/errors.js';
import type { GetrfRequest } from '../../../core/ops.js';
import { tuningFor, type GetrfTuning } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { zeroInfo } from '../common/info-zero.js';
import { recursionForced, type FamilyOptions } from '../common/family-options.js';
import { cachedKernel, kernelFor } from '../common/kernel-cache.js';
import { deviceDtype, groupOperands, indexArgs, operandArgs, release, sharedLimit, stridedArgs, type LaunchGroup } from '../common/operands.js';
import { block } from '../common/sub-blocks.js';
import { CudaError } from '../../runtime/errors.js';
import { Workspace } from '../../runtime/workspace.js';
import { smallGrid } from '../common/warp-slots.js';
import { gemmCuda } from '../gemm/index.js';
import { trsmCuda } from '../trsm/index.js';
import { GETRF_PANEL_THREADS, getrfPanelSharedBytes, getrfPanelSource, getrfUpdateSource, UPDATE_COLUMNS, UPDATE_THREADS } from './generate-panel.js';
import { getrfLaswpSource, LASWP_THREADS } from './generate-laswp.js';
import { getrfRegisterSource } from './generate-register.js';
import { getrfSmallLayout, getrfSmallSource } from './generate-small.js';
import { getrfSwapsSource, SWAPS_THREADS, SWAPS_TILE } from './generate-swaps.js';
import { getrfTallSource } from './generate-tall.js';
import { getrfSpreadSource, SPREAD_THREADS, SPREAD_WIDTH, spreadSharedBytes, spreadSlotReals, spreadSyncInts } from './generate-spread.js';
import { getrfWideSource, WIDE_MAX, wideSubBlock } from './generate-wide.js';
import type { GetrfForce, GetrfSpreadParams, GetrfTallParams, GetrfWideParams } from './params.js';
import { getrfBlocked, getrfBlockedSteps, getrfPanelWidth, getrfRecursionSteps, getrfWideLeaf, getrfRecursive, planGetrf, spreadShape, tallShape, type SpreadDevice, type SpreadShape, type TallShape } from './plan.js';

export type GetrfOptions = FamilyOptions<GetrfForce, GetrfTuning>;

/**
 * Whether getrfCuda takes a batch to its large path (the recursion over the whole GPU: strided,
 * large or few matrices, from the tuning table); the solves ask it too, to factor through it.
 */
export function getrfLargePath(dev: GpuDevice, a: Batch<DeviceArray>, opts: GetrfOptions = {}): boolean {
  if (a.kind !== 'strided' || a.count === 0) return false;
  const tuning = opts.tuning ?? tuningFor(dev.info.arch, 'getrf');
  return getrfRecursive(deviceDtype(a), a.rows, a.cols, a.count, dev.info.smCount, tuning.recursion, recursionForced(opts.force));
}

export function getrfCuda(dev: GpuDevice, r: GetrfRequest<DeviceArray, DeviceArray>, opts: GetrfOptions = {}): void {
  const count = batchCount(r.a);
  if (count === 0) return;
  const dtype = deviceDtype(r.a);
  if (r.a.kind === 'strided' && getrfLargePath(dev, r.a, opts)) {
    const tuning = opts.tuning ?? tuningFor(dev.info.arch, 'getrf');
    if (getrfBlocked(dtype, r.a.rows, r.a.cols, tuning.blocked, opts.force?.panels)) getrfPanels(dev, dtype, r.a, r.ipiv, r.pivotStride, r.info, count, tuning, opts.force ?? {});
    else getrfRecursion(dev, dtype, r.a, r.ipiv, r.pivotStride, r.info, count, tuning, opts.force?.tallWidest);
    return;
  }
  const grouping = groupOperands(dev, [r.a]);
  try {
    for (const g of grouping.groups) getrfGroup(dev, dtype, g, r.ipiv, r.pivotStride, r.info, opts);
  } finally {
    release(dev, grouping);
  }
}

export function getrfGroup(
  dev: GpuDevice, dtype: DType, g: LaunchGroup, ipiv: DeviceArray, pivotStride: number, info: DeviceArray, opts: GetrfOptions = {},
): void {
  const a = g.operands[0]!;
  const { rows, cols } = a;
  if (rows === 0 || cols === 0) {
    zeroInfo(dev, info, g.index, g.count);
    return;
  }
  const tail = [...indexArgs(g.index, g.count)];
  const tuning = opts.tuning ?? tuningFor(dev.info.arch, 'getrf');
  const plan = planGetrf({ dtype, rows, cols, kind: a.kind, sharedLimit: sharedLimit(dev), count: g.count, smCount: dev.info.smCount }, tuning, { force: opts.force });
  if (plan.variant === 'small') {
    const p = plan.params;
    const k = cachedKernel(dev, `getrf-small/${JSON.stringify(p)}`, () => getrfSmallSource(p));
    k.launch({ grid: [smallGrid(getrfSmallLayout(dtype, rows, cols, p.warps), g.count), 1, 1], block: [p.warps * 32, 1, 1] },
      [...operandArgs(a), arg.ptr(ipiv), arg.i32(pivotStride), arg.ptr(info), ...tail]);
    return;
  }
  if (plan.variant === 'register') {
    const p = plan.params;
    const k = cachedKernel(dev, `getrf-register/${JSON.stringify(p)}`, () => getrfRegisterSource(p));
    k.launch({ grid: [g.count, 1, 1], block: [p.warps * 32, 1, 1] },
      [...operandArgs(a), arg.ptr(ipiv), arg.i32(pivotStride), arg.ptr(info), ...tail]);
    return;
  }
  const p = plan.params;
  const ib = p.ib;
  if (ib === 0) throw new MyriadError('UNSUPPORTED', `${rows} rows are too many for the batched LU panel kernel on ${dev.info.name}`, 'a.rows');
  const panel = cachedKernel(dev, `getrf-panel/${JSON.stringify(p)}`, () => getrfPanelSource(p));
  const update = cachedKernel(dev, `getrf-update/${JSON.stringify(p)}`, () => getrfUpdateSource(p));
  const steps = Math.min(rows, cols);
  for (let i0 = 0; i0 < steps; i0 += ib) {
    const m = rows - i0;
    const w = Math.min(ib, steps - i0);
    panel.launch({ grid: [g.count, 1, 1], block: [Math.min(GETRF_PANEL_THREADS, Math.ceil(m / 32) * 32), 1, 1], sharedBytes: getrfPanelSharedBytes(p, m) },
      [...operandArgs(a), arg.ptr(ipiv), arg.i32(pivotStride), arg.ptr(info), ...tail, arg.i32(rows), arg.i32(cols), arg.i32(i0)]);
    const tiles = Math.ceil(i0 / UPDATE_COLUMNS) + Math.ceil((cols - i0 - w) / UPDATE_COLUMNS);
    if (tiles > 0) {
      update.launch({ grid: [g.count, tiles, 1], block: [UPDATE_THREADS, 1, 1] },
        [...operandArgs(a), arg.ptr(ipiv), arg.i32(pivotStride), ...tail, arg.i32(rows), arg.i32(cols), arg.i32(i0), arg.i32(w)]);
    }
  }
}

/** The large path's launches on sub-blocks of a strided batch (both drivers). */
interface LargeLaunches {
  readonly sub: (r0: number, c0: number, rows: number, cols: number) => StridedBatch<DeviceArray>;
  /** Factor A(off:m, off:off+width) of every matrix (the tall leaf kernel). */
  readonly leaf: (off: number, width: number) => void;
  readonly solve: (off: number, top: number, col: number, cols: number) => void;
  readonly update: (off: number, top: number, col: number, cols: number) => void;
}

function largeLaunches(
  dev: GpuDevice, dtype: DType, a: StridedBatch<DeviceArray>, ipiv: DeviceArray, pivotStride: number, info: DeviceArray,
  count: number, shape: (rows: number) => TallShape,
): LargeLaunches {
  const m = a.rows;
  const sub = (r0: number, c0: number, rows: number, cols: number): StridedBatch<DeviceArray> =>
    block(a, r0, c0, rows, cols) as StridedBatch<DeviceArray>;
  return {
    sub,
    leaf: (off, width) => {
      const s = shape(m - off);
      const p: GetrfTallParams = { dtype, kind: 'strided', nb: s.nb, threads: s.threads, rowsPerThread: s.rowsPerThread };
      const k = kernelFor(dev, 'getrf-tall', p, () => getrfTallSource(p));
      k.launch({ grid: [count, 1, 1], block: [s.threads, 1, 1] }, [
        ...stridedArgs(sub(off, off, m - off, width)), arg.ptr(ipiv), arg.i32(pivotStride), arg.ptr(info), ...indexArgs(null, count),
        arg.i32(m - off), arg.i32(width), arg.i32(off)]);
    },
    solve: (off, top, col, cols) => trsmCuda(dev, { side: 'left', uplo: 'lower', transA: 'N', diag: 'unit', alpha: 1,
      a: sub(off, off, top, top), b: sub(off, col, top, cols) }),
    update: (off, top, col, cols) => {
      const below = m - off - top;
      if (below > 0) {
        gemmCuda(dev, { transA: 'N', transB: 'N', alpha: -1, beta: 1,
          a: sub(off + top, off, below, top), b: sub(off, col, top, cols), c: sub(off + top, col, below, cols) });
      }
    },
  };
}

/**
 * The recursion of plan.ts over a strided batch: leaves by the tall panel kernel (pivots and info
 * on the device: info zeroed here, then the first zero pivot of each matrix kept by the leaves,
 * which run in column order), row interchanges by the laswp kernel, U12 := L11^-1 A12 by the trsm
 * family and A22 -= A21 U12 by the gemm family, on sub-blocks of every matrix. A singular matrix
 * goes on being factored as LAPACK's dgetrf does (its zero pivot neither swaps nor scales).
 */
function getrfRecursion(
  dev: GpuDevice, dtype: DType, a: StridedBatch<DeviceArray>, ipiv: DeviceArray, pivotStride: number, info: DeviceArray,
  count: number, tuning: GetrfTuning, widest: number | undefined,
): void {
  const m = a.rows;
  zeroInfo(dev, info, null, count);
  const shape = (rows: number): TallShape => tallShape(dtype, rows, tuning.recursion, widest ?? tuning.recursion.widest[dtype]);
  const go = largeLaunches(dev, dtype, a, ipiv, pivotStride, info, count, shape);
  const laswp = kernelFor(dev, 'getrf-laswp', { dtype, kind: 'strided' }, () => getrfLaswpSource({ dtype, kind: 'strided' }));
  for (const step of getrfRecursionSteps(m, a.cols, (rows) => shape(rows).nb)) {
    switch (step.kind) {
      case 'panel': go.leaf(step.off, step.width); break;
      case 'swap':
        laswp.launch({ grid: [count, Math.ceil(step.cols / LASWP_THREADS), 1], block: [LASWP_THREADS, 1, 1] }, [
          ...stridedArgs(go.sub(0, step.col, m, step.cols)), arg.ptr(ipiv), arg.i32(pivotStride), ...indexArgs(null, count),
          arg.i32(step.from), arg.i32(step.to), arg.i32(step.cols)]);
        break;
      case 'solve': go.solve(step.off, step.top, step.col, step.cols); break;
      case 'update': go.update(step.off, step.top, step.col, step.cols); break;
    }
  }
}

/**
 * Devices whose driver refused to launch the spread leaf's cluster (no 16 SMs with room in one GPC:
 * a MIG slice, a smaller part, a cluster size the part does not take): the cluster form is not
 * asked of them again. A refused launch is not a sticky error; inside a stream capture it still
 * invalidates the capture.
 */
const clustersRefused = new WeakSet<GpuDevice>();
const clusterRefusal = (e: unknown): boolean =>
  e instanceof CudaError && (e.status === 'CUDA_ERROR_INVALID_CLUSTER_SIZE' || e.status === 'CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES');

/**
 * The blocked driver of plan.ts (getrfBlockedSteps) over a strided batch: panels of nb columns,
 * each by the recursion's steps (leaves up to the table's wideLeaf columns by the wide leaf kernel,
 * narrower ones by the tall kernel; trsm and gemm as getrfRecursion; its swaps and
 * each panel's interchanges of all other columns by the swaps kernel, one launch each), then the
 * trailing trsm and GEMM; with lookahead, the GEMM beyond the next panel on the device's side
 * stream (as potrf's fused driver: nothing waits on the host, capture-safe, the side joined only
 * after a fork). Only GEMMs go to the side: trsm takes workspace, which is reused in main-stream
 * order. Pivots and info as getrfRecursion (leaves in column order on the main stream).
 */
function getrfPanels(
  dev: GpuDevice, dtype: DType, a: StridedBatch<DeviceArray>, ipiv: DeviceArray, pivotStride: number, info: DeviceArray,
  count: number, tuning: GetrfTuning, force: GetrfForce,
): void {
  const { rows: m, cols: n } = a;
  const nb = force.panelWidth ?? getrfPanelWidth(dtype, m, n, count, tuning.blocked);
  if (!(Number.isInteger(nb) && nb >= 32 && nb % 32 === 0)) throw new MyriadError('INVALID_ARGUMENT', `getrf's panel width must be a positive multiple of 32, got ${nb}`, 'panelWidth');
  const side = (force.lookahead ?? Math.max(m, n) >= tuning.blocked.lookaheadFrom[dtype]) && dev.side !== undefined && dev.joinSide !== undefined
    ? { fork: dev.side.bind(dev), join: dev.joinSide.bind(dev) } : null;
  zeroInfo(dev, info, null, count);
  const widest = force.tallWidest ?? tuning.blocked.widest[dtype];
  const shape = (rows: number): TallShape => tallShape(dtype, rows, tuning.recursion, widest);
  const wide = force.wideLeaf ?? getrfWideLeaf(dtype, m, n, count, tuning.blocked);
  if (!(Number.isInteger(wide) && wide >= 0 && wide <= WIDE_MAX)) throw new MyriadError('INVALID_ARGUMENT', `getrf's wide leaf must be 0 ... ${WIDE_MAX} columns, got ${wide}`, 'wideLeaf');
  const go = largeLaunches(dev, dtype, a, ipiv, pivotStride, info, count, shape);
  // Leaves wider than the tall kernel holds for their rows: the wide (or spread) leaf kernel, one launch.
  const leafWidth = (rows: number): number => Math.max(wide, shape(rows).nb);
  // Leaves of many rows over many blocks (generate-spread.ts) where the table or `force` says so.
  const spreadDevice: SpreadDevice = { smCount: dev.info.smCount, sharedLimit: sharedLimit(dev), clusters: dev.info.major >= 9 && !clustersRefused.has(dev) };
  const spreadForce = { spread: force.spreadLeaf, cluster: force.spreadCluster, exchange: force.spreadExchange };
  const fusedSearch = force.spreadFusedSearch ?? tuning.blocked.spreadLeaf.fusedSearch?.[dtype] ?? false;
  const spread = (rows: number): SpreadShape | null => (wide === SPREAD_WIDTH ? spreadShape(dtype, rows, count, spreadDevice, tuning.blocked.spreadLeaf, spreadForce) : null);
  const swapsKernel = kernelFor(dev, 'getrf-swaps', { dtype, kind: 'strided' }, () => getrfSwapsSource({ dtype, kind: 'strided' }));
  const swaps = (from: number, to: number, col: number, cols: number): void => {
    swapsKernel.launch({ grid: [count, Math.ceil(cols / SWAPS_TILE), 1], block: [SWAPS_THREADS, 1, 1] }, [
      ...stridedArgs(go.sub(0, col, m, cols)), arg.ptr(ipiv), arg.i32(pivotStride), ...indexArgs(null, count),
      arg.i32(from), arg.i32(to), arg.i32(col), arg.i32(cols), arg.i32(SWAPS_TILE)]);
  };
  const steps = getrfBlockedSteps(m, n, nb, leafWidth, side !== null);
  const frame = Workspace.of(dev).frame();
  try {
    // Each leaf's spread shape, planned once. The grid-form leaves' tickets and tagged words (a
    // fresh area a leaf, zeroed once for the call) and their candidate rows (reused: the leaves run
    // one after another on the main stream); the cluster form needs neither.
    const spreads = new Map<number, SpreadShape | null>();
    for (const st of steps) if (st.kind === 'panel' && st.width > shape(m - st.off).nb) spreads.set(st.off, spread(m - st.off));
    const gridBlocks = [...spreads.values()].flatMap((sp) => (sp !== null && sp.cluster === 0 ? [sp.blocks] : []));
    const mostBlocks = Math.max(0, ...gridBlocks);
    const syncInts = spreadSyncInts(count, mostBlocks);
    const sync = mostBlocks > 0 ? frame.take('int32', gridBlocks.length * syncInts, `the LU's spread leaves' tickets and pivot candidates (${gridBlocks.length} leaves of ${count} matrices)`) : null;
    const slots = mostBlocks > 0 ? frame.take(dtype, count * spreadSlotReals(SPREAD_WIDTH, mostBlocks), `the LU's spread leaves' candidate rows (${count} matrices)`) : null;
    if (sync) dev.fill(sync, 0);
    let spreadDone = 0;
    const leaf = (off: number, width: number): void => {
      const s = shape(m - off);
      if (width <= s.nb) {
        go.leaf(off, width);
        return;
      }
      const args = [...stridedArgs(go.sub(off, off, m - off, width)), arg.ptr(ipiv), arg.i32(pivotStride), arg.ptr(info)];
      const sp = spreads.get(off) ?? null;
      // A leaf planned for the cluster form on a device that has refused it: the wide leaf.
      if (sp !== null && sp.cluster > 0 && !clustersRefused.has(dev)) {
        const threads = tuning.blocked.spreadLeaf.cluster.threads;
        const p: GetrfSpreadParams = { dtype, width: SPREAD_WIDTH, rowsPerBlock: sp.rowsPerBlock, threads, maxBlocks: 32, cluster: sp.cluster, exchange: sp.exchange ?? 'pull', fusedSearch };
        try {
          const k = kernelFor(dev, 'getrf-spread', p, () => getrfSpreadSource(p));
          k.launch({ grid: [count * sp.blocks, 1, 1], block: [threads, 1, 1], sharedBytes: spreadSharedBytes(p) }, [
            ...args, arg.i32(count), arg.i32(m - off), arg.i32(width), arg.i32(off)]);
          return;
        } catch (e) {
          if (!clusterRefusal(e)) throw e;
          clustersRefused.add(dev);   // this leaf and this call's later cluster leaves: the wide leaf; later calls plan without the form
        }
      }
      if (sp !== null && sp.cluster === 0 && sync && slots) {
        const p: GetrfSpreadParams = { dtype, width: SPREAD_WIDTH, rowsPerBlock: sp.rowsPerBlock, threads: SPREAD_THREADS, maxBlocks: Math.ceil(sp.blocks / 32) * 32, cluster: 0, fusedSearch };
        const k = kernelFor(dev, 'getrf-spread', p, () => getrfSpreadSource(p));
        const area = sync.ptr + BigInt(spreadDone++ * syncInts * 4);
        k.launch({ grid: [count * sp.blocks, 1, 1], block: [SPREAD_THREADS, 1, 1], sharedBytes: spreadSharedBytes(p) }, [
          ...args, arg.i32(count), arg.i32(m - off), arg.i32(width), arg.i32(off), arg.i32(sp.blocks), arg.ptr(slots), arg.ptr(area)]);
        return;
      }
      const fit = { dtype, width: wide, nb: s.nb, threads: s.threads };
      const p: GetrfWideParams = { ...fit, kind: 'strided', nb: wideSubBlock(fit), rowsPerThread: s.rowsPerThread };
      const k = kernelFor(dev, 'getrf-wide', p, () => getrfWideSource(p));
      k.launch({ grid: [count, 1, 1], block: [s.threads, 1, 1] }, [...args, ...indexArgs(null, count), arg.i32(m - off), arg.i32(width), arg.i32(off)]);
    };
    for (const step of steps) {
      switch (step.kind) {
        case 'panel': leaf(step.off, step.width); break;
        case 'swap': swaps(step.from, step.to, step.col, step.cols); break;
        case 'interchange': swaps(step.from, step.to, 0, n); break;
        case 'solve': go.solve(step.off, step.top, step.col, step.cols); break;
        case 'update':
          if (step.side && side !== null) side.fork(() => go.update(step.off, step.top, step.col, step.cols));
          else go.update(step.off, step.top, step.col, step.cols);
          break;
        case 'join': side?.join(); break;
      }
    }
  } finally {
    frame.end();
  }
}
