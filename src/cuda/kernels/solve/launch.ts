/**
 * Launchers of the solves: potrsCuda, posvCuda, getrsCuda, gesvCuda.
 * n <= 32: one kernel per group (generate-small.ts): posv/gesv fused with the factorisation, potrs/getrs
 * with the factor read once into registers (they also write info = 0). Beyond, the factorisation of
 * potrf/getrf followed by the substitution kernel, which skips matrices whose info is set.
 */
import { batchCount, matrixAt, strided, variable, type Batch } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import { MyriadError } from '../../../core/errors.js';
import type { Uplo } from '../../../core/enums.js';
import type { GesvRequest, GetrsRequest, Op, PosvRequest, PotrsRequest } from '../../../core/ops.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { Workspace } from '../../runtime/workspace.js';
import { zeroInfo } from '../common/info-zero.js';
import { cachedKernel } from '../common/kernel-cache.js';
import { deviceDtype, groupOperands, indexArgs, type LaunchGroup, operandArgs, release, sharedLimit } from '../common/operands.js';
import { smallGrid } from '../common/warp-slots.js';
import { gesvLayout, gesvSmallSource, posvLayout, posvSmallSource, smallSolveLayout, smallSolveSource } from './generate-small.js';
import { SUBSTITUTE_MAX_THREADS, substituteSharedBytes, substituteSource } from './generate-substitute.js';
import { copyMatrices } from '../common/matrix-copy.js';
import { permuteSharedBytes, permuteSource, PERMUTE_THREADS } from './generate-permute.js';
import type { SolveVariant } from './params.js';
import { planFusedSolve, planPosvSolve, planSmallSolve, planSubstitute, smallSolveApplies, trsmRouteApplies, type SolveProblem } from './plan.js';
import { elementBytes } from '../common/precision.js';
import { potrfCuda, potrfGroup, potrfLargePath } from '../potrf/index.js';
import { getrfCuda, getrfGroup, getrfLargePath } from '../getrf/index.js';
import { chainRhs, trsmCuda } from '../trsm/index.js';
import { tuningFor } from '../../model/tuning/index.js';

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

/** Runs `body` on each launch group of `batches` (their pointer arrays released after). */
function forEachGroup(dev: GpuDevice, batches: readonly Batch<DeviceArray>[], body: (g: LaunchGroup, dtype: DType) => void): void {
  if (batchCount(batches[0]!) === 0) return;
  const dtype = deviceDtype(batches[0]!);
  const grouping = groupOperands(dev, batches);
  try {
    for (const g of grouping.groups) body(g, dtype);
  } finally {
    release(dev, grouping);
  }
}

function eachGroup(dev: GpuDevice, r: { a: PotrsRequest<DeviceArray, DeviceArray>['a']; b: PotrsRequest<DeviceArray, DeviceArray>['b'] },
  body: (g: LaunchGroup, dtype: DType) => void): void {
  forEachGroup(dev, [r.a, r.b], body);
}

// The trsm route (many right-hand sides, n > 32) ---------------------------------------------

type DeviceBatch = Batch<DeviceArray>;

/** Whether the request's solves take the trsm route (plan.ts), with the card's chained substitution counted. */
function takesTrsmRoute(dev: GpuDevice, a: DeviceBatch, b: DeviceBatch): boolean {
  const count = batchCount(b);
  if (count === 0) return false;
  const dtype = deviceDtype(b);
  const tuning = tuningFor(dev.info.arch, 'trsm');
  // The chain's choice depends on neither the triangle nor op(A): one question serves both solves.
  const chained = (n: number, nrhs: number): boolean =>
    chainRhs({ op: 'trsm', side: 'left', uplo: 'lower', transA: 'N', diag: 'unit', dtype, m: n, n: nrhs, count, sms: dev.info.smCount }, tuning) > 0;
  if (b.kind === 'strided') return trsmRouteApplies([{ n: b.rows, nrhs: b.cols }], chained);
  return trsmRouteApplies({
    *[Symbol.iterator]() { for (let i = 0; i < count; i++) yield { n: matrixAt(a, i).rows, nrhs: matrixAt(b, i).cols }; },
  }, chained);
}

/** Both triangular solves with a Cholesky factor: L L^T X = B (lower) or U^T U X = B (upper). */
function choleskyTrsm(dev: GpuDevice, uplo: Uplo, a: DeviceBatch, b: DeviceBatch): void {
  const solve = (transA: Op): void => trsmCuda(dev, { side: 'left', uplo, transA, diag: 'nonunit', alpha: 1, a, b });
  if (uplo === 'lower') { solve('N'); solve('T'); } else { solve('T'); solve('N'); }
}

/** Both triangular solves with LU factors and the row interchanges: P^T L U X = B, or its transpose. */
function luTrsm(dev: GpuDevice, trans: Op, a: DeviceBatch, b: DeviceBatch, piv: Pivots): void {
  const solve = (uplo: Uplo, diag: 'unit' | 'nonunit'): void => trsmCuda(dev, { side: 'left', uplo, transA: trans, diag, alpha: 1, a, b });
  if (trans === 'N') {
    permuteRows(dev, b, piv, false);
    solve('lower', 'unit');
    solve('upper', 'nonunit');
  } else {
    solve('upper', 'nonunit');
    solve('lower', 'unit');
    permuteRows(dev, b, piv, true);
  }
}

/** B := P B (or P^T B) with each matrix's pivots (generate-permute.ts). */
function permuteRows(dev: GpuDevice, b: DeviceBatch, piv: Pivots, inverse: boolean): void {
  forEachGroup(dev, [b], (g, dtype) => {
    const o = g.operands[0]!;
    if (o.rows === 0 || o.cols === 0) return;
    const p = { dtype, kind: o.kind, inverse };
    const k = cachedKernel(dev, `laswp/${JSON.stringify(p)}`, () => permuteSource(p));
    const columnsPerBlock = Math.max(1, Math.ceil(o.cols / 8));
    k.launch({ grid: [g.count, Math.ceil(o.cols / columnsPerBlock), 1], block: [PERMUTE_THREADS, 1, 1], sharedBytes: permuteSharedBytes(o.rows, elementBytes(dtype)) }, [
      ...operandArgs(o), arg.ptr(piv.ipiv), arg.i32(piv.pivotStride), ...indexArgs(g.index, g.count), arg.i32(o.rows), arg.i32(o.cols), arg.i32(columnsPerBlock),
    ]);
  });
}

/**
 * posv/gesv's solves on the trsm route: B copied aside (compactly), solved, and the failed
 * matrices' B copied back, so that B is unchanged where info > 0 whatever the trsm did there.
 */
function solveKeepingFailed(dev: GpuDevice, b: DeviceBatch, info: DeviceArray, solve: () => void): void {
  const count = batchCount(b);
  const dtype = deviceDtype(b);
  const shapes = Array.from({ length: b.kind === 'strided' ? 0 : count }, (_, i) => matrixAt(b, i));
  const total = b.kind === 'strided' ? count * b.rows * b.cols : shapes.reduce((sum, m) => sum + m.rows * m.cols, 0);
  // From the device's workspace: no allocation per call, and no wait before the call returns.
  const frame = Workspace.of(dev).frame();
  try {
    const aside = frame.take(dtype, Math.max(1, total), `the copy of B kept aside by ${count} solves`);
    // Packed: strided where B is (one launch, no pointer arrays), else a variable batch.
    let copy: DeviceBatch;
    if (b.kind === 'strided') {
      copy = strided(aside, { rows: b.rows, cols: b.cols, count, ld: Math.max(1, b.rows), stride: b.rows * b.cols }, 'b');
    } else {
      let offset = 0;
      copy = variable(shapes.map((m) => {
        const view = { data: aside, rows: m.rows, cols: m.cols, ld: Math.max(1, m.rows), offset };
        offset += m.rows * m.cols;
        return view;
      }), {}, 'b');
    }
    copyMatrices(dev, b, copy, info, false);
    solve();
    copyMatrices(dev, copy, b, info, true);
  } finally {
    frame.end();
  }
}

/** Solves A X = B with the Cholesky factor of A (from potrf). info is set to 0. */
export function potrsCuda(dev: GpuDevice, r: PotrsRequest<DeviceArray, DeviceArray>): void {
  if (takesTrsmRoute(dev, r.a, r.b)) {
    zeroInfo(dev, r.info, null, batchCount(r.b));
    choleskyTrsm(dev, r.uplo, r.a, r.b);
    return;
  }
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
  if (takesTrsmRoute(dev, r.a, r.b)) {
    zeroInfo(dev, r.info, null, batchCount(r.b));
    luTrsm(dev, trans, r.a, r.b, r);
    return;
  }
  eachGroup(dev, r, (g, dtype) => {
    const variant: SolveVariant = trans === 'N' ? 'lu-N' : 'lu-T';
    if (smallSolve(dev, dtype, variant, g, r.info, r)) return;
    zeroInfo(dev, r.info, g.index, g.count);
    substitute(dev, dtype, variant, g, r.info, false, r);
  });
}

/** Cholesky factorisation and solve; B is left unchanged where info > 0 (LAPACK's posv). */
export function posvCuda(dev: GpuDevice, r: PosvRequest<DeviceArray, DeviceArray>): void {
  // Few or large matrices: the factorization's large path (the whole GPU), then the two trsm,
  // whatever nrhs (one thread block per matrix took 905 ms for one 4096 matrix on an H100).
  if (takesTrsmRoute(dev, r.a, r.b) || potrfLargePath(dev, r.a)) {
    potrfCuda(dev, { uplo: r.uplo, a: r.a, info: r.info });
    solveKeepingFailed(dev, r.b, r.info, () => choleskyTrsm(dev, r.uplo, r.a, r.b));
    return;
  }
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
  if (takesTrsmRoute(dev, r.a, r.b) || getrfLargePath(dev, r.a)) {
    getrfCuda(dev, { a: r.a, ipiv: r.ipiv, pivotStride: r.pivotStride, info: r.info });
    solveKeepingFailed(dev, r.b, r.info, () => luTrsm(dev, 'N', r.a, r.b, r));
    return;
  }
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
