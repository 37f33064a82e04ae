/**
 * The variable-size batched syrk launcher: per size class of C's order (plan-vbatched.ts) one launch
 * of the class kernel per leaf size of the class's recursion (one per class with the table's
 * leaves: they are all of one size), then every class's off-diagonal blocks in one variable-size
 * GEMM through the gemm family's face (gemmVbatchedFields: a launch per GEMM size class); the
 * members' pointers and sizes in two device tables uploaded once per call. Members beyond the
 * largest class go to the per-size path (syrkCuda: for n >= 32 one GEMM over C's triangle a shape).
 * The other triangle of C is never written. alpha = 0: k counts as 0 (A is never read; C := beta C
 * on the triangle); members with nothing to do (n = 0, or k = 0 with beta = 1) are left out.
 */
import { batchCount, type VariableBatch } from '../../../core/batch.js';
import { isDType } from '../../../core/dtype-table.js';
import { MyriadError } from '../../../core/errors.js';
import type { SyrkRequest } from '../../../core/ops.js';
import { tuningFor, type SyrkTuning } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice, type LaunchConfig } from '../../runtime/types.js';
import { driverSection } from '../common/driver-section.js';
import { HostScratch, type HostFrame } from '../common/host-scratch.js';
import { kernelFor } from '../common/kernel-cache.js';
import { addressWords, fieldValues, int32s, memberFields, memberView, pairKeys, putAddress, severalShapesIn, type MemberFields } from '../common/members.js';
import { deviceDtype, sharedLimit } from '../common/operands.js';
import { elementBytes } from '../common/precision.js';
import { classPathPaysIn, releaseMemberTables, uploadMemberTables } from '../common/vbatch.js';
import { gemmVbatchedFields } from '../gemm/index.js';
import { SYRK_VBATCH_INTS, SYRK_VBATCH_POINTERS, syrkVbatchedLeafSource } from './generate-vbatched.js';
import { syrkCuda } from './launch.js';
import type { Span, SyrkLeafShape } from './params.js';
import { offdiagSpansOf, offdiagTransposes, opBlock, planVbatchedSyrk, type BlockCut, type VbatchedSyrkForce, type VbatchedSyrkPlan } from './plan-vbatched.js';

export interface SyrkVbatchedOptions {
  readonly tuning?: SyrkTuning;
  /** A leaf size or chunk instead of the table's (tests). */
  readonly force?: VbatchedSyrkForce;
  /** Called with the plan before anything is launched (tests, benchmarks). */
  readonly onPlan?: (plan: VbatchedSyrkPlan) => void;
}

/** The launch of a class kernel's leaf step (`blocks` diagonal blocks) over `n` members. */
export function vbatchedSyrkLaunch(shape: SyrkLeafShape, n: number, blocks: number): LaunchConfig {
  return { grid: [Math.ceil(n / shape.matrices), blocks, 1], block: [shape.side, shape.side, shape.matrices], sharedBytes: shape.sharedBytes };
}

export function syrkVbatchedCuda(dev: GpuDevice, r: SyrkRequest<DeviceArray>, opts: SyrkVbatchedOptions = {}): void {
  const count = batchCount(r.c);
  if (count === 0) return;
  const dtype = deviceDtype(r.c);
  if (!isDType(dtype)) throw new MyriadError('DTYPE', `syrk's class path needs float64 or float32, got ${dtype}`, 'c');
  // Flat per-member fields: a call of 200,000 members makes no object per member.
  const frame = HostScratch.of(dev).frame();
  try {
    const fa = memberFields(r.a, frame), fc = memberFields(r.c, frame);
    const n = fc.rows;
    // The k each member runs: 0 where alpha = 0 (BLAS then never reads A).
    const k = r.alpha === 0 ? frame.zeroedInt32(count) : r.trans === 'N' ? fa.cols : fa.rows;
    const tuning = opts.tuning ?? tuningFor(dev.info.arch, 'syrk');
    // The plan's arrays from the frame, unless onPlan may keep the plan beyond the call.
    const plan = planVbatchedSyrk({ dtype, uplo: r.uplo, trans: r.trans, beta: r.beta, members: { n, k }, sharedLimit: sharedLimit(dev) }, tuning, opts.force, opts.onPlan === undefined ? frame : undefined);
    opts.onPlan?.(plan);
    if (plan.launches.length > 0) runClasses(dev, r, plan, fa, fc, k, frame);
    if (plan.large.length > 0) {
      const pick = (f: MemberFields): VariableBatch<DeviceArray> => ({ kind: 'variable', order: 'col', matrices: plan.large.map((i) => memberView(f, i)) });
      driverSection(dev, () => syrkCuda(dev, { ...r, a: pick(fa), c: pick(fc) }));
    }
  } finally {
    frame.end();
  }
}

/** The class launches (leaves) and the one GEMM of every class's off-diagonal blocks. */
function runClasses(dev: GpuDevice, r: SyrkRequest<DeviceArray>, plan: VbatchedSyrkPlan, fa: MemberFields, fc: MemberFields, k: Int32Array, frame: HostFrame): void {
  const dtype = deviceDtype(r.c);
  const tables = syrkMemberTables(plan, fa, fc, k, elementBytes(dtype), frame);
  const uploaded = uploadMemberTables(dev, tables.pointers, SYRK_VBATCH_POINTERS, tables.ints, SYRK_VBATCH_INTS);
  try {
    let first = 0;
    for (const l of plan.launches) {
      const at = uploaded.at(first);
      first += l.members.length;
      for (const step of l.steps) {
        if (step.kind !== 'leaf') continue;
        const { params, shape } = l.leaves.get(step.size)!;
        const kernel = kernelFor(dev, 'syrk-vleaf', params, () => syrkVbatchedLeafSource(params));
        kernel.launch(vbatchedSyrkLaunch(shape, l.members.length, step.blocks), [
          arg.ptr(at.pointers), arg.ptr(at.ints), arg.i32(l.members.length), arg.i32(step.off), arg.i32(step.size),
          arg.real(dtype, r.alpha), arg.real(dtype, r.beta),
        ]);
      }
    }
    const blocks = offdiagFields(plan, r.trans, fa, fc, k, frame);
    if (blocks !== undefined) gemmVbatchedFields(dev, { dtype, ...offdiagTransposes(r.trans), alpha: r.alpha, beta: r.beta }, blocks.a, blocks.b, blocks.c);
  } finally {
    releaseMemberTables(dev, uploaded);
  }
}

/**
 * The two tables of a plan's members, in launch order: pointers A, C (offsets folded in) and ints
 * n, k (`k`: the k each member runs, 0 where alpha = 0), ldA, ldC per member (generate-vbatched.ts
 * reads them), written in batch order, each member's row at its place. `frame`: the tables come
 * from it (valid until it ends); absent, fresh arrays.
 */
export function syrkMemberTables(
  plan: Pick<VbatchedSyrkPlan, 'order' | 'place'>, fa: MemberFields, fc: MemberFields, k: ArrayLike<number>, bytes: number, frame?: HostFrame,
): { pointers: BigInt64Array; ints: Int32Array } {
  const members = plan.order.length, place = plan.place;
  const pointers = frame === undefined ? new BigInt64Array(members * SYRK_VBATCH_POINTERS) : frame.bigint64(members * SYRK_VBATCH_POINTERS);
  const ints = int32s(members * SYRK_VBATCH_INTS, frame);
  fillSyrkTables(place, pointers, addressWords(pointers), ints, fa, fc, k, bytes);
  return { pointers, ints };
}

/** syrkMemberTables' loop, alone in its function: code after a loop of 200,000 members has no type feedback when the loop is first optimised, and threw that code away on every call. */
function fillSyrkTables(place: Int32Array, pointers: BigInt64Array, words: Uint32Array, ints: Int32Array, fa: MemberFields, fc: MemberFields, k: ArrayLike<number>, bytes: number): void {
  const n = fc.rows, lda = fa.ld, ldc = fc.ld;
  for (let i = 0; i < place.length; i++) {
    const q = place[i]!;
    if (q < 0) continue;
    putAddress(pointers, words, q * SYRK_VBATCH_POINTERS, fa, i, bytes);
    putAddress(pointers, words, q * SYRK_VBATCH_POINTERS + 1, fc, i, bytes);
    const o = q * SYRK_VBATCH_INTS;
    ints[o] = n[i]!; ints[o + 1] = k[i]!; ints[o + 2] = lda[i]!; ints[o + 3] = ldc[i]!;
  }
}

/** Fields of `count` blocks cut from `parent`'s members (the same arrays), to be filled by putBlock. */
function blockFields(parent: MemberFields, count: number, frame: HostFrame): MemberFields {
  return {
    count, rows: frame.int32(count), cols: frame.int32(count), ld: frame.int32(count), slot: frame.int32(count), offset: frame.float64(count),
    arrays: parent.arrays, baseLo: parent.baseLo, baseHi: parent.baseHi,
  };
}

/** Block q of `f` := the block `cut` of member i of `parent`. */
function putBlock(f: MemberFields, q: number, parent: MemberFields, i: number, cut: BlockCut): void {
  const ld = parent.ld[i]!;
  f.rows[q] = cut.rows; f.cols[q] = cut.cols; f.ld[q] = ld; f.slot[q] = parent.slot[i]!;
  f.offset[q] = parent.offset[i]! + cut.r0 + cut.c0 * ld;
}

/**
 * Every class's off-diagonal blocks as the members of one variable-size GEMM (memberOffdiagOf, the
 * rule its tests check, in its parts): class after class, step after step, the class's members in
 * order, those whose C block is not empty; undefined where none is. A member's spans depend on its
 * order alone: cut once per run of equal orders (a class is in order of size).
 */
function offdiagFields(
  plan: VbatchedSyrkPlan, trans: SyrkRequest['trans'], fa: MemberFields, fc: MemberFields, k: Int32Array, frame: HostFrame,
): { a: MemberFields; b: MemberFields; c: MemberFields } | undefined {
  const n = fc.rows;
  const each = (visit: (i: number, spans: { readonly rows: Span; readonly cols: Span }) => void): void => {
    for (const l of plan.launches) {
      for (const step of l.steps) {
        if (step.kind !== 'offdiag') continue;
        let lastN = -1;
        let spans: ReturnType<typeof offdiagSpansOf>;
        for (let m = 0; m < l.members.length; m++) {
          const i = l.members[m]!;
          if (n[i] !== lastN) { lastN = n[i]!; spans = offdiagSpansOf(lastN, step); }
          if (spans !== undefined) visit(i, spans);
        }
      }
    }
  };
  let count = 0;
  each(() => { count++; });
  if (count === 0) return undefined;
  const a = blockFields(fa, count, frame), b = blockFields(fa, count, frame), c = blockFields(fc, count, frame);
  let q = 0;
  each((i, s) => {
    putBlock(a, q, fa, i, opBlock(trans, s.rows, k[i]!));
    putBlock(b, q, fa, i, opBlock(trans, s.cols, k[i]!));
    putBlock(c, q, fc, i, { r0: s.rows.off, c0: s.cols.off, rows: s.rows.size, cols: s.cols.size });
    q++;
  });
  return { a, b, c };
}

/**
 * Whether a request is a variable batch of more than one shape (n, k, ldA, ldC), of few enough
 * members a shape for the class path to pay (classPathPaysOf: the per-size path is one launch a
 * shape; its threshold is the one measured for trsm, whose class path is the same kind of work:
 * class leaves and variable-size GEMMs of cut blocks).
 */
export function syrkVbatchedCovers(r: SyrkRequest<DeviceArray>, dev: GpuDevice): boolean {
  if (r.a.kind !== 'variable' && r.c.kind !== 'variable') return false;
  const count = batchCount(r.c);
  if (count < 2) return false;
  const kField = r.trans === 'N' ? 'cols' : 'rows';
  return severalShapesIn([[r.c, 'rows'], [r.a, kField], [r.a, 'ld'], [r.c, 'ld']], count)
    && classPathPaysIn(dev, (frame) => pairKeys(fieldValues(r.c, 'rows', count, frame), 2 ** 31, fieldValues(r.a, kField, count, frame)));
}
