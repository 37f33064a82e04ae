/**
 * Launchers of the solves: potrsCuda, posvCuda, getrsCuda, gesvCuda.
 * n <= 32: one kernel per group (generate-small.ts): posv/gesv fused with the factorisation, potrs/getrs
 * with the factor read once into registers (they also write info = 0). Beyond, the factorisation of
 * potrf/getrf followed by the substitution kernel, which skips matrices whose info is set.
 */
import { batchCount } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import { MyriadError } from '../../../core/errors.js';
import type { GesvRequest, GetrsRequest, Op, PosvRequest, PotrsRequest } from '../../../core/ops.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { zeroInfo } from '../common/info-zero.js';
import { cachedKernel } from '../common/kernel-cache.js';
import { deviceDtype, groupOperands, indexArgs, type LaunchGroup, operandArgs, release, sharedLimit } from '../common/operands.js';
import { smallGrid } from '../common/warp-slots.js';
import { gesvLayout, gesvSmallSource, posvLayout, posvSmallSource, smallSolveLayout, smallSolveSource } from './generate-small.js';
import { SUBSTITUTE_MAX_THREADS, substituteSharedBytes, substituteSource } from './generate-substitute.js';
import type { SolveVariant } from './params.js';
import { planFusedSolve, planPosvSolve, planSmallSolve, planSubstitute, smallSolveApplies, type SolveProblem } from './plan.js';
import { potrfGroup } from '../potrf/index.js';
import { getrfGroup } from '../getrf/index.js';

interface Pivots { ipiv: DeviceArray; pivotStride: number }

/** The problem of one group: A (n x n) and B (n x nrhs). */
function problemOf(dtype: DType, g: LaunchGroup): SolveProblem {
  const [a, b] = [g.operands[0]!, g.operands[1]!];
  return { dtype, n: a.rows, nrhs: b.cols, kindA: a.kind, kindB: b.kind };
}

function substitute(
  dev: GpuDevice, dtype: DType, variant: SolveVariant, g: LaunchGroup, info: DeviceArray, skipFailed: boolean, piv?: Pivots,
): void {
  const [a, b] = [g.operands[0]!, g.operands[1]!];
  const n = a.rows;
  const nrhs = b.cols;
  if (n === 0 || nrhs === 0) return;
  const { params: p, rhsTile: jt } = planSubstitute(problemOf(dtype, g), variant, sharedLimit(dev));
  if (jt === 0) throw new MyriadError('UNSUPPORTED', `n = ${n} is too large for the batched solve kernel on ${dev.info.name}`, 'a.rows');
  const k = cachedKernel(dev, `solve/${JSON.stringify(p)}`, () => substituteSource(p));
  k.launch({
    grid: [g.count, Math.ceil(nrhs / jt), 1],
    block: [Math.min(SUBSTITUTE_MAX_THREADS, Math.ceil(n / 32) * 32), 1, 1],
    sharedBytes: substituteSharedBytes(dtype, n, jt),
  }, [
    ...operandArgs(a), ...operandArgs(b),
    arg.ptr(piv ? piv.ipiv.ptr : 0n), arg.i32(piv ? piv.pivotStride : 0), arg.ptr(info), arg.i32(skipFailed ? 1 : 0),
    ...indexArgs(g.index, g.count), arg.i32(n), arg.i32(nrhs), arg.i32(jt),
  ]);
}

/** potrs/getrs for 1 <= n <= 32 and nrhs >= 1: the register kernel; false where it does not apply. */
function smallSolve(dev: GpuDevice, dtype: DType, variant: SolveVariant, g: LaunchGroup, info: DeviceArray, piv?: Pivots): boolean {
  const [a, b] = [g.operands[0]!, g.operands[1]!];
  const problem = problemOf(dtype, g);
  if (!smallSolveApplies(problem)) return false;
  const p = planSmallSolve(problem, variant);
  const k = cachedKernel(dev, `trs-small/${JSON.stringify(p)}`, () => smallSolveSource(p));
  k.launch({ grid: [smallGrid(smallSolveLayout(p), g.count), 1, 1], block: [p.warps * 32, 1, 1] }, [
    ...operandArgs(a), ...operandArgs(b), arg.ptr(piv ? piv.ipiv.ptr : 0n), arg.i32(piv ? piv.pivotStride : 0), arg.ptr(info),
    ...indexArgs(g.index, g.count), arg.i32(b.cols),
  ]);
  return true;
}

function eachGroup(dev: GpuDevice, r: { a: PotrsRequest<DeviceArray, DeviceArray>['a']; b: PotrsRequest<DeviceArray, DeviceArray>['b'] },
  body: (g: LaunchGroup, dtype: DType) => void): void {
  if (batchCount(r.a) === 0) return;
  const dtype = deviceDtype(r.a);
  const grouping = groupOperands(dev, [r.a, r.b]);
  try {
    for (const g of grouping.groups) body(g, dtype);
  } finally {
    release(dev, grouping);
  }
}

/** Solves A X = B with the Cholesky factor of A (from potrf). info is set to 0. */
export function potrsCuda(dev: GpuDevice, r: PotrsRequest<DeviceArray, DeviceArray>): void {
  eachGroup(dev, r, (g, dtype) => {
    const variant: SolveVariant = r.uplo === 'lower' ? 'chol-lower' : 'chol-upper';
    if (smallSolve(dev, dtype, variant, g, r.info)) return;
    zeroInfo(dev, r.info, g.index, g.count);
    substitute(dev, dtype, variant, g, r.info, false);
  });
}

/** Solves op(A) X = B with the LU factors and pivots of A (from getrf). info is set to 0. */
export function getrsCuda(dev: GpuDevice, r: GetrsRequest<DeviceArray, DeviceArray>): void {
  const trans: Op = r.trans;
  eachGroup(dev, r, (g, dtype) => {
    const variant: SolveVariant = trans === 'N' ? 'lu-N' : 'lu-T';
    if (smallSolve(dev, dtype, variant, g, r.info, r)) return;
    zeroInfo(dev, r.info, g.index, g.count);
    substitute(dev, dtype, variant, g, r.info, false, r);
  });
}

/** Cholesky factorisation and solve; B is left unchanged where info > 0 (LAPACK's posv). */
export function posvCuda(dev: GpuDevice, r: PosvRequest<DeviceArray, DeviceArray>): void {
  eachGroup(dev, r, (g, dtype) => {
    const [a, b] = [g.operands[0]!, g.operands[1]!];
    const problem = problemOf(dtype, g);
    if (!smallSolveApplies(problem)) {
      potrfGroup(dev, dtype, r.uplo, g, r.info);
      substitute(dev, dtype, r.uplo === 'lower' ? 'chol-lower' : 'chol-upper', g, r.info, true);
      return;
    }
    const p = planPosvSolve(problem, r.uplo);
    const k = cachedKernel(dev, `posv-small/${JSON.stringify(p)}`, () => posvSmallSource(p));
    k.launch({ grid: [smallGrid(posvLayout(p), g.count), 1, 1], block: [p.warps * 32, 1, 1] },
      [...operandArgs(a), ...operandArgs(b), arg.ptr(r.info), ...indexArgs(g.index, g.count), arg.i32(b.cols)]);
  });
}

/** LU factorisation with partial pivoting and solve; B is left unchanged where info > 0 (LAPACK's gesv). */
export function gesvCuda(dev: GpuDevice, r: GesvRequest<DeviceArray, DeviceArray>): void {
  eachGroup(dev, r, (g, dtype) => {
    const [a, b] = [g.operands[0]!, g.operands[1]!];
    const problem = problemOf(dtype, g);
    if (!smallSolveApplies(problem)) {
      getrfGroup(dev, dtype, g, r.ipiv, r.pivotStride, r.info);
      substitute(dev, dtype, 'lu-N', g, r.info, true, r);
      return;
    }
    const p = planFusedSolve(problem);
    const k = cachedKernel(dev, `gesv-small/${JSON.stringify(p)}`, () => gesvSmallSource(p));
    k.launch({ grid: [smallGrid(gesvLayout(p), g.count), 1, 1], block: [p.warps * 32, 1, 1] },
      [...operandArgs(a), ...operandArgs(b), arg.ptr(r.ipiv), arg.i32(r.pivotStride), arg.ptr(r.info),
        ...indexArgs(g.index, g.count), arg.i32(b.cols)]);
  });
}
