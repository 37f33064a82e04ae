/**
 * The launcher of the complex trsm kernels (generate-small.ts): complexTrsmCuda. The device arrays
 * hold the parts' dtype; the batches' rows, ld, stride and offset count pairs, as the kernels'
 * `real2` pointers do, and a list batch's pointer table is built with a pair's bytes
 * (common/operands.ts groupOperands). A strided batch is one launch; a list batch one per shape
 * and leading dimension of its matrices. Triangles above ZTRSM_MAX_N run the recursion's steps
 * (plan.ts ztrsmSteps) in order over the whole batch: leaves on the small kernel, updates on the
 * complex GEMM (gemm's public face), both on sub-blocks of every matrix.
 */
import { batchCount } from '../../../core/batch.js';
import { MyriadError } from '../../../core/errors.js';
import type { ComplexTrsmRequest } from '../../../core/op-specs.js';
import type { DeviceArray, GpuDevice } from '../../runtime/types.js';
import { complexGemmCuda } from '../gemm/index.js';
import { launchTriangleWarp, triangleShape, type TriangleWarpDesign } from '../common/triangle-warp.js';
import { ztrsmSmallSource } from './generate-small.js';
import { planZtrsm, ztrsmServes, ztrsmSteps, type BlockTrsmRequest } from './plan.js';

/** ztrsm / ctrsm: B := alpha op(A)^-1 B ('left') or alpha B op(A)^-1 ('right'), a triangle of any order. */
export function complexTrsmCuda(dev: GpuDevice, r: ComplexTrsmRequest<DeviceArray>): void {
  const { a, b } = r;
  if (a.kind === 'variable') throw new MyriadError('UNSUPPORTED', 'the complex trsm kernels take strided and list batches', 'a');
  if (b.kind === 'variable') throw new MyriadError('UNSUPPORTED', 'the complex trsm kernels take strided and list batches', 'b');
  if (batchCount(b) === 0) return;
  const { order, vectors } = triangleShape(r.side, b.rows, b.cols);
  if (order === 0 || vectors === 0) return;
  if (ztrsmServes(order)) {
    smallTrsm(dev, r);
    return;
  }
  const blocks: BlockTrsmRequest<DeviceArray> = { ...r, a, b };
  for (const step of ztrsmSteps(blocks)) {
    if (step.kind === 'leaf') smallTrsm(dev, step.request);
    else complexGemmCuda(dev, step.request);
  }
}

/** The small kernel's launches (the triangle of order 1 .. ZTRSM_MAX_N, at least one vector). */
function smallTrsm(dev: GpuDevice, r: ComplexTrsmRequest<DeviceArray>): void {
  launchTriangleWarp(dev, DESIGN, r);
}

const DESIGN: TriangleWarpDesign = { name: 'ztrsm', plan: planZtrsm, source: ztrsmSmallSource };
