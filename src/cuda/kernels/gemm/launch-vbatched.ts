/**
 * The variable-size batched GEMM launcher: one launch per size class (plan-vbatched.ts), the
 * members' pointers and sizes in two device tables uploaded once per call; members beyond the
 * largest class go to the per-size path (gemmCuda, one launch per distinct shape).
 */
import { batchCount, type Batch, type VariableBatch } from '../../../core/batch.js';
import { isDType } from '../../../core/dtype-table.js';
import { MyriadError } from '../../../core/errors.js';
import type { DType } from '../../../core/dtype.js';
import type { GemmRequest, Op } from '../../../core/ops.js';
import { tuningFor, type GemmTuning } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice, type KernelArg, type KernelSource, type LaunchConfig } from '../../runtime/types.js';
import { kernelFor } from '../common/kernel-cache.js';
import { deviceDtype } from '../common/operands.js';
import { elementBytes } from '../common/precision.js';
import { HostScratch, type HostFrame } from '../common/host-scratch.js';
import { addressWords, int32s, memberFields, memberView, putAddress, type MemberFields } from '../common/members.js';
import { NO_WORK, releaseMemberTables, uploadMemberTables } from '../common/vbatch.js';
import { driverSection } from '../common/driver-section.js';
import {
  GEMM_VBATCH_INTS, GEMM_VBATCH_POINTERS, classTiles, generateVmmaGemm, generateVsmallGemm, generateVtiledGemm, vmmaGemmShape, vsmallGemmShape, vtiledGemmShape,
} from './generate-vbatched.js';
import { generateVstagedGemm, vstagedGemmShape } from './generate-vstaged.js';
import { gemmCuda } from './launch.js';
import type { VbatchedGemmParams } from './params.js';
import { gemmMemberSize, planVbatchedGemmSizes, type VbatchedGemmPlan } from './plan-vbatched.js';

/** grid.y and grid.z are limited to 65535 each: the member index is z * gridDim.y + y. */
const GRID_YZ_MAX = 65535;

export interface GemmVbatchedOptions {
  /** Plan with this tuning table instead of the device architecture's. */
  readonly tuning?: GemmTuning;
  /** Called with the plan before anything is launched (tests, benchmarks). */
  readonly onPlan?: (plan: VbatchedGemmPlan) => void;
}

/** The generated source of a class kernel. */
export function vbatchedGemmSource(p: VbatchedGemmParams): KernelSource {
  switch (p.variant) {
    case 'vstaged': return generateVstagedGemm(p);
    case 'vsmall': return generateVsmallGemm(p);
    case 'vmma': return generateVmmaGemm(p);
    case 'vtiled': return generateVtiledGemm(p);
  }
}

/** The launch of a class kernel over `n` members (grid x: the members' blocks, or the class's tiles with y, z the members). */
export function vbatchedGemmLaunch(p: VbatchedGemmParams, n: number): LaunchConfig {
  if (p.variant === 'vstaged') return { grid: [Math.ceil(n / p.members), 1, 1], block: [vstagedGemmShape(p).threads, 1, 1] };
  if (p.variant === 'vsmall') return { grid: [Math.ceil(n / p.tbc), 1, 1], block: [vsmallGemmShape(p).threads, 1, 1] };
  const shape = p.variant === 'vmma' ? vmmaGemmShape(p) : vtiledGemmShape(p);
  const y = Math.min(n, GRID_YZ_MAX);
  return { grid: [classTiles(p), y, Math.ceil(n / y)], block: [shape.threads, 1, 1], sharedBytes: shape.sharedBytes };
}

export function gemmVbatchedCuda(dev: GpuDevice, r: GemmRequest<DeviceArray>, opts: GemmVbatchedOptions = {}): void {
  const count = batchCount(r.c);
  if (count === 0) return;
  const dtype = deviceDtype(r.c);
  if (!isDType(dtype)) throw new MyriadError('DTYPE', `gemm needs float64 or float32, got ${dtype}`, 'c');
  // Flat per-member fields and one typed array of sizes: a call of 200,000 members makes no object per member.
  const frame = HostScratch.of(dev).frame();
  try {
    gemmVbatchedFields(dev, { dtype, transA: r.transA, transB: r.transB, alpha: r.alpha, beta: r.beta }, memberFields(r.a, frame), memberFields(r.b, frame), memberFields(r.c, frame), opts);
  } finally {
    frame.end();
  }
}

/** A variable-size GEMM's scalars: the element type, the transposes, alpha and beta. */
export interface VbatchedGemmScalars {
  readonly dtype: DType;
  readonly transA: Op;
  readonly transB: Op;
  readonly alpha: number;
  readonly beta: number;
}

/**
 * gemmVbatchedCuda on operands already in flat fields (common/members.ts), one member each of
 * a, b and c per index: for a composition that makes its GEMMs' members itself (trsm's updates
 * cut each member's blocks), with no view object per member.
 */
export function gemmVbatchedFields(dev: GpuDevice, r: VbatchedGemmScalars, a: MemberFields, b: MemberFields, c: MemberFields, opts: GemmVbatchedOptions = {}): void {
  const count = c.count;
  if (count === 0) return;
  const frame = HostScratch.of(dev).frame();
  try {
    gemmClassesAndLarge(dev, r, a, b, c, frame, opts);
  } finally {
    frame.end();
  }
}

/** gemmVbatchedFields with its scratch arrays (k, sizes, tables) from `frame`. */
function gemmClassesAndLarge(dev: GpuDevice, r: VbatchedGemmScalars, a: MemberFields, b: MemberFields, c: MemberFields, frame: HostFrame, opts: GemmVbatchedOptions): void {
  const dtype = r.dtype;
  // The k each member runs: 0 where alpha = 0 (BLAS then reads neither A nor B).
  const k = r.alpha === 0 ? frame.zeroedInt32(c.count) : r.transA === 'N' ? a.cols : a.rows;
  const sizes = memberSizes(c.rows, c.cols, k, r.beta, frame);
  const common = { dtype, transA: r.transA, transB: r.transB, alpha: r.alpha, beta: r.beta };
  // The plan's arrays from the frame, unless onPlan may keep the plan beyond the call (trsm's and
  // syrk's updates plan a GEMM per step: fresh arrays there cost more than the planning).
  const plan = planVbatchedGemmSizes(common, sizes, opts.tuning ?? tuningFor(dev.info.arch, 'gemm'), opts.onPlan === undefined ? frame : undefined);
  opts.onPlan?.(plan);
  if (plan.launches.length > 0) {
    const tables = gemmMemberTables(plan, a, b, c, k, elementBytes(dtype), frame);
    const uploaded = uploadMemberTables(dev, tables.pointers, GEMM_VBATCH_POINTERS, tables.ints, GEMM_VBATCH_INTS);
    try {
      let first = 0;
      for (const l of plan.launches) {
        const at = uploaded.at(first);
        first += l.members.length;
        const p = l.params;
        const kernel = kernelFor(dev, `gemm-${p.variant}`, p, () => vbatchedGemmSource(p));
        const n = l.members.length;
        const args: KernelArg[] = [arg.ptr(at.pointers), arg.ptr(at.ints), arg.i32(n), arg.real(dtype, r.alpha), arg.real(dtype, r.beta)];
        kernel.launch(vbatchedGemmLaunch(p, n), args);
      }
    } finally {
      releaseMemberTables(dev, uploaded);
    }
  }
  if (plan.large.length > 0) {
    const pick = (f: MemberFields): VariableBatch<DeviceArray> => ({ kind: 'variable', order: 'col', matrices: plan.large.map((i) => memberView(f, i)) });
    driverSection(dev, () => gemmCuda(dev, { transA: r.transA, transB: r.transB, alpha: r.alpha, beta: r.beta, a: pick(a), b: pick(b), c: pick(c) }));
  }
}

/** Each member's gemmMemberSize (NO_WORK where it has nothing to do), its loop alone in a function (no code after it that never ran). */
function memberSizes(m: Int32Array, n: Int32Array, k: Int32Array, beta: number, frame: HostFrame): Int32Array {
  const sizes = frame.int32(m.length);
  for (let i = 0; i < m.length; i++) sizes[i] = gemmMemberSize(m[i]!, n[i]!, k[i]!, beta) ?? NO_WORK;
  return sizes;
}

/**
 * The two tables of a plan's members, in launch order: pointers A, B, C (offsets folded in) and
 * ints m, n, k (`k`: the k each member runs, 0 where alpha = 0), ldA, ldB, ldC per member (generate-vbatched.ts reads them).
 * Every entry is written. `frame`: the tables come from it (valid until it ends); absent, fresh arrays.
 */
export function gemmMemberTables(plan: VbatchedGemmPlan, a: MemberFields, b: MemberFields, c: MemberFields, k: Int32Array, bytes: number, frame?: HostFrame): { pointers: BigInt64Array; ints: Int32Array } {
  const members = plan.order.length, place = plan.place;
  const pointers = frame === undefined ? new BigInt64Array(members * GEMM_VBATCH_POINTERS) : frame.bigint64(members * GEMM_VBATCH_POINTERS);
  const ints = int32s(members * GEMM_VBATCH_INTS, frame);
  fillGemmTables(place, pointers, addressWords(pointers), ints, a, b, c, k, bytes);
  return { pointers, ints };
}

/** gemmMemberTables' loop, alone in its function: code after a loop of 200,000 members has no type feedback when the loop is first optimised, and threw that code away on every call. */
function fillGemmTables(place: Int32Array, pointers: BigInt64Array, words: Uint32Array, ints: Int32Array, a: MemberFields, b: MemberFields, c: MemberFields, k: Int32Array, bytes: number): void {
  // Batch order, each member's row written at its place: the fields are read in sequence.
  const m = c.rows, n = c.cols, lda = a.ld, ldb = b.ld, ldc = c.ld;
  for (let i = 0; i < place.length; i++) {
    const q = place[i]!;
    if (q < 0) continue;
    const p = q * GEMM_VBATCH_POINTERS, t = q * GEMM_VBATCH_INTS;
    putAddress(pointers, words, p, a, i, bytes);
    putAddress(pointers, words, p + 1, b, i, bytes);
    putAddress(pointers, words, p + 2, c, i, bytes);
    ints[t] = m[i]!; ints[t + 1] = n[i]!; ints[t + 2] = k[i]!;
    ints[t + 3] = lda[i]!; ints[t + 4] = ldb[i]!; ints[t + 5] = ldc[i]!;
  }
}

/** A field of member i of a batch (a strided or list batch's shape is the batch's). */
const shapeField = (x: Batch<DeviceArray>, f: 'rows' | 'cols' | 'ld', i: number): number => (x.kind === 'variable' ? x.matrices[i]![f] : x[f]);

/** Whether a request is a variable batch of more than one shape (the class kernels' case; one shape keeps the uniform kernels). */
export function gemmVbatchedCovers(r: GemmRequest<DeviceArray>): boolean {
  if (r.a.kind !== 'variable' && r.b.kind !== 'variable' && r.c.kind !== 'variable') return false;
  const count = batchCount(r.c);
  if (count < 2) return false;
  // Compared field by field, no key string per member: m, n, k and the three leading dimensions.
  const kField = r.transA === 'N' ? 'cols' : 'rows';
  const m0 = shapeField(r.c, 'rows', 0), n0 = shapeField(r.c, 'cols', 0), k0 = shapeField(r.a, kField, 0);
  const la0 = shapeField(r.a, 'ld', 0), lb0 = shapeField(r.b, 'ld', 0), lc0 = shapeField(r.c, 'ld', 0);
  for (let i = 1; i < count; i++) {
    if (shapeField(r.c, 'rows', i) !== m0 || shapeField(r.c, 'cols', i) !== n0 || shapeField(r.a, kField, i) !== k0
      || shapeField(r.a, 'ld', i) !== la0 || shapeField(r.b, 'ld', i) !== lb0 || shapeField(r.c, 'ld', i) !== lc0) return true;
  }
  return false;
}
