/**
 * geqrfCuda and orgqrCuda: batched Householder QR of device batches. Each group of equally sized
 * matrices gets a design from `planQrDesign` (the family's tuning table): one thread per matrix
 * (generate-thread.ts, its layout from the group's operands: staged where A is densely packed; geqrf's
 * fast variant, generate-thread-fast.ts, staged always, where the `qr` table's `threadVariant` says), one
 * shared-memory kernel per matrix (grouped as the other families group: common/operands.ts, strided A
 * and tau in one launch; list and variable batches by size and leading dimension, pointer arrays
 * uploaded), or the blocked compact-WY driver (launch-blocked.ts; chunks and workspace by
 * common/wy-launch.ts).
 * `qrCovers` tells the registry which requests these kernels take: every matrix must fit the shared
 * kernel or the blocked driver's narrowest panel (the rest run on the CPU reference).
 */
import { batchCount, batchDtype, shapeAt, uniformShape, type Batch } from '../../../core/batch.js';
import type { Storage } from '../../../core/storage.js';
import type { GeqrfRequest, OrgqrRequest } from '../../../core/ops.js';
import { tuningFor, type QrTuning } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice, type KernelSource, type LaunchConfig } from '../../runtime/types.js';
import { zeroInfo } from '../common/info-zero.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { runHouseholder } from '../common/householder-launch.js';
import { densePacked, operandArgs, sharedLimit, type LaunchGroup, type OperandArgs } from '../common/operands.js';
import { geqrfThreadSource, orgqrThreadSource } from './generate-thread.js';
import { geqrfThreadFastSource } from './generate-thread-fast.js';
import type { QrDesign, QrForce, QrShape, QrThreadDesign } from './params.js';
import { QR_FAMILY } from './launch-blocked.js';
import { planQrDesign, planQrThread, qrBlockedFits, qrFits, type QrProblem, type QrThreadProblem } from './plan.js';

export interface QrOptions {
  readonly force?: QrForce;
  /** Plan with this table instead of the device architecture's (tests, sweeps). */
  readonly tuning?: QrTuning;
}

/**
 * Whether the GPU kernels take every matrix of `a` on `dev` (geqrf: the m x n tile in shared
 * memory or the blocked driver's narrowest panel; orgqr: the same with k = n reflectors at most, so
 * one check serves both).
 */
export function qrCovers(a: Batch<Storage>, dev: GpuDevice): boolean {
  // The backend asks before it stages host arrays, so host batches come here too.
  const dtype = batchDtype(a, 'a');
  const limit = sharedLimit(dev);
  const fits = ({ rows: m, cols: n }: { rows: number; cols: number }): boolean => {
    const pr: QrProblem = { op: 'geqrf', dtype, m, n, k: Math.min(m, n), kind: 'strided', sharedLimit: limit };
    return qrFits(pr) || qrBlockedFits(pr);
  };
  const uniform = uniformShape(a);
  if (uniform !== undefined) return fits(uniform);
  for (let i = 0; i < batchCount(a); i++) if (!fits(shapeAt(a, i))) return false;
  return true;
}

/** The design of a group (memoised per device unless forced or given a table). */
function design(dev: GpuDevice, shape: QrShape, opts: QrOptions): QrDesign {
  const pr: QrProblem = { ...shape, sharedLimit: sharedLimit(dev) };
  const planNow = (): QrDesign => planQrDesign(pr, opts.tuning ?? tuningFor(dev.info.arch, 'qr'), { force: opts.force });
  return opts.force === undefined && opts.tuning === undefined
    ? plannedOnce(dev, `qr-design/${shape.op}/${shape.dtype}/${shape.m}x${shape.n}k${shape.k}/${shape.kind}`, planNow)
    : planNow();
}

/**
 * The last per-thread launch of a strided geqrf request whole, by device and A batch: a call that
 * repeats it (the same arrays, offsets, strides, leading dimensions, sizes, info and options: checked
 * field by field, so a batch object changed in place misses) launches the kernel again without
 * grouping or planning. The kernels of tiny matrices run for microseconds at the common batch sizes,
 * so the host's work per call decides how soon the next one starts.
 */
interface Replay {
  readonly a: OperandArgs;
  readonly tau: OperandArgs;
  readonly count: number;
  readonly info: DeviceArray;
  readonly opts: QrOptions;
  readonly launch: () => void;
}
const replays = new WeakMap<GpuDevice, WeakMap<object, Replay>>();

const sameOperand = (o: OperandArgs, b: Batch<DeviceArray>): boolean => b.kind === 'strided' && b.data.ptr === o.pointer && b.offset === o.offset
  && b.stride === o.stride && b.ld === o.ld && b.rows === o.rows && b.cols === o.cols;

/** The replay of `r` on `dev`, where its last launch was this request's whole. */
function replayOf(dev: GpuDevice, r: GeqrfRequest<DeviceArray, DeviceArray>, opts: QrOptions): Replay | undefined {
  const x = replays.get(dev)?.get(r.a);
  if (x === undefined || r.a.kind !== 'strided') return undefined;
  const same = x.info === r.info && x.opts.force === opts.force && x.opts.tuning === opts.tuning && x.count === r.a.count && r.tau.kind === 'strided'
    && r.tau.count === x.count && sameOperand(x.a, r.a) && sameOperand(x.tau, r.tau);
  return same ? x : undefined;
}

/** One launch of the per-thread kernel over a group (geqrf writes info at `info`, by the group's index where given). */
function launchThread(dev: GpuDevice, g: LaunchGroup, a: OperandArgs, tau: OperandArgs, shape: QrShape, opts: QrOptions, info: DeviceArray | null,
  whole?: GeqrfRequest<DeviceArray, DeviceArray>): void {
  const pr: QrThreadProblem = { ...shape, denseA: densePacked(a, g.count), denseT: densePacked(tau, g.count) };
  const planNow = () => planQrThread(pr, opts.force, (opts.tuning ?? tuningFor(dev.info.arch, 'qr')).threadVariant[shape.dtype]);
  const plan = opts.force === undefined && opts.tuning === undefined
    ? plannedOnce(dev, `qr-thread/${shape.op}/${shape.dtype}/${shape.m}x${shape.n}k${shape.k}/${shape.kind}/${pr.denseA ? 'd' : 'e'}${pr.denseT ? 'd' : 'e'}`, planNow)
    : planNow();
  const p = plan.params;
  const source = (): KernelSource => (p.op === 'orgqr' ? orgqrThreadSource(p) : p.variant === 'fast' ? geqrfThreadFastSource(p) : geqrfThreadSource(p));
  const kernel = kernelFor(dev, `qr-thread-${p.op}`, p, source);
  const config: LaunchConfig = { grid: [Math.ceil(g.count / p.blockThreads), 1, 1], block: [p.blockThreads, 1, 1], sharedBytes: plan.sharedBytes };
  const args = [
    ...operandArgs(a), ...operandArgs(tau), ...(info === null ? [] : [arg.ptr(info.ptr)]), arg.ptr(g.index === null ? 0n : g.index.ptr), arg.i32(g.count),
  ];
  const launch = (): void => kernel.launch(config, args);
  launch();
  if (whole !== undefined && info !== null && g.index === null && a.kind === 'strided' && tau.kind === 'strided') {
    let perDevice = replays.get(dev);
    if (perDevice === undefined) replays.set(dev, (perDevice = new WeakMap()));
    perDevice.set(whole.a, { a, tau, count: g.count, info, opts, launch });
  }
}

/** The per-thread and shared-kernel groups of a request, then its blocked matrices through the blocked driver (common/householder-launch.ts). */
function run(dev: GpuDevice, r: OrgqrRequest<DeviceArray>, op: QrShape['op'], opts: QrOptions, info: DeviceArray | null,
  trivial: (g: LaunchGroup, a: OperandArgs) => boolean, whole?: GeqrfRequest<DeviceArray, DeviceArray>): void {
  runHouseholder<'T', QrThreadDesign>(dev, QR_FAMILY, r, {
    op, design: (shape) => design(dev, shape, opts), info, trivial,
    own: (_d, g, a, tau, shape) => launchThread(dev, g, a, tau, shape, opts, info, whole),
  });
}

export function geqrfCuda(dev: GpuDevice, r: GeqrfRequest<DeviceArray, DeviceArray>, opts: QrOptions = {}): void {
  const replay = replayOf(dev, r, opts);
  if (replay !== undefined) return replay.launch();
  run(dev, r, 'geqrf', opts, r.info, (g, a) => {
    if (Math.min(a.rows, a.cols) > 0) return false;
    zeroInfo(dev, r.info, g.index, g.count);
    return true;
  }, r);
}

export function orgqrCuda(dev: GpuDevice, r: OrgqrRequest<DeviceArray>, opts: QrOptions = {}): void {
  run(dev, r, 'orgqr', opts, null, (_g, a) => a.rows === 0 || a.cols === 0);
}
