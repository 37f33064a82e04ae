/**
 * The launcher of the complex trmm kernels (generate-small.ts): complexTrmmCuda. The device arrays
 * hold the parts' dtype; the batches' rows, ld, stride and offset count pairs, as the kernels'
 * `real2` pointers do, and a list batch's pointer table is built with a pair's bytes
 * (common/operands.ts groupOperands; common/triangle-warp.ts runTriangle). A strided batch is one launch; a list batch one per shape and
 * leading dimension of its matrices. Triangles above ZTRMM_MAX_N run the recursion's steps (plan.ts
 * ztrmmSteps) in order over the whole batch, in place on B: leaves on the small kernel, updates on
 * the complex GEMM (gemm's public face), both on sub-blocks of every matrix.
 */
import type { ComplexTrsmRequest } from '../../../core/op-specs.js';
import type { DeviceArray, GpuDevice } from '../../runtime/types.js';
import { complexGemmCuda } from '../gemm/index.js';
import { runTriangle, type TriangleWarpDesign } from '../common/triangle-warp.js';
import { ztrmmSmallSource } from './generate-small.js';
import { planZtrmm, ztrmmSteps } from './plan.js';

const DESIGN: TriangleWarpDesign = { name: 'ztrmm', op: 'trmm', plan: planZtrmm, source: ztrmmSmallSource, steps: ztrmmSteps, gemm: complexGemmCuda };

/** ztrmm / ctrmm: B := alpha op(A) B ('left') or alpha B op(A) ('right'), a triangle of any order. */
export function complexTrmmCuda(dev: GpuDevice, r: ComplexTrsmRequest<DeviceArray>): void {
  runTriangle(dev, DESIGN, r);
}
