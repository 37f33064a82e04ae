/**
 * The blocked complex LU's launchers (plan-blocked.ts's steps) for orders above the register
 * designs': the panel and the row interchanges by this family's kernels (generate-panel.ts), U12
 * by the complex trsm (ztrsm/, a triangle of the panel's width) and A22 -= L21 U12 by the complex
 * gemm (gemm/), on sub-blocks of every matrix (common/sub-blocks.ts `block`: a strided batch's
 * offset, or every list entry's). zgetrs: the interchanges of B and two complex trsm of order n;
 * zgesv: getrf, then the solves with B kept aside, the failed matrices' B copied back.
 */
import type { BlockBatch } from '../common/sub-blocks.js';
import { block } from '../common/sub-blocks.js';
import type { DType } from '../../../core/dtype.js';
import type { ComplexOp } from '../../../core/op-specs.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { complexBytes } from '../common/complex.js';
import { zeroInfo } from '../common/info-zero.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { LASWP_THREADS } from '../common/laswp.js';
import { keepingFailedPairs } from '../common/matrix-copy.js';
import { indexArgs } from '../common/operands.js';
import { complexGemmCuda } from '../gemm/index.js';
import { complexTrsmCuda } from '../ztrsm/index.js';
import { complexLaswpSource, complexPanelSource } from './generate-panel.js';
import { operandOf, type Operand } from './operand.js';
import type { ComplexLaswpParams } from './params.js';
import { complexLuSteps, complexSolveSteps, planComplexPanel } from './plan-blocked.js';

/** The factor's pivots and info, as the request gives them. */
export interface PivotsInfo { readonly ipiv: DeviceArray; readonly pivotStride: number; readonly info: DeviceArray }

/** Rows from ... to-1 interchanged with their pivots on `cols` columns of every matrix of `o` from column `col` (rows from 0). */
function laswp(dev: GpuDevice, dtype: DType, o: Operand, piv: PivotsInfo, count: number, from: number, to: number, col: number, cols: number, reverse: boolean): void {
  if (cols === 0 || to <= from) return;
  // One parameter object per shape (kernelFor finds the kernel by the object: a new one each call would serialise it each time).
  const p = plannedOnce(dev, `zlaswp/${dtype}/${o.kind}/${reverse}`, (): ComplexLaswpParams => ({ dtype, kind: o.kind, reverse }));
  const k = kernelFor(dev, 'zgetrf-laswp', p, () => complexLaswpSource(p));
  k.launch({ grid: [count, Math.ceil(cols / LASWP_THREADS), 1], block: [LASWP_THREADS, 1, 1] },
    [...o.at(0, col), arg.ptr(piv.ipiv), arg.i32(piv.pivotStride), ...indexArgs(null, count), arg.i32(from), arg.i32(to), arg.i32(cols)]);
}

/**
 * zgetrf of every m x n matrix of `a` (a uniform batch, count >= 1, m, n >= 1): info zeroed, then
 * the steps in order on the device's stream (the panels in column order keep the first zero pivot).
 */
export function complexGetrfBlocked(dev: GpuDevice, dtype: DType, a: BlockBatch<DeviceArray>, piv: PivotsInfo, count: number, uploads: DeviceArray[]): void {
  const { rows: m, cols: n } = a;
  const o = operandOf(dev, a, count, complexBytes(dtype), uploads);
  const pp = plannedOnce(dev, `zpanel/${dtype}/${m}/${o.kind}`, () => planComplexPanel(dtype, m, o.kind));
  const panel = kernelFor(dev, 'zgetrf-panel', pp, () => complexPanelSource(pp));
  zeroInfo(dev, piv.info, null, count);
  for (const s of complexLuSteps(m, n, pp.nb)) {
    switch (s.kind) {
      case 'panel':
        panel.launch({ grid: [count, 1, 1], block: [pp.threads, 1, 1] }, [
          ...o.at(s.off, s.off), arg.ptr(piv.ipiv), arg.i32(piv.pivotStride), arg.ptr(piv.info), ...indexArgs(null, count),
          arg.i32(m - s.off), arg.i32(s.width), arg.i32(s.off)]);
        break;
      case 'swap': laswp(dev, dtype, o, piv, count, s.from, s.to, s.col, s.cols, false); break;
      case 'solve':
        complexTrsmCuda(dev, { side: 'left', uplo: 'lower', transA: 'N', diag: 'unit', alpha: [1, 0],
          a: block(a, s.off, s.off, s.width, s.width), b: block(a, s.off, s.col, s.width, s.cols) });
        break;
      case 'update':
        complexGemmCuda(dev, { transA: 'N', transB: 'N', alpha: [-1, 0], beta: [1, 0],
          a: block(a, s.off + s.width, s.off, s.rows, s.width), b: block(a, s.off, s.col, s.width, s.cols), c: block(a, s.off + s.width, s.col, s.rows, s.cols) });
        break;
    }
  }
}

/** op(A) X = B with getrf's factors and pivots (zgetrs), n and nrhs >= 1; info is the caller's. */
export function complexGetrsBlocked(
  dev: GpuDevice, dtype: DType, trans: ComplexOp, a: BlockBatch<DeviceArray>, b: BlockBatch<DeviceArray>, piv: PivotsInfo, count: number, uploads: DeviceArray[],
): void {
  const n = a.rows;
  const ob = operandOf(dev, b, count, complexBytes(dtype), uploads);
  for (const s of complexSolveSteps(trans)) {
    if (s.kind === 'swap') laswp(dev, dtype, ob, piv, count, 0, n, 0, b.cols, s.reverse);
    else complexTrsmCuda(dev, { side: 'left', uplo: s.uplo, transA: s.trans, diag: s.uplo === 'lower' ? 'unit' : 'nonunit', alpha: [1, 0], a, b });
  }
}

/**
 * zgesv: getrf, then the solves; the trsm solves every matrix, so B is kept aside and the failed
 * matrices' B (info > 0) put back after (common/matrix-copy.ts keepingFailedPairs): B unchanged where
 * getrf failed, as LAPACK's zgesv.
 */
export function complexGesvBlocked(dev: GpuDevice, dtype: DType, a: BlockBatch<DeviceArray>, b: BlockBatch<DeviceArray>, piv: PivotsInfo, count: number, uploads: DeviceArray[]): void {
  complexGetrfBlocked(dev, dtype, a, piv, count, uploads);
  if (b.cols === 0) return;
  keepingFailedPairs(dev, b, piv.info, count, () => complexGetrsBlocked(dev, dtype, 'N', a, b, piv, count, uploads));
}
