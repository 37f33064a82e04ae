/**
 * The TSM2 entry point the CUDA backend calls for a batch-of-one gemm: checks that the request is
 * one TSM2 can take, plans (plan.ts), generates, compiles through the runtime's cache and
 * launches on the device's stream. Returns false, having done nothing, where TSM2 does not apply.
 */
import { batchCount, matrixAt, type MatrixView } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import { isDType } from '../../../core/dtype-table.js';
import type { GemmRequest } from '../../../core/ops.js';
import { arg, type DeviceArray, type GpuDevice, type KernelArg } from '../../runtime/types.js';
import { peakBandwidth } from '../../model/roofline.js';
import { cachedKernel } from '../common/kernel-cache.js';
import { elementBytes } from '../common/precision.js';
import { generateTsm2l } from './generate-l.js';
import { generateTsm2r } from './generate-r.js';
import { generateScale, SCALE_THREADS } from './generate-scale.js';
import { TSM2L_MAX_K, TSM2L_MAX_N } from './params.js';
import {
  classifyTallSkinny, planTsm2l, planTsm2r,
  type Tsm2Kind, type Tsm2lOverrides, type Tsm2lPlan, type Tsm2Problem, type Tsm2rOverrides, type Tsm2rPlan,
} from './plan.js';

export interface Tsm2Options {
  /** Use this kernel even where `isTallSkinny` would not route here (tests, benchmarks). */
  readonly force?: Tsm2Kind;
  /** Fix some TSM2R / TSM2L parameters (the rest planned). */
  readonly r?: Tsm2rOverrides;
  readonly l?: Tsm2lOverrides;
  /** Copy bandwidth in bytes/s for the model (default: the measured one, else 90% of theoretical). */
  readonly bandwidth?: number;
  /** Receives the plan that ran. */
  readonly onPlan?: (plan: Tsm2rPlan | Tsm2lPlan) => void;
}

const measuredBandwidth = new WeakMap<GpuDevice, number>();

/** Records a measured copy bandwidth (bytes/s, read + write) for the model on this device. */
export function setMeasuredBandwidth(dev: GpuDevice, bytesPerSecond: number): void {
  measuredBandwidth.set(dev, bytesPerSecond);
}

export function modelBandwidth(dev: GpuDevice, explicit?: number): number {
  return explicit ?? measuredBandwidth.get(dev) ?? 0.9 * peakBandwidth(dev.info);
}

/**
 * Plans by problem: a small problem (TSM2L at m = 1e4 runs in microseconds) must not pay for
 * planning on every call (kernels: the family-wide memo of common/kernel-cache.ts).
 */
const plans = new Map<string, Tsm2rPlan | Tsm2lPlan>();
function cachedPlan<P extends Tsm2rPlan | Tsm2lPlan>(key: string, make: () => P): P {
  const known = plans.get(key);
  if (known) return known as P;
  if (plans.size > 4096) plans.clear();
  const plan = make();
  plans.set(key, plan);
  return plan;
}

/** The widest vector (1, 2, 4 elements) whose alignment the operand's pointer and ld allow. */
function vectorAlignment(view: MatrixView<DeviceArray>, bytes: number): number {
  for (const v of [4, 2]) {
    const addr = view.data.ptr + BigInt(view.offset * bytes);
    if (addr % BigInt(v * bytes) === 0n && view.ld % v === 0) return v;
  }
  return 1;
}

const pointer = (view: MatrixView<DeviceArray>, bytes: number): KernelArg => arg.ptr(view.data.ptr + BigInt(view.offset * bytes));

/**
 * Whether TSM2 takes this gemm (the router's `covers`): a single product of one float dtype whose
 * shape the sm table's routing rule calls tall-and-skinny, within TSM2L's limits.
 */
export function tsm2Serves(dev: GpuDevice, r: GemmRequest<DeviceArray>): boolean {
  return tsm2Call(dev, r) !== undefined;
}

/** A TSM2 problem as the request gives it: its design, dtype, operands and sizes. */
interface Tsm2Call {
  readonly kind: Tsm2Kind;
  readonly dtype: DType;
  readonly a: MatrixView<DeviceArray>;
  readonly b: MatrixView<DeviceArray>;
  readonly c: MatrixView<DeviceArray>;
  readonly m: number;
  readonly n: number;
  readonly k: number;
}

/** The TSM2 design for a request, with its operands, or undefined where it is not a TSM2 problem. */
function tsm2Call(dev: GpuDevice, r: GemmRequest<DeviceArray>, force?: Tsm2Options['force']): Tsm2Call | undefined {
  if (batchCount(r.c) !== 1 || batchCount(r.a) !== 1 || batchCount(r.b) !== 1) return undefined;
  const a = matrixAt(r.a, 0);
  const b = matrixAt(r.b, 0);
  const c = matrixAt(r.c, 0);
  const dtype = c.data.dtype;
  if (!isDType(dtype)) return undefined;
  if (a.data.dtype !== dtype || b.data.dtype !== dtype) return undefined;
  const m = c.rows;
  const n = c.cols;
  const k = r.transA === 'N' ? a.cols : a.rows;
  const kind = force ?? classifyTallSkinny(m, n, k, dev.info.arch);
  if (kind === undefined) return undefined;
  if (kind === 'tsm2l' && (k > TSM2L_MAX_K || n > TSM2L_MAX_N)) {
    if (force) throw new Error(`TSM2L takes k <= ${TSM2L_MAX_K} and n <= ${TSM2L_MAX_N}, got k = ${k}, n = ${n}`);
    return undefined;
  }
  return { kind, dtype, a, b, c, m, n, k };
}

/**
 * C = alpha op(A) op(B) + beta C on the device with TSM2R or TSM2L, for a request holding one
 * matrix per operand. Returns false (nothing enqueued) where the request is not a TSM2 shape
 * (see `isTallSkinny`) or not a single gemm; true once the work is enqueued.
 */
export function tsm2Cuda(dev: GpuDevice, r: GemmRequest<DeviceArray>, opts: Tsm2Options = {}): boolean {
  const call = tsm2Call(dev, r, opts.force);
  if (call === undefined) return false;
  const { kind, dtype, a, b, c, m, n, k } = call;
  if (m === 0 || n === 0) return true;
  if (r.alpha === 0 || k === 0) {
    if (r.beta !== 1) scaleC(dev, dtype, c, r.beta);
    return true;
  }
  const bytes = elementBytes(dtype);
  const problem: Tsm2Problem = {
    dtype, transA: r.transA, transB: r.transB, m, n, k, betaZero: r.beta === 0,
    maxVecA: vectorAlignment(a, bytes), maxVecC: vectorAlignment(c, bytes),
  };
  const bandwidth = modelBandwidth(dev, opts.bandwidth);
  const scalars = [arg.real(dtype, r.alpha), arg.real(dtype, r.beta)];
  const operands = [pointer(a, bytes), arg.i64(a.ld), pointer(b, bytes), arg.i64(b.ld), pointer(c, bytes), arg.i64(c.ld)];
  if (kind === 'tsm2r') {
    const plan = cachedPlan(JSON.stringify([dev.info.arch, dev.info.smCount, bandwidth, problem, opts.r]),
      () => planTsm2r(dev.info, bandwidth, problem, opts.r));
    opts.onPlan?.(plan);
    cachedKernel(dev, `tsm2r/${JSON.stringify(plan.params)}`, () => generateTsm2r(plan.params)).launch({ grid: plan.grid, block: plan.block, sharedBytes: plan.sharedBytes },
      [arg.i32(m), arg.i32(k), arg.i32(plan.kChunk), ...operands, ...scalars]);
  } else {
    const plan = cachedPlan(JSON.stringify([dev.info.arch, dev.info.smCount, bandwidth, problem, opts.l]),
      () => planTsm2l(dev.info, bandwidth, problem, opts.l));
    opts.onPlan?.(plan);
    cachedKernel(dev, `tsm2l/${JSON.stringify(plan.params)}`, () => generateTsm2l(plan.params)).launch({ grid: plan.grid, block: plan.block }, [arg.i64(m), ...operands, ...scalars]);
  }
  return true;
}

/** C := beta C (zeros without reading C when beta = 0). */
function scaleC(dev: GpuDevice, dtype: DType, c: MatrixView<DeviceArray>, beta: number): void {
  const kernel = cachedKernel(dev, `tsm2-scale/${dtype}`, () => generateScale({ dtype }));
  const total = c.rows * c.cols;
  const blocks = Math.max(1, Math.min(dev.info.smCount * 8, Math.ceil(total / SCALE_THREADS)));
  kernel.launch({ grid: [blocks, 1, 1], block: [SCALE_THREADS, 1, 1] },
    [arg.i64(c.rows), arg.i64(c.cols), pointer(c, elementBytes(dtype)), arg.i64(c.ld), arg.real(dtype, beta)]);
}
