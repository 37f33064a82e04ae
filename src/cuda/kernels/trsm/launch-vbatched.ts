/**
 * The variable-size batched trsm launcher: per size class of the triangle (plan-vbatched.ts) the
 * recursion over the class bound, each leaf one launch of the class kernel over all the class's
 * members and each update one variable-size GEMM through the gemm family's face (gemmVbatchedCuda);
 * the members' pointers and sizes in two device tables uploaded once per call. Members beyond the
 * largest class, and every member where alpha = 0, go to the per-size path (trsmCuda).
 */
import { batchCount, type MatrixView, type VariableBatch } from '../../../core/batch.js';
import type { TrsmRequest } from '../../../core/ops.js';
import { tuningFor, type TrsmTuning } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice, type LaunchConfig } from '../../runtime/types.js';
import { kernelFor } from '../common/kernel-cache.js';
import { deviceDtype, sharedLimit } from '../common/operands.js';
import { elementBytes } from '../common/precision.js';
import { addressWords, memberFields, memberShapes, memberView, putAddress, severalShapes, type MemberFields } from '../common/members.js';
import { classPathPays, releaseMemberTables, uploadMemberTables } from '../common/vbatch.js';
import { gemmVbatchedFields, type VbatchedGemmScalars } from '../gemm/index.js';
import { TRSM_VBATCH_INTS, TRSM_VBATCH_POINTERS, trsmVbatchedLeafSource } from './generate-vbatched.js';
import { trsmCuda } from './launch-trsm.js';
import type { TrsmForce, TrsmLeafShape, TrsmStep } from './params.js';
import { memberUpdateOf, planVbatchedTrsm, type VbatchedTrsmPlan } from './plan-vbatched.js';
import { leafChunk } from './plan.js';

export interface TrsmVbatchedOptions {
  readonly tuning?: TrsmTuning;
  /** A leaf size or vectors per block instead of the table's (tests). */
  readonly force?: Pick<TrsmForce, 'leafMax' | 'vectorsMax'>;
  /** Called with the plan before anything is launched (tests, benchmarks). */
  readonly onPlan?: (plan: VbatchedTrsmPlan) => void;
}

/** grid.y is limited to 65535: the leaf walks further vectors in steps of gridDim.y * V. */
const GRID_Y_MAX = 65535;

/** The launch of a class kernel's leaf over `n` members whose widest B has `nvecMax` vectors. */
export function vbatchedTrsmLaunch(shape: TrsmLeafShape, n: number, nvecMax: number): LaunchConfig {
  return {
    grid: [Math.ceil(n / shape.matrices), Math.max(1, Math.min(Math.ceil(nvecMax / leafChunk(shape)), GRID_Y_MAX)), 1],
    block: [shape.vectors, shape.matrices, 1],
    sharedBytes: shape.sharedBytes,
  };
}

const variableOf = (matrices: MatrixView<DeviceArray>[]): VariableBatch<DeviceArray> => ({ kind: 'variable', order: 'col', matrices });

export function trsmVbatchedCuda(dev: GpuDevice, r: TrsmRequest<DeviceArray>, opts: TrsmVbatchedOptions = {}): void {
  const count = batchCount(r.b);
  if (count === 0) return;
  if (r.alpha === 0) { trsmCuda(dev, r); return; }
  const dtype = deviceDtype(r.b);
  const left = r.side === 'left';
  // Flat per-member fields: a call of 200,000 members makes no object per member.
  const fa = memberFields(r.a), fb = memberFields(r.b);
  const members = { t: left ? fb.rows : fb.cols, nvec: left ? fb.cols : fb.rows };
  const variant = { side: r.side, uplo: r.uplo, transA: r.transA, diag: r.diag };
  const plan = planVbatchedTrsm({ ...variant, dtype, members, sharedLimit: sharedLimit(dev) }, opts.tuning ?? tuningFor(dev.info.arch, 'trsm'), opts.force);
  opts.onPlan?.(plan);
  if (plan.launches.length > 0) {
    const total = plan.launches.reduce((s, l) => s + l.members.length, 0);
    const pointers = new BigInt64Array(total * TRSM_VBATCH_POINTERS);
    const words = addressWords(pointers);
    const ints = new Int32Array(total * TRSM_VBATCH_INTS);
    const bytes = elementBytes(dtype);
    // Addresses as two 32-bit words: no BigInt and no array literal per member.
    let q = 0;
    for (const l of plan.launches) for (const i of l.members) {
      putAddress(pointers, words, q * TRSM_VBATCH_POINTERS, fa, i, bytes);
      putAddress(pointers, words, q * TRSM_VBATCH_POINTERS + 1, fb, i, bytes);
      const o = q * TRSM_VBATCH_INTS;
      ints[o] = members.t[i]!; ints[o + 1] = members.nvec[i]!; ints[o + 2] = fa.ld[i]!; ints[o + 3] = fb.ld[i]!;
      q++;
    }
    const tables = uploadMemberTables(dev, pointers, TRSM_VBATCH_POINTERS, ints, TRSM_VBATCH_INTS);
    try {
      const kernel = kernelFor(dev, 'trsm-vleaf', plan.leaf, () => trsmVbatchedLeafSource(plan.leaf));
      let first = 0;
      for (const l of plan.launches) {
        const at = tables.at(first);
        first += l.members.length;
        const n = l.members.length;
        for (const step of l.steps) {
          if (step.kind === 'leaf') {
            const shape = l.shapes.get(step.span.size)!;
            kernel.launch(vbatchedTrsmLaunch(shape, n, l.nvecMax), [
              arg.ptr(at.pointers), arg.ptr(at.ints), arg.i32(n), arg.i32(step.span.off), arg.i32(step.span.size),
              arg.i32(l.nvecMax), arg.i32(shape.ldx), arg.real(dtype, step.scaled ? r.alpha : 1),
            ]);
            continue;
          }
          // The update over the members whose target block is not empty (the others have nothing to change).
          const update = updateFields(r, fa, fb, l.members, members.t, step);
          if (update !== undefined) gemmVbatchedFields(dev, { dtype, ...update.scalars }, update.a, update.b, update.c);
        }
      }
    } finally {
      releaseMemberTables(dev, tables);
    }
  }
  if (plan.large.length > 0) trsmCuda(dev, { ...r, a: variableOf(plan.large.map((i) => memberView(fa, i))), b: variableOf(plan.large.map((i) => memberView(fb, i))) });
}

/**
 * Whether a request is a variable batch of more than one shape (m, n, ldA, ldB) with alpha != 0 (the
 * class kernels' case), of few enough members a size for the class path to pay (classPathPays).
 */
export function trsmVbatchedCovers(r: TrsmRequest<DeviceArray>): boolean {
  if (r.alpha === 0 || (r.a.kind !== 'variable' && r.b.kind !== 'variable')) return false;
  const count = batchCount(r.b);
  if (count < 2) return false;
  const fa = memberShapes(r.a), fb = memberShapes(r.b);
  // The triangle's order: m for side left, n for right.
  const t = r.side === 'left' ? fb.rows : fb.cols;
  return severalShapes([fb.rows, fb.cols, fa.ld, fb.ld]) && classPathPays(count, (i) => t[i]!);
}

/** A member's block of an update step, as updateOf cuts it: from A or B, at (r0, c0), rows x cols. */
interface Cut { fromA: boolean; r0: number; c0: number; rows: number; cols: number }

/**
 * One update step's GEMM over the members of a class, in flat fields (common/members.ts): each
 * member's blocks as memberUpdate cuts them (memberUpdateOf, the rule its tests check), only the
 * members whose C block is not empty; undefined where none is.
 */
function updateFields(
  r: TrsmRequest<DeviceArray>, fa: MemberFields, fb: MemberFields, classMembers: ArrayLike<number>,
  triangle: ArrayLike<number>, step: Extract<TrsmStep, { kind: 'update' }>,
): { scalars: Omit<VbatchedGemmScalars, 'dtype'>; a: MemberFields; b: MemberFields; c: MemberFields } | undefined {
  const kept: number[] = [];
  const cuts: (readonly Cut[])[] = [];
  let scalars: Omit<VbatchedGemmScalars, 'dtype'> | undefined;
  const block = (fromA: boolean) => (r0: number, c0: number, rows: number, cols: number): Cut => ({ fromA, r0, c0, rows, cols });
  const [fromA, fromB] = [block(true), block(false)];
  // A member's cuts depend on its B's rows and cols alone (offsets and ld are applied below): made
  // once per shape of the class, not per member (200,000 members, a few hundred shapes).
  type Cuts = { readonly scalars: Omit<VbatchedGemmScalars, 'dtype'>; readonly cuts: readonly Cut[] } | null;
  const byShape = new Map<number, Cuts>();
  for (let m = 0; m < classMembers.length; m++) {
    const i = classMembers[m]!;
    const t = triangle[i]!;
    if (step.target.off >= t) continue;   // the target lies beyond its triangle
    const rows = fb.rows[i]!, cols = fb.cols[i]!;
    const key = rows * 2 ** 31 + cols;
    let e = byShape.get(key);
    if (e === undefined) {
      const u = memberUpdateOf(r, rows, cols, step, fromA, fromB);
      e = u.c.rows === 0 || u.c.cols === 0 ? null : { scalars: { transA: u.transA, transB: u.transB, alpha: u.alpha, beta: u.beta }, cuts: [u.a, u.b, u.c] };
      byShape.set(key, e);
    }
    if (e === null) continue;
    scalars ??= e.scalars;
    kept.push(i);
    cuts.push(e.cuts);
  }
  if (scalars === undefined) return undefined;
  const operand = (which: number): MemberFields => {
    const fromA = cuts[0]![which]!.fromA;
    const parent = fromA ? fa : fb;
    const n = kept.length;
    const rows = new Int32Array(n), cols = new Int32Array(n), ld = new Int32Array(n), slot = new Int32Array(n);
    const offset = new Float64Array(n);
    for (let q = 0; q < n; q++) {
      const i = kept[q]!, c = cuts[q]![which]!;
      rows[q] = c.rows; cols[q] = c.cols; ld[q] = parent.ld[i]!; slot[q] = parent.slot[i]!;
      offset[q] = parent.offset[i]! + c.r0 + c.c0 * parent.ld[i]!;
    }
    return { count: n, rows, cols, ld, offset, slot, arrays: parent.arrays, baseLo: parent.baseLo, baseHi: parent.baseHi };
  };
  return { scalars, a: operand(0), b: operand(1), c: operand(2) };
}
