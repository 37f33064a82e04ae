/**
 * The launchers of the complex rank-k kernels (generate-small.ts): complexHerkCuda, and
 * complexSyrkCuda (zsyrk: the kernels with `symmetric`, the recursion of plan.ts zsyrkSteps). The device arrays
 * hold the parts' dtype; the batches' rows, ld, stride and offset count pairs, and a list batch's
 * pointer table is built with a pair's bytes (common/operands.ts groupOperands). A strided batch is
 * one launch; a list batch one per shape and leading dimension of its matrices. C above ZHERK_MAX_N
 * runs the recursion's steps (plan.ts zherkSteps) in order: diagonal blocks on the small kernel,
 * the off-diagonal blocks of C's triangle on the complex GEMM (gemm's public face).
 */
import { batchCount } from '../../../core/batch.js';
import { MyriadError } from '../../../core/errors.js';
import type { ComplexHerkRequest, ComplexSyrkRequest } from '../../../core/op-specs.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { complexBytes } from '../common/complex.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { deviceDtype, groupOperands, indexArgs, operandArgs, release } from '../common/operands.js';
import { zherkSmallSource } from './generate-small.js';
import { complexGemmCuda } from '../gemm/index.js';
import { planZherk, zherkServes, zherkSteps, zsyrkSteps, type BlockHerkRequest, type BlockSyrkRequest } from './plan.js';

/** zherk / cherk: C := alpha A A^H + beta C ('N') or alpha A^H A + beta C ('C') on C's `uplo` triangle, C of any order. */
export function complexHerkCuda(dev: GpuDevice, r: ComplexHerkRequest<DeviceArray>): void {
  const { a, c } = r;
  if (a.kind === 'variable') throw new MyriadError('UNSUPPORTED', 'the complex herk kernels take strided and list batches', 'a');
  if (c.kind === 'variable') throw new MyriadError('UNSUPPORTED', 'the complex herk kernels take strided and list batches', 'c');
  if (batchCount(c) === 0) return;
  const n = c.rows;
  const k = r.trans === 'N' ? a.cols : a.rows;
  // zherk's early return: nothing to add and nothing to scale (the diagonal's imaginary parts stay too).
  if (n === 0 || ((r.alpha === 0 || k === 0) && r.beta === 1)) return;
  if (zherkServes(n)) {
    smallHerk(dev, { ...r, a, c });
    return;
  }
  for (const step of zherkSteps({ ...r, a, c })) {
    if (step.kind === 'leaf') smallHerk(dev, step.request);
    else complexGemmCuda(dev, step.request);
  }
}

/** The small kernel's launches (C of order 1 .. ZHERK_MAX_N). */
function smallHerk(dev: GpuDevice, r: BlockHerkRequest<DeviceArray>): void {
  const n = r.c.rows;
  const k = r.trans === 'N' ? r.a.cols : r.a.rows;
  const dtype = deviceDtype(r.c);
  const grouping = groupOperands(dev, [r.a, r.c], complexBytes(dtype));
  try {
    for (const g of grouping.groups) {
      const [a, c] = [g.operands[0]!, g.operands[1]!];
      const p = plannedOnce(dev, `zherk/${dtype}/${n}/${r.uplo}${r.trans}/${a.kind},${c.kind}`, () => planZherk({ dtype, n, uplo: r.uplo, trans: r.trans, kindA: a.kind, kindC: c.kind }));
      const kernel = kernelFor(dev, 'zherk-small', p, () => zherkSmallSource(p));
      kernel.launch({ grid: [Math.ceil(g.count / p.perBlock), 1, 1], block: [n, p.rowsY, p.perBlock] },
        [...operandArgs(a), ...operandArgs(c), ...indexArgs(g.index, g.count), arg.i32(r.alpha === 0 ? 0 : k), arg.f64(r.alpha), arg.f64(r.beta)]);
    }
  } finally {
    release(dev, grouping);
  }
}

/** zsyrk / csyrk: C := alpha A A^T + beta C ('N') or alpha A^T A + beta C ('T') on C's `uplo` triangle, C of any order, nothing conjugated. */
export function complexSyrkCuda(dev: GpuDevice, r: ComplexSyrkRequest<DeviceArray>): void {
  const { a, c } = r;
  if (a.kind === 'variable') throw new MyriadError('UNSUPPORTED', 'the complex syrk kernels take strided and list batches', 'a');
  if (c.kind === 'variable') throw new MyriadError('UNSUPPORTED', 'the complex syrk kernels take strided and list batches', 'c');
  if (batchCount(c) === 0) return;
  const n = c.rows;
  const k = r.trans === 'N' ? a.cols : a.rows;
  const alphaZero = r.alpha[0] === 0 && r.alpha[1] === 0;
  // zsyrk's early return: nothing to add and nothing to scale.
  if (n === 0 || ((alphaZero || k === 0) && r.beta[0] === 1 && r.beta[1] === 0)) return;
  if (zherkServes(n)) {
    smallSyrk(dev, { ...r, a, c });
    return;
  }
  for (const step of zsyrkSteps({ ...r, a, c })) {
    if (step.kind === 'leaf') smallSyrk(dev, step.request);
    else complexGemmCuda(dev, step.request);
  }
}

/** The small kernel's zsyrk launches (C of order 1 .. ZHERK_MAX_N); k passed as 0 where alpha is 0 (A not read). */
function smallSyrk(dev: GpuDevice, r: BlockSyrkRequest<DeviceArray>): void {
  const n = r.c.rows;
  const k = r.trans === 'N' ? r.a.cols : r.a.rows;
  const trans = r.trans === 'N' ? 'N' : 'T';
  const alphaZero = r.alpha[0] === 0 && r.alpha[1] === 0;
  const dtype = deviceDtype(r.c);
  const grouping = groupOperands(dev, [r.a, r.c], complexBytes(dtype));
  try {
    for (const g of grouping.groups) {
      const [a, c] = [g.operands[0]!, g.operands[1]!];
      const p = plannedOnce(dev, `zsyrk/${dtype}/${n}/${r.uplo}${trans}/${a.kind},${c.kind}`, () => planZherk({ dtype, n, uplo: r.uplo, trans, kindA: a.kind, kindC: c.kind, symmetric: true }));
      const kernel = kernelFor(dev, 'zherk-small', p, () => zherkSmallSource(p));
      kernel.launch({ grid: [Math.ceil(g.count / p.perBlock), 1, 1], block: [n, p.rowsY, p.perBlock] }, [
        ...operandArgs(a), ...operandArgs(c), ...indexArgs(g.index, g.count), arg.i32(alphaZero ? 0 : k),
        arg.f64(r.alpha[0]), arg.f64(r.alpha[1]), arg.f64(r.beta[0]), arg.f64(r.beta[1]),
      ]);
    }
  } finally {
    release(dev, grouping);
  }
}
