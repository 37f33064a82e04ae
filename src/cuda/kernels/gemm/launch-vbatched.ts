/**
 * The variable-size batched GEMM launcher: one launch per size class (plan-vbatched.ts), the
 * members' pointers and sizes in two device tables uploaded once per call; members beyond the
 * largest class go to the per-size path (gemmCuda, one launch per distinct shape).
 */
import { batchCount, matrixAt, type MatrixView, type VariableBatch } from '../../../core/batch.js';
import { isDType } from '../../../core/dtype-table.js';
import { MyriadError } from '../../../core/errors.js';
import type { GemmRequest } from '../../../core/ops.js';
import { tuningFor, type GemmTuning } from '../../model/tuning/index.js';
import { arg, type DeviceArray, type GpuDevice, type KernelArg, type LaunchConfig } from '../../runtime/types.js';
import { kernelFor } from '../common/kernel-cache.js';
import { deviceDtype } from '../common/operands.js';
import { elementBytes } from '../common/precision.js';
import { elementAddress, releaseMemberTables, uploadMemberTables } from '../common/vbatch.js';
import {
  GEMM_VBATCH_INTS, GEMM_VBATCH_POINTERS, generateVsmallGemm, generateVtiledGemm, vsmallGemmShape, vtiledGemmShape, vtiledTiles,
} from './generate-vbatched.js';
import { gemmCuda } from './launch.js';
import type { VbatchedGemmParams } from './params.js';
import { effectiveK, planVbatchedGemm, type VbatchedGemmPlan } from './plan-vbatched.js';

/** grid.y and grid.z are limited to 65535 each: the member index is z * gridDim.y + y. */
const GRID_YZ_MAX = 65535;

export interface GemmVbatchedOptions {
  /** Plan with this tuning table instead of the device architecture's. */
  readonly tuning?: GemmTuning;
  /** Called with the plan before anything is launched (tests, benchmarks). */
  readonly onPlan?: (plan: VbatchedGemmPlan) => void;
}

/** The generated source of a class kernel. */
export function vbatchedGemmSource(p: VbatchedGemmParams): ReturnType<typeof generateVsmallGemm> {
  return p.variant === 'vsmall' ? generateVsmallGemm(p) : generateVtiledGemm(p);
}

/** The launch of a class kernel over `n` members (grid x: the members' blocks or the class's tiles; y, z: members). */
export function vbatchedGemmLaunch(p: VbatchedGemmParams, n: number): LaunchConfig {
  if (p.variant === 'vsmall') return { grid: [Math.ceil(n / p.tbc), 1, 1], block: [vsmallGemmShape(p).threads, 1, 1] };
  const shape = vtiledGemmShape(p);
  const y = Math.min(n, GRID_YZ_MAX);
  return { grid: [vtiledTiles(p), y, Math.ceil(n / y)], block: [shape.threads, 1, 1], sharedBytes: shape.sharedBytes };
}

export function gemmVbatchedCuda(dev: GpuDevice, r: GemmRequest<DeviceArray>, opts: GemmVbatchedOptions = {}): void {
  const count = batchCount(r.c);
  if (count === 0) return;
  const dtype = deviceDtype(r.c);
  if (!isDType(dtype)) throw new MyriadError('DTYPE', `gemm needs float64 or float32, got ${dtype}`, 'c');
  const a: MatrixView<DeviceArray>[] = [], b: MatrixView<DeviceArray>[] = [], c: MatrixView<DeviceArray>[] = [];
  for (let i = 0; i < count; i++) {
    a.push(matrixAt(r.a, i));
    b.push(matrixAt(r.b, i));
    c.push(matrixAt(r.c, i));
  }
  const shapes = c.map((ci, i) => ({ m: ci.rows, n: ci.cols, k: r.transA === 'N' ? a[i]!.cols : a[i]!.rows }));
  const plan = planVbatchedGemm({ dtype, transA: r.transA, transB: r.transB, alpha: r.alpha, beta: r.beta, shapes }, opts.tuning ?? tuningFor(dev.info.arch, 'gemm'));
  opts.onPlan?.(plan);
  if (plan.launches.length > 0) {
    const members = plan.launches.reduce((s, l) => s + l.members.length, 0);
    const pointers = new BigInt64Array(members * GEMM_VBATCH_POINTERS);
    const ints = new Int32Array(members * GEMM_VBATCH_INTS);
    const bytes = elementBytes(dtype);
    let q = 0;
    for (const l of plan.launches) for (const i of l.members) {
      const s = shapes[i]!;
      pointers.set([elementAddress(a[i]!.data, a[i]!.offset, bytes), elementAddress(b[i]!.data, b[i]!.offset, bytes), elementAddress(c[i]!.data, c[i]!.offset, bytes)], q * GEMM_VBATCH_POINTERS);
      ints.set([s.m, s.n, effectiveK(s.k, r.alpha), a[i]!.ld, b[i]!.ld, c[i]!.ld], q * GEMM_VBATCH_INTS);
      q++;
    }
    const tables = uploadMemberTables(dev, pointers, GEMM_VBATCH_POINTERS, ints, GEMM_VBATCH_INTS);
    try {
      let first = 0;
      for (const l of plan.launches) {
        const at = tables.at(first);
        first += l.members.length;
        const p = l.params;
        const kernel = kernelFor(dev, `gemm-${p.variant}`, p, () => vbatchedGemmSource(p));
        const n = l.members.length;
        const args: KernelArg[] = [arg.ptr(at.pointers), arg.ptr(at.ints), arg.i32(n), arg.real(dtype, r.alpha), arg.real(dtype, r.beta)];
        kernel.launch(vbatchedGemmLaunch(p, n), args);
      }
    } finally {
      releaseMemberTables(dev, tables);
    }
  }
  if (plan.large.length > 0) {
    const pick = (views: readonly MatrixView<DeviceArray>[]): VariableBatch<DeviceArray> => ({ kind: 'variable', order: 'col', matrices: plan.large.map((i) => views[i]!) });
    gemmCuda(dev, { ...r, a: pick(a), b: pick(b), c: pick(c) });
  }
}

/** Whether a request is a variable batch of more than one shape (the class kernels' case; one shape keeps the uniform kernels). */
export function gemmVbatchedCovers(r: GemmRequest<DeviceArray>): boolean {
  if (r.a.kind !== 'variable' && r.b.kind !== 'variable' && r.c.kind !== 'variable') return false;
  const count = batchCount(r.c);
  if (count < 2) return false;
  const key = (i: number): string => {
    const x = matrixAt(r.a, i), y = matrixAt(r.b, i), z = matrixAt(r.c, i);
    return `${z.rows},${z.cols},${r.transA === 'N' ? x.cols : x.rows},${x.ld},${y.ld},${z.ld}`;
  };
  const first = key(0);
  for (let i = 1; i < count; i++) if (key(i) !== first) return true;
  return false;
}
