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
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { complexBytes } from '../common/complex.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { deviceDtype, groupOperands, indexArgs, operandArgs, release } from '../common/operands.js';
import { smallGrid } from '../common/warp-slots.js';
import { complexGemmCuda } from '../gemm/index.js';
import { ztrsmLayout, ztrsmSmallSource } from './generate-small.js';
import { planZtrsm, trsmShape, ztrsmGridY, ztrsmServes, ztrsmSteps, type BlockTrsmRequest } from './plan.js';

/** ztrsm / ctrsm: B := alpha op(A)^-1 B ('left') or alpha B op(A)^-1 ('right'), a triangle of any order. */
export function complexTrsmCuda(dev: GpuDevice, r: ComplexTrsmRequest<DeviceArray>): void {
  const { a, b } = r;
  if (a.kind === 'variable') throw new MyriadError('UNSUPPORTED', 'the complex trsm kernels take strided and list batches', 'a');
  if (b.kind === 'variable') throw new MyriadError('UNSUPPORTED', 'the complex trsm kernels take strided and list batches', 'b');
  if (batchCount(b) === 0) return;
  const { order, vectors } = trsmShape(r.side, b.rows, b.cols);
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
  const dtype = deviceDtype(r.b);
  const grouping = groupOperands(dev, [r.a, r.b], complexBytes(dtype));
  try {
    for (const g of grouping.groups) {
      const [a, b] = [g.operands[0]!, g.operands[1]!];
      const shape = trsmShape(r.side, b.rows, b.cols);
      const p = plannedOnce(dev, `ztrsm/${dtype}/${shape.order},${shape.vectors}/${r.side}${r.uplo}${r.transA}${r.diag}/${a.kind},${b.kind}`, () => planZtrsm({
        dtype, n: shape.order, vectors: shape.vectors, side: r.side, uplo: r.uplo, transA: r.transA, diag: r.diag, kindA: a.kind, kindB: b.kind,
      }));
      const k = kernelFor(dev, 'ztrsm-small', p, () => ztrsmSmallSource(p));
      const blocks = smallGrid(ztrsmLayout(p), g.count);
      const y = ztrsmGridY(blocks, Math.ceil(shape.vectors / p.rhs), dev.info.smCount);
      k.launch({ grid: [blocks, y, 1], block: [p.warps * 32, 1, 1] },
        [...operandArgs(a), ...operandArgs(b), ...indexArgs(g.index, g.count), arg.i32(shape.vectors), arg.f64(r.alpha[0]), arg.f64(r.alpha[1])]);
    }
  } finally {
    release(dev, grouping);
  }
}
