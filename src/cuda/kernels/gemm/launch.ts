/**
 * The batched GEMM launcher of the CUDA backend: takes a validated column-major request on
 * device arrays, describes each operand to the kernel (strided, or a pointer array uploaded once
 * per call for list and variable batches), plans, compiles through the runtime's cache, and
 * enqueues. Variable batches run as one launch per group of matrices that share m, n, k and
 * leading dimensions; the groups' pointer arrays are freed once, after the last launch.
 */
import { batchCount, type Batch } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import { byPrecision, dtypeInfo, isDType } from '../../../core/dtype-table.js';
import type { Uplo } from '../../../core/enums.js';
import { MyriadError } from '../../../core/errors.js';
import type { GemmRequest, Op } from '../../../core/ops.js';
import type { ComplexGemmRequest, ComplexOp } from '../../../core/op-specs.js';
import { arg, type DeviceArray, type GpuDevice, type Kernel, type KernelArg, type KernelSource, type LaunchConfig } from '../../runtime/types.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { groupMembers, memberAddresses, memberFields, type MemberFields } from '../common/members.js';
import { operandArgs } from '../common/operands.js';
import { elementBytes } from '../common/precision.js';
import { complexBytes, type Conjugations } from '../common/complex.js';
import { generateSmallGemm, smallGemmShape } from './generate-small.js';
import { generateMmaGemm, mmaGemmShape, MMA_DTYPE } from './generate-mma.js';
import { generateTiledGemm, tiledGemmShape } from './generate-tiled.js';
import { generateTmaGemm, tmaGemmShape, tmaOperandFits, tmaOperandMap, type TmaOperandLayout } from './generate-tma.js';
import type { GemmOperandLayouts, GemmParams, GemmVariant, MmaGemmParams, OperandLayout, TiledGemmParams, TmaGemmParams, TriangularOperand } from './params.js';
import { bandFor, mmaTriangleConfig, planGemm, tmaTakes, type GemmProblem } from './plan.js';
import { blocksPerSM } from '../../model/occupancy.js';
import { tmaRoutesFor, tuningFor, type GemmTuning, type TmaRoute } from '../../model/tuning/index.js';

export interface GemmCudaOptions {
  /**
   * Force a variant ('small' | 'tiled' | 'mma' | 'tma', parameters planned) or exact parameters.
   * 'tma' (or its parameters) where TMA cannot serve (not sm_90, not real float64, list batches,
   * operands not 16-byte aligned, k = 0, a triangle) runs what 'mma' would.
   */
  readonly variant?: GemmVariant | GemmParams;
  /** Plan with this tuning table instead of the device architecture's (benchmarks, tests). */
  readonly tuning?: GemmTuning;
  /**
   * Read and write only this triangle of C (m = n, diagonal included), one launch whose tiles
   * outside the triangle exit at once: how syrk updates a large C (tiled and mma designs only).
   */
  readonly triangle?: Uplo;
  /** Route single products to the TMA design by these instead of the card's table (tests, and trying a table before it is checked in). */
  readonly tmaRoutes?: readonly TmaRoute[];
  /**
   * op(A) is this triangle (its other triangle never read; ones on a unit diagonal) and C is B,
   * overwritten in place: trmm side left, C := alpha op(A) C, in one launch (the tile walk of
   * tile-prologue.ts): float64 on the tensor-core design (generate-mma.ts), float32 on the tiled one
   * (generate-tiled.ts). beta must be 0, A square, real data; a forced variant (name or
   * parameters) must be that design with bk dividing bm (`triangularTakes`), or the call is refused.
   */
  readonly triangularA?: TriangularOperand;
}

/** One operand as the kernel's four arguments see it, with its layout. */
interface GemmOperand {
  readonly layout: OperandLayout;
  readonly pointer: bigint;
  readonly offset: number;
  readonly stride: number;
  readonly ld: number;
}

/** grid.y and grid.z are limited to 65535 each: the batch index is z * gridDim.y + y. */
const GRID_YZ_MAX = 65535;

/** The generated source for a parameter object. */
export function gemmSource(p: GemmParams): KernelSource {
  return p.variant === 'small' ? generateSmallGemm(p) : p.variant === 'tiled' ? generateTiledGemm(p) : p.variant === 'tma' ? generateTmaGemm(p) : generateMmaGemm(p);
}

export function gemmCuda(dev: GpuDevice, r: GemmRequest<DeviceArray>, opts: GemmCudaOptions = {}): void {
  const count = batchCount(r.c);
  if (count === 0) return;
  const dtype = r.c.kind === 'strided' ? r.c.data.dtype : r.c.matrices[0]!.data.dtype;
  if (!isDType(dtype)) throw new MyriadError('DTYPE', `gemm needs float64 or float32, got ${dtype}`, 'c');
  if (r.a.kind === 'variable' || r.b.kind === 'variable' || r.c.kind === 'variable') {
    // Every group's pointer arrays freed after the last launch: one wait per call, not one per group.
    const uploads: DeviceArray[] = [];
    try {
      const a = memberFields(r.a), b = memberFields(r.b), c = memberFields(r.c);
      const k = r.transA === 'N' ? a.cols : a.rows;
      for (const members of groupMembers(count, [c.rows, c.cols, k, a.ld, b.ld, c.ld])) {
        launchPointerGroup(dev, r, dtype, { a, b, c, k, members }, opts, uploads);
      }
    } finally {
      releaseUploads(dev, uploads);
    }
    return;
  }
  const m = r.c.rows;
  const n = r.c.cols;
  const k = r.transA === 'N' ? r.a.cols : r.a.rows;
  const uploads: DeviceArray[] = [];
  try {
    const a = operandOf(dev, r.a, count, elementBytes(dtype), uploads);
    const b = operandOf(dev, r.b, count, elementBytes(dtype), uploads);
    const c = operandOf(dev, r.c, count, elementBytes(dtype), uploads);
    launchGemm(dev, { dtype, transA: r.transA, transB: r.transB, alpha: r.alpha, beta: r.beta, m, n, k, count }, a, b, c, opts);
  } finally {
    releaseUploads(dev, uploads);
  }
}

/**
 * Complex gemm (zgemm / cgemm) on interleaved pairs: the same designs over `real2` elements. The
 * device arrays hold the parts' dtype; the batches' rows, ld, stride and offset count pairs, as the
 * kernels' `real2` pointers do. op 'C' is the transpose with the operand conjugated in the
 * multiply-add. Variable batches are not taken (the router's `covers` leaves them to other routes).
 */
export function complexGemmCuda(dev: GpuDevice, r: ComplexGemmRequest<DeviceArray>, opts: GemmCudaOptions = {}): void {
  const count = batchCount(r.c);
  if (count === 0) return;
  if (r.a.kind === 'variable' || r.b.kind === 'variable' || r.c.kind === 'variable')
    throw new MyriadError('UNSUPPORTED', 'the complex gemm kernels take strided and list batches', 'c');
  const data = r.c.kind === 'strided' ? r.c.data : r.c.matrices[0]!.data;
  const dtype = data.dtype;
  if (!isDType(dtype)) throw new MyriadError('DTYPE', `complex gemm needs float64 or float32 device memory, got ${dtype}`, 'c');
  const transposed = (t: ComplexOp): Op => (t === 'N' ? 'N' : 'T');
  const complex: Conjugations = { conjA: r.transA === 'C', conjB: r.transB === 'C' };
  const m = r.c.rows;
  const n = r.c.cols;
  const k = r.transA === 'N' ? r.a.cols : r.a.rows;
  const bytes = complexBytes(dtype);
  const uploads: DeviceArray[] = [];
  try {
    const a = operandOf(dev, r.a, count, bytes, uploads);
    const b = operandOf(dev, r.b, count, bytes, uploads);
    const c = operandOf(dev, r.c, count, bytes, uploads);
    const [alpha, alphaIm] = r.alpha;
    const [beta, betaIm] = r.beta;
    launchGemm(dev, { dtype, transA: transposed(r.transA), transB: transposed(r.transB), alpha, beta, alphaIm, betaIm, complex, m, n, k, count }, a, b, c, opts);
  } finally {
    releaseUploads(dev, uploads);
  }
}

/** The planner's choice per device and problem (planning is pure; repeated calls skip it). */
function plannedFor(dev: GpuDevice, p: GemmProblem): GemmParams {
  const l = p.layouts!;
  // Everything but the sizes in one small integer: a short key, cheap to build and hash.
  const layout = (o: OperandLayout, at: number): number => ((o.kind === 'strided' ? 1 : 0) | (o.dense ? 2 : 0)) << at;
  const flags = (p.transA === 'T' ? 2 : 0) | (p.transB === 'T' ? 4 : 0) | (p.betaZero ? 8 : 0) |
    (p.batchKind === 'strided' ? 16 : p.batchKind === 'list' ? 32 : 48) | layout(l.a, 6) | layout(l.b, 8) | layout(l.c, 10) |
    (p.tmaFits === true ? 4096 : 0);
  const conj = p.complex === undefined ? '' : `c${(p.complex.conjA ? 1 : 0) | (p.complex.conjB ? 2 : 0)}`;
  const key = `gemm${dtypeInfo(p.dtype).letter}${conj}${flags}/${p.m},${p.n},${p.k},${p.count}`;
  return plannedOnce(dev, key, () => planGemm(dev.info, p, {}));
}

interface GemmScalars {
  dtype: DType; transA: Op; transB: Op; alpha: number; beta: number; m: number; n: number; k: number; count: number;
  /** Complex data: the imaginary parts of alpha and beta, and the conjugated operands. */
  alphaIm?: number; betaIm?: number; complex?: Conjugations;
}

function launchGemm(dev: GpuDevice, s: GemmScalars, a: GemmOperand, b: GemmOperand, c: GemmOperand, opts: GemmCudaOptions): void {
  if (s.m === 0 || s.n === 0) return;
  const alphaIm = s.alphaIm ?? 0;
  const betaIm = s.betaIm ?? 0;
  // BLAS: alpha = 0 (or k = 0) never reads A or B; with beta = 1 nothing changes at all.
  const k = s.alpha === 0 && alphaIm === 0 ? 0 : s.k;
  if (k === 0 && s.beta === 1 && betaIm === 0) return;
  const layouts: GemmOperandLayouts = { a: a.layout, b: b.layout, c: c.layout };
  let problem: GemmProblem = {
    dtype: s.dtype, transA: s.transA, transB: s.transB, m: s.m, n: s.n, k, count: s.count,
    batchKind: a.layout.kind === 'strided' ? 'strided' : 'list', betaZero: s.beta === 0 && betaIm === 0, layouts,
    ...(s.complex === undefined ? {} : { complex: s.complex }),
  };
  const forced = opts.variant;
  const tmaAsked = forced === 'tma' || (typeof forced === 'object' && forced.variant === 'tma');
  // The card's TMA routes take single real float64 products (plan.ts tmaRouted): they need the alignment too.
  const routes = opts.tmaRoutes ?? tmaRoutesFor(dev.info.name);
  const tmaRoutable = forced === undefined && s.count === 1 && s.complex === undefined && s.dtype === MMA_DTYPE && routes.length > 0;
  if ((tmaAsked || tmaRoutable) && opts.triangle === undefined && opts.triangularA === undefined) problem = { ...problem, tmaFits: tmaFits(dev, s, k, a, b) };
  const planned: GemmParams = typeof forced === 'object'
    ? (forced.variant === 'tma' && (opts.triangle !== undefined || !tmaTakes(dev.info, problem)) ? planGemm(dev.info, problem, { variant: 'tma', tuning: opts.tuning }) : forced)
    : opts.tuning === undefined && forced === undefined && opts.tmaRoutes === undefined
      ? plannedFor(dev, problem)
      : planGemm(dev.info, problem, { variant: k === 0 && forced === 'small' ? 'tiled' : forced, tuning: opts.tuning, tmaRoutes: opts.tmaRoutes });
  // A triangular op(A): the planner's choice, or its precision's design where the planner chose another; a forced one must be that design.
  const params = opts.triangularA !== undefined
    ? triangularParams(problem, forced !== undefined || triangularTakes(planned) ? planned : planGemm(dev.info, problem, { variant: triangularVariant(problem.dtype), tuning: opts.tuning }), opts.triangularA)
    : opts.triangle === undefined ? planned : triangleParams(dev, problem, planned, opts.triangle, typeof forced === 'object' ? 'forced' : opts.tuning);
  const kernel = kernelFor(dev, 'gemm', params, () => gemmSource(params));
  if (params.variant === 'tma') {
    launchTma(dev, kernel, params, { ...s, k }, a, b, c);
    return;
  }
  // The mma kernel on complex data multiplies the real embedding: C (2m x n) and B (2k x n) as
  // doubles, so every length in pairs is twice as many doubles (generate-mma.ts).
  const embedded = params.variant === 'mma' && params.complex !== undefined;
  const operands = embedded ? [a, b, c].map(asDoubles) : [a, b, c];
  const m = embedded ? 2 * s.m : s.m;
  const args: KernelArg[] = [
    ...operands.flatMap(operandArgs),
    arg.i32(s.count),
    ...(s.complex === undefined
      ? [arg.real(s.dtype, s.alpha), arg.real(s.dtype, s.beta)]
      : [arg.real(s.dtype, s.alpha), arg.real(s.dtype, alphaIm), arg.real(s.dtype, s.beta), arg.real(s.dtype, betaIm)]),
  ];
  let config: LaunchConfig;
  if (params.variant === 'small') {
    const shape = smallGemmShape(params);
    config = { grid: [Math.ceil(s.count / params.tbc), 1, 1], block: [shape.threads, 1, 1] };
  } else {
    const shape = params.variant === 'tiled' ? tiledGemmShape(params) : mmaGemmShape(params);
    // A triangular op(A): a block per column panel of C, which walks the panel's row tiles itself.
    const tiles = (params.triangularA !== undefined ? 1 : Math.ceil(m / params.bm)) * Math.ceil(s.n / params.bn);
    const y = Math.min(s.count, GRID_YZ_MAX);
    config = { grid: [tiles, y, Math.ceil(s.count / y)], block: [shape.threads, 1, 1], sharedBytes: shape.sharedBytes };
    args.push(arg.i32(m), arg.i32(s.n), arg.i32(embedded ? 2 * k : k));
  }
  kernel.launch(config, args);
}

/** The stored rows and columns of A and B (op N: as op(X); op T: transposed), with ld and stride. */
function storedLayouts(s: GemmScalars, k: number, a: GemmOperand, b: GemmOperand): { a: TmaOperandLayout; b: TmaOperandLayout } {
  const [ar, ac] = s.transA === 'N' ? [s.m, k] : [k, s.m];
  const [br, bc] = s.transB === 'N' ? [k, s.n] : [s.n, k];
  return { a: { rows: ar, cols: ac, ld: a.ld, stride: a.stride }, b: { rows: br, cols: bc, ld: b.ld, stride: b.stride } };
}

const firstAddress = (o: GemmOperand): bigint => o.pointer + BigInt(o.offset) * 8n;

/** Whether the device encodes tensor maps and A and B may be read through them (generate-tma.ts tmaOperandFits). */
function tmaFits(dev: GpuDevice, s: GemmScalars, k: number, a: GemmOperand, b: GemmOperand): boolean {
  if (dev.tensorMap === undefined || a.layout.kind !== 'strided' || b.layout.kind !== 'strided' || k < 1) return false;
  const stored = storedLayouts(s, k, a, b);
  return tmaOperandFits(firstAddress(a), stored.a, s.count) && tmaOperandFits(firstAddress(b), stored.b, s.count);
}

/**
 * The TMA design's launch: A's and B's tensor maps encoded for this call (host work, a few
 * microseconds each), passed by value; C as the other designs take it.
 */
function launchTma(dev: GpuDevice, kernel: Kernel, p: TmaGemmParams, s: GemmScalars, a: GemmOperand, b: GemmOperand, c: GemmOperand): void {
  const encode = dev.tensorMap;
  if (encode === undefined) throw new MyriadError('UNSUPPORTED', 'the tma gemm kernel needs a driver that encodes tensor maps', 'variant');
  const stored = storedLayouts(s, s.k, a, b);
  const map = (which: 'a' | 'b', o: GemmOperand): Uint8Array => {
    const d = tmaOperandMap(p, which, stored[which], s.count);
    return encode({ dataType: 'float64', address: firstAddress(o), dims: d.dims, strides: d.strides, box: d.box, swizzleBytes: 128 });
  };
  const shape = tmaGemmShape(p);
  const tiles = Math.ceil(s.m / p.bm) * Math.ceil(s.n / p.bn);
  const y = Math.min(s.count, GRID_YZ_MAX);
  // A persistent grid: as many blocks as the GPU holds at once (the kernel's registers as compiled), at most one per item.
  const resident = (): number => dev.info.smCount * Math.max(1, blocksPerSM(dev.info, { threads: shape.threads, registersPerThread: kernel.registers, sharedBytes: shape.sharedBytes }));
  const grid: [number, number, number] = p.persistent === true ? [Math.min(tiles * s.count, resident()), 1, 1] : [tiles, y, Math.ceil(s.count / y)];
  kernel.launch(
    { grid, block: [shape.threads, 1, 1], sharedBytes: shape.sharedBytes },
    [arg.bytes(map('a', a)), arg.bytes(map('b', b)), ...operandArgs(c), arg.i32(s.count), arg.f64(s.alpha), arg.f64(s.beta), arg.i32(s.m), arg.i32(s.n), arg.i32(s.k)],
  );
}

/** An operand of pairs seen as doubles: offset, stride and ld twice as long (pointer tables hold byte addresses: unchanged). */
function asDoubles(o: GemmOperand): GemmOperand {
  return { ...o, offset: 2 * o.offset, stride: 2 * o.stride, ld: 2 * o.ld };
}

/** Triangle variants of planned parameter objects (plannedFor returns the same object for a problem). */
const triangleVariants = new WeakMap<GemmParams, { lower?: GemmParams; upper?: GemmParams }>();

/**
 * The plan's parameters restricted to one triangle of C, made once per plan object, so a hot call
 * finds the kernel by its parameter object; the small design has no tiles to skip: the tiled one serves.
 * The table's triangle bands (`tuning`, else the card's) replace an mma plan's tiles, unless the parameters were forced.
 */
function triangleParams(dev: GpuDevice, problem: GemmProblem, planned: GemmParams, triangle: Uplo, tuning: GemmTuning | 'forced' | undefined): GemmParams {
  if (problem.m !== problem.n) throw new MyriadError('INVALID_ARGUMENT', `a triangle of C needs m = n, got ${problem.m} x ${problem.n}`, 'c');
  let variants = triangleVariants.get(planned);
  if (variants === undefined) triangleVariants.set(planned, (variants = {}));
  return (variants[triangle] ??= triangleVariant(dev, problem, planned, tuning, triangle));
}

function triangleVariant(dev: GpuDevice, problem: GemmProblem, planned: GemmParams, tuning: GemmTuning | 'forced' | undefined, triangle: Uplo): GemmParams {
  // The small design has no tiles to skip, and the complex mma one no triangle: the tiled one serves.
  if (planned.variant === 'small' || (planned.variant === 'mma' && planned.complex !== undefined)) return { ...planGemm(dev.info, problem, { variant: 'tiled' }), triangle };
  const table = tuning === 'forced' ? undefined : tuning ?? tuningFor(dev.info.arch, 'gemm');
  // The tiled design's tiles by padding were measured on whole squares: a triangle keeps the bands
  // (a larger tile covers more of C outside the triangle: float32 syrk 48 took 0.871 ms on 64 x 64
  // tiles against 0.788 on the band's 32 x 32, H200).
  if (planned.variant === 'tiled' && planned.complex === undefined && table !== undefined) {
    return { ...planned, ...bandFor(table.tiled[planned.dtype], Math.max(problem.m, problem.n)).config, triangle };
  }
  const band = planned.variant === 'mma' && table !== undefined ? mmaTriangleConfig(problem, table) : undefined;
  if (planned.variant !== 'mma' || band === undefined) return { ...planned, triangle };
  const { variant, dtype, transA, transB, betaZero, layouts } = planned;
  return { variant, dtype, transA, transB, betaZero, layouts, ...band, triangle };
}

/** Triangular variants of planned parameter objects, made once per plan object and triangle (as triangleVariants). */
const triangularVariants = new WeakMap<GemmParams, Map<string, TriangularParams>>();

/** The designs that take a triangular op(A). */
type TriangularParams = MmaGemmParams | TiledGemmParams;

/** The design of a triangular op(A) by precision: float64 the tensor cores, float32 the CUDA cores (exact: no TF32). */
const triangularVariant = (dtype: DType): TriangularParams['variant'] => byPrecision(dtype, { double: 'mma', single: 'tiled' });

/**
 * Whether a product of this plan runs with a triangular op(A): real data on its precision's design
 * (the mma kernel's plain pipeline, its fragments double-buffered or not; the tiled kernel), whole C,
 * k-steps that end on a tile's diagonal (bk divides bm).
 */
function triangularTakes(params: GemmParams): params is TriangularParams {
  return params.variant === triangularVariant(params.dtype) && (params.variant === 'mma' || params.variant === 'tiled')
    && params.complex === undefined && params.triangle === undefined && params.bm % params.bk === 0;
}

/** A kernel's design and, where it has them, its tile's bm and bk (for messages). */
const kernelName = (p: GemmParams): string => `the ${p.variant} kernel${p.variant === 'mma' || p.variant === 'tiled' ? ` of bm ${p.bm}, bk ${p.bk}` : ''}`;

/** The plan's parameters with op(A) triangular (the mma kernel without tile groups or double-buffered fragments). */
function triangularParams(problem: GemmProblem, planned: GemmParams, tri: TriangularOperand): TriangularParams {
  if (problem.m !== problem.k) throw new MyriadError('INVALID_ARGUMENT', `a triangular op(A) needs m = k, got ${problem.m} x ${problem.k}`, 'a');
  if (!problem.betaZero) throw new MyriadError('INVALID_ARGUMENT', 'a triangular op(A) overwrites C in place: beta must be 0', 'beta');
  if (problem.complex !== undefined) throw new MyriadError('UNSUPPORTED', `a triangular op(A) takes real data, got complex ${problem.dtype}`, 'a');
  const variant = triangularVariant(problem.dtype);
  if (!triangularTakes(planned)) {
    throw new MyriadError('UNSUPPORTED', `a triangular op(A) of ${problem.dtype} runs on the ${variant} kernel with bk dividing bm, not ${kernelName(planned)}`, 'variant');
  }
  let variants = triangularVariants.get(planned);
  if (variants === undefined) triangularVariants.set(planned, (variants = new Map()));
  const key = `${tri.lower ? 'l' : 'u'}${tri.unit ? 'u' : 'n'}`;
  let params = variants.get(key);
  if (params === undefined) {
    if (planned.variant === 'mma') {
      const { tileGroup: _tileGroup, doubleBuffer: _doubleBuffer, ...plain } = planned;
      params = { ...plain, triangularA: tri };
    } else params = { ...planned, triangularA: tri };
    variants.set(key, params);
  }
  return params;
}

/** Strided batches pass through; list batches become a pointer array (offsets folded in). */
/** `elementBytes`: of one element as the batch counts them (a complex pair: both parts). */
function operandOf(dev: GpuDevice, b: Batch<DeviceArray>, count: number, elementBytes: number, uploads: DeviceArray[]): GemmOperand {
  if (b.kind === 'strided') {
    // Dense: consecutive matrices are one contiguous span (a single matrix always is).
    const dense = b.ld === b.rows && (b.stride === b.rows * b.cols || count === 1);
    return { layout: { kind: 'strided', dense }, pointer: b.data.ptr, offset: b.offset, stride: b.stride, ld: b.ld };
  }
  const f = memberFields(b);
  return pointerOperand(dev, f, Array.from({ length: count }, (_, i) => i), elementBytes, uploads);
}

/** `bytes`: of one element as the batch counts them (a complex pair: both parts). */
function pointerOperand(dev: GpuDevice, f: MemberFields, members: readonly number[], bytes: number, uploads: DeviceArray[]): GemmOperand {
  const table = dev.upload(memberAddresses(f, members, bytes));
  uploads.push(table);
  return { layout: { kind: 'pointer', dense: false }, pointer: table.ptr, offset: 0, stride: 0, ld: f.ld[members[0]!]! };
}

/** Pointer arrays live until the kernels that read them have run. */
function releaseUploads(dev: GpuDevice, uploads: DeviceArray[]): void {
  if (uploads.length === 0) return;
  dev.synchronize();
  for (const u of uploads) u.dispose();
}

/** Members of one (m, n, k, lda, ldb, ldc), and the operands' fields. */
interface ShapeGroup {
  readonly a: MemberFields; readonly b: MemberFields; readonly c: MemberFields;
  readonly k: Int32Array;
  readonly members: readonly number[];
}

function launchPointerGroup(dev: GpuDevice, r: GemmRequest<DeviceArray>, dtype: DType, g: ShapeGroup, opts: GemmCudaOptions, uploads: DeviceArray[]): void {
  const first = g.members[0]!;
  const m = g.c.rows[first]!, n = g.c.cols[first]!;
  if (m === 0 || n === 0) return;
  const a = pointerOperand(dev, g.a, g.members, elementBytes(dtype), uploads);
  const b = pointerOperand(dev, g.b, g.members, elementBytes(dtype), uploads);
  const c = pointerOperand(dev, g.c, g.members, elementBytes(dtype), uploads);
  const s = { dtype, transA: r.transA, transB: r.transB, alpha: r.alpha, beta: r.beta, m, n, k: g.k[first]!, count: g.members.length };
  // A forced parameter object fixes m, n, k for the small kernel: only a variant name carries over.
  launchGemm(dev, s, a, b, c, typeof opts.variant === 'object' ? { tuning: opts.tuning } : opts);
}
