/**
 * Launchers of the complex Cholesky kernels (generate-small.ts): complexPotrfCuda,
 * complexPotrsCuda, complexPosvCuda. The device arrays hold the parts' dtype; the batches' rows,
 * ld, stride and offset count pairs, as the kernels' `real2` pointers do, and a list batch's
 * pointer array is built with a pair's bytes. A strided or list batch is one launch.
 */
import { batchCount, type Batch } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import { MyriadError } from '../../../core/errors.js';
import type { PosvRequest, PotrfRequest, PotrsRequest } from '../../../core/op-specs.js';
import { arg, type DeviceArray, type GpuDevice } from '../../runtime/types.js';
import { complexBytes } from '../common/complex.js';
import { zeroInfo } from '../common/info-zero.js';
import { kernelFor, plannedOnce } from '../common/kernel-cache.js';
import { deviceDtype, groupOperands, indexArgs, operandArgs, release, type LaunchGroup } from '../common/operands.js';
import { smallGrid } from '../common/warp-slots.js';
import { zposvSmallSource, zpotrfSmallSource, zpotrsSmallSource, zsmallLayout } from './generate-small.js';
import { planZpotrf, planZsolve, zcholeskyServes, ZCHOLESKY_MAX_N } from './plan.js';

/** Whether the complex kernels take a request: strided or list batches (the complex forms; one order for all) of order at most ZCHOLESKY_MAX_N. */
export function zcholeskyCovers(a: Batch<DeviceArray>, b?: Batch<DeviceArray>): boolean {
  return a.kind !== 'variable' && b?.kind !== 'variable' && zcholeskyServes(a.rows);
}

/** Runs `body` on each launch group of `batches` (named `names`), after checking that the kernels take them. */
function eachGroup(dev: GpuDevice, op: string, batches: readonly Batch<DeviceArray>[], names: readonly string[],
  body: (g: LaunchGroup, dtype: DType) => void): void {
  batches.forEach((b, i) => {
    if (b.kind === 'variable') throw new MyriadError('UNSUPPORTED', `the complex ${op} kernels take strided and list batches`, names[i]!);
  });
  const a = batches[0]!;
  if (batchCount(a) === 0) return;
  if (a.kind !== 'variable' && !zcholeskyServes(a.rows))
    throw new MyriadError('UNSUPPORTED', `the complex ${op} kernels take n <= ${ZCHOLESKY_MAX_N}, got ${a.rows}`, `${names[0]!}.rows`);
  const dtype = deviceDtype(a);
  const grouping = groupOperands(dev, batches, complexBytes(dtype));
  try {
    for (const g of grouping.groups) body(g, dtype);
  } finally {
    release(dev, grouping);
  }
}

/** zpotrf / cpotrf: A = L L^H or U^H U in place, info per matrix. */
export function complexPotrfCuda(dev: GpuDevice, r: PotrfRequest<DeviceArray, DeviceArray>): void {
  eachGroup(dev, 'potrf', [r.a], ['a'], (g, dtype) => {
    const a = g.operands[0]!;
    if (a.rows === 0) { zeroInfo(dev, r.info, g.index, g.count); return; }
    const p = plannedOnce(dev, `zpotrf/${dtype}/${a.rows}/${r.uplo}/${a.kind}`, () => planZpotrf({ dtype, n: a.rows, uplo: r.uplo, kind: a.kind }));
    const k = kernelFor(dev, 'zpotrf-small', p, () => zpotrfSmallSource(p));
    k.launch({ grid: [smallGrid(zsmallLayout(p), g.count), 1, 1], block: [p.warps * 32, 1, 1] },
      [...operandArgs(a), arg.ptr(r.info), ...indexArgs(g.index, g.count)]);
  });
}

/** The potrs and posv launch of one group (both kernels take the same arguments). */
function solveGroup(dev: GpuDevice, design: 'zpotrs' | 'zposv', r: PotrsRequest<DeviceArray, DeviceArray>, g: LaunchGroup, dtype: DType): void {
  const [a, b] = [g.operands[0]!, g.operands[1]!];
  if (a.rows === 0) { zeroInfo(dev, r.info, g.index, g.count); return; }
  const p = plannedOnce(dev, `zsolve/${dtype}/${a.rows},${b.cols}/${r.uplo}/${a.kind},${b.kind}`, () => planZsolve({ dtype, n: a.rows, nrhs: b.cols, uplo: r.uplo, kindA: a.kind, kindB: b.kind }));
  const k = design === 'zposv'
    ? kernelFor(dev, 'zposv-small', p, () => zposvSmallSource(p))
    : kernelFor(dev, 'zpotrs-small', p, () => zpotrsSmallSource(p));
  k.launch({ grid: [smallGrid(zsmallLayout(p), g.count), 1, 1], block: [p.warps * 32, 1, 1] },
    [...operandArgs(a), ...operandArgs(b), arg.ptr(r.info), ...indexArgs(g.index, g.count), arg.i32(b.cols)]);
}

/** zpotrs / cpotrs: A X = B with A's Cholesky factor; info 0. */
export function complexPotrsCuda(dev: GpuDevice, r: PotrsRequest<DeviceArray, DeviceArray>): void {
  eachGroup(dev, 'potrs', [r.a, r.b], ['a', 'b'], (g, dtype) => solveGroup(dev, 'zpotrs', r, g, dtype));
}

/** zposv / cposv: factored and solved in one kernel; a matrix whose factorisation fails (info > 0) keeps its B. */
export function complexPosvCuda(dev: GpuDevice, r: PosvRequest<DeviceArray, DeviceArray>): void {
  eachGroup(dev, 'posv', [r.a, r.b], ['a', 'b'], (g, dtype) => solveGroup(dev, 'zposv', r, g, dtype));
}
