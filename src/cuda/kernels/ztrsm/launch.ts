/**
 * The launcher of the complex trsm kernels (generate-small.ts): complexTrsmCuda. The device arrays
 * hold the parts' dtype; the batches' rows, ld, stride and offset count pairs, as the kernels'
 * `real2` pointers do, and a list batch's pointer table is built with a pair's bytes
 * (common/operands.ts groupOperands; common/triangle-warp.ts runTriangle). A strided batch is one launch; a list batch one per shape
 * and leading dimension of its matrices. Triangles above ZTRSM_MAX_N run the recursion's steps
 * (plan.ts ztrsmSteps) in order over the whole batch: leaves on the small kernel, updates on the
 * complex GEMM (gemm's public face), both on sub-blocks of every matrix.
 */
import type { ComplexTrsmRequest } from '../../../core/op-specs.js';
import type { DeviceArray, GpuDevice } from '../../runtime/types.js';
import { complexGemmCuda } from '../gemm/index.js';
import { runTriangle, type TriangleWarpDesign } from '../common/triangle-warp.js';
import { ztrsmSmallSource } from './generate-small.js';
import { planZtrsm, ztrsmSteps } from './plan.js';

const DESIGN: TriangleWarpDesign = { name: 'ztrsm', op: 'trsm', plan: planZtrsm, source: ztrsmSmallSource, steps: ztrsmSteps, gemm: complexGemmCuda };

/** ztrsm / ctrsm: B := alpha op(A)^-1 B ('left') or alpha B op(A)^-1 ('right'), a triangle of any order. */
export function complexTrsmCuda(dev: GpuDevice, r: ComplexTrsmRequest<DeviceArray>): void {
  runTriangle(dev, DESIGN, r);
}
