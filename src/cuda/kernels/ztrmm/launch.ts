/**
 * The launcher of the complex trmm kernels (generate-small.ts): complexTrmmCuda. The device arrays
 * hold the parts' dtype; the batches' rows, ld, stride and offset count pairs, as the kernels'
 * `real2` pointers do, and a list batch's pointer table is built with a pair's bytes
 * (common/operands.ts groupOperands). A strided batch is one launch; a list batch one per shape and
 * leading dimension of its matrices. Triangles above ZTRMM_MAX_N run the recursion's steps (plan.ts
 * ztrmmSteps) in order over the whole batch, in place on B: leaves on the small kernel, updates on
 * the complex GEMM (gemm's public face), both on sub-blocks of every matrix.
 */
import { batchCount } from '../../../core/batch.js';
import { MyriadError } from '../../../core/errors.js';
import type { ComplexTrsmRequest } from '../../../core/op-specs.js';
import type { DeviceArray, GpuDevice } from '../../runtime/types.js';
import { complexGemmCuda } from '../gemm/index.js';
import { launchTriangleWarp, triangleShape, type TriangleWarpDesign } from '../common/triangle-warp.js';
import { ztrmmSmallSource } from './generate-small.js';
import { planZtrmm, ztrmmServes, ztrmmSteps } from './plan.js';

/** ztrmm / ctrmm: B := alpha op(A) B ('left') or alpha B op(A) ('right'), a triangle of any order. */
export function complexTrmmCuda(dev: GpuDevice, r: ComplexTrsmRequest<DeviceArray>): void {
  const { a, b } = r;
  if (a.kind === 'variable') throw new MyriadError('UNSUPPORTED', 'the complex trmm kernels take strided and list batches', 'a');
  if (b.kind === 'variable') throw new MyriadError('UNSUPPORTED', 'the complex trmm kernels take strided and list batches', 'b');
  if (batchCount(b) === 0) return;
  const { order, vectors } = triangleShape(r.side, b.rows, b.cols);
  if (order === 0 || vectors === 0) return;
  if (ztrmmServes(order)) {
    smallTrmm(dev, r);
    return;
  }
  for (const step of ztrmmSteps({ ...r, a, b })) {
    if (step.kind === 'leaf') smallTrmm(dev, step.request);
    else complexGemmCuda(dev, step.request);
  }
}

/** The small kernel's launches (the triangle of order 1 .. ZTRMM_MAX_N, at least one vector). */
function smallTrmm(dev: GpuDevice, r: ComplexTrsmRequest<DeviceArray>): void {
  launchTriangleWarp(dev, DESIGN, r);
}

const DESIGN: TriangleWarpDesign = { name: 'ztrmm', plan: planZtrmm, source: ztrmmSmallSource };
