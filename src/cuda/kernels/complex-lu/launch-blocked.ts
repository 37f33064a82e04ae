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
import { arg, type DeviceArray, type GpuDevice, type KernelArg } from '../../runtime/types.js';
import type { OperandKind } from '../common/batch-pointer.js';
import { Workspace } from '../../runtime/workspace.js';
import { complexBytes } from '../common/complex.js';
import { zeroInfo } from '../common/info-zero.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { LASWP_THREADS } from '../common/laswp.js';
import { COPY_THREADS } from '../common/matrix-copy.js';
import { indexArgs, operandArgs } from '../common/operands.js';
import { complexGemmCuda } from '../gemm/index.js';
import { complexTrsmCuda } from '../ztrsm/index.js';
import { complexCopySource, complexLaswpSource, complexPanelSource } from './generate-panel.js';
import { operandOf, type Operand } from './operand.js';
import type { ComplexCopyParams, ComplexLaswpParams } from './params.js';
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

/** op(A) X = B with getrf's factors and pivots (zgetrs), n and nrhs >= 1; info is the caller's. `bOperand`: B's kernel operand where the caller has it. */
export function complexGetrsBlocked(
  dev: GpuDevice, dtype: DType, trans: ComplexOp, a: BlockBatch<DeviceArray>, b: BlockBatch<DeviceArray>, piv: PivotsInfo, count: number, uploads: DeviceArray[],
  bOperand?: Operand,
): void {
  const n = a.rows;
  const ob = bOperand ?? operandOf(dev, b, count, complexBytes(dtype), uploads);
  for (const s of complexSolveSteps(trans)) {
    if (s.kind === 'swap') laswp(dev, dtype, ob, piv, count, 0, n, 0, b.cols, s.reverse);
    else complexTrsmCuda(dev, { side: 'left', uplo: s.uplo, transA: s.trans, diag: s.uplo === 'lower' ? 'unit' : 'nonunit', alpha: [1, 0], a, b });
  }
}

/** Copies every matrix of `from` into `to` (rows x cols, both in form `kind`), or only those whose info is non-zero. */
function copyMatrices(
  dev: GpuDevice, dtype: DType, kind: OperandKind, from: KernelArg[], to: KernelArg[], info: DeviceArray, count: number, rows: number, cols: number, failedOnly: boolean,
): void {
  const p = plannedOnce(dev, `zgesv-copy/${dtype}/${kind}/${failedOnly}`, (): ComplexCopyParams => ({ dtype, kind, failedOnly }));
  const k = kernelFor(dev, 'zgesv-copy', p, () => complexCopySource(p));
  k.launch({ grid: [count, 1, 1], block: [COPY_THREADS, 1, 1] }, [...from, ...to, arg.ptr(info), ...indexArgs(null, count), arg.i32(rows), arg.i32(cols)]);
}

/**
 * zgesv: getrf, then the solves; the trsm solves every matrix, so B is copied aside first (packed,
 * in the device's workspace, in B's form) and the failed matrices' B (info > 0) copied back after:
 * B unchanged where getrf failed, as LAPACK's zgesv.
 */
export function complexGesvBlocked(dev: GpuDevice, dtype: DType, a: BlockBatch<DeviceArray>, b: BlockBatch<DeviceArray>, piv: PivotsInfo, count: number, uploads: DeviceArray[]): void {
  complexGetrfBlocked(dev, dtype, a, piv, count, uploads);
  const { rows: n, cols: nrhs } = b;
  if (nrhs === 0) return;
  const bytes = complexBytes(dtype);
  const frame = Workspace.of(dev).frame();
  try {
    const pairs = n * nrhs;
    const aside = frame.take(dtype, 2 * count * pairs, `the copy of B kept aside by ${count} complex solves`);
    const ob = operandOf(dev, b, count, bytes, uploads);
    // The copy in B's form: strided beside strided, a table of its matrices beside a list.
    let copy: KernelArg[];
    if (ob.kind === 'strided') {
      copy = operandArgs({ pointer: aside.ptr, offset: 0, stride: pairs, ld: n });
    } else {
      const table = dev.upload(BigInt64Array.from({ length: count }, (_, q) => aside.ptr + BigInt(q * pairs * bytes)));
      uploads.push(table);
      copy = operandArgs({ pointer: table.ptr, offset: 0, stride: 0, ld: n });
    }
    copyMatrices(dev, dtype, ob.kind, ob.args, copy, piv.info, count, n, nrhs, false);
    complexGetrsBlocked(dev, dtype, 'N', a, b, piv, count, uploads, ob);
    copyMatrices(dev, dtype, ob.kind, copy, ob.args, piv.info, count, n, nrhs, true);
  } finally {
    frame.end();
  }
}
