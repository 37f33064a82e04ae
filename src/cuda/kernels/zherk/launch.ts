/**
 * The launcher of the complex herk kernels (generate-small.ts): complexHerkCuda. The device arrays
 * hold the parts' dtype; the batches' rows, ld, stride and offset count pairs, and a list batch's
 * pointer table is built with a pair's bytes (common/operands.ts groupOperands). A strided batch is
 * one launch; a list batch one per shape and leading dimension of its matrices.
 */
import { batchCount } from '../../../core/batch.js';
import { MyriadError } from '../../../core/errors.js';
import type { ComplexHerkRequest } from '../../../core/op-specs.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { complexBytes } from '../common/complex.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { deviceDtype, groupOperands, indexArgs, operandArgs, release } from '../common/operands.js';
import { zherkSmallSource } from './generate-small.js';
import { planZherk, ZHERK_MAX_N, zherkServes } from './plan.js';

/** zherk / cherk: C := alpha A A^H + beta C ('N') or alpha A^H A + beta C ('C') on C's `uplo` triangle, C of order <= 32. */
export function complexHerkCuda(dev: GpuDevice, r: ComplexHerkRequest<DeviceArray>): void {
  if (r.a.kind === 'variable') throw new MyriadError('UNSUPPORTED', 'the complex herk kernels take strided and list batches', 'a');
  if (r.c.kind === 'variable') throw new MyriadError('UNSUPPORTED', 'the complex herk kernels take strided and list batches', 'c');
  if (batchCount(r.c) === 0) return;
  if (!zherkServes(r.c.rows)) throw new MyriadError('UNSUPPORTED', `the complex herk kernels take C of order <= ${ZHERK_MAX_N}, got ${r.c.rows}`, 'c.rows');
  const n = r.c.rows;
  const k = r.trans === 'N' ? r.a.cols : r.a.rows;
  // zherk's early return: nothing to add and nothing to scale (the diagonal's imaginary parts stay too).
  if (n === 0 || ((r.alpha === 0 || k === 0) && r.beta === 1)) return;
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
