/**
 * Which shape of the tridiagonal-QL syev kernel serves one group of equal-size matrices, and
 * whether syev takes this route at all (`tridiagServes`, asked by jacobi's syevCuda). Threads: one
 * per row of the working matrix, rounded up to whole warps, at most the table's `maxThreads`
 * (the tridiagonalization, Q's formation and the rotations all work by rows). The working matrix
 * in shared memory where it fits the problem's `sharedLimit` and n <= `sharedMax`, else in the
 * global workspace (or as forced). With vectors from the table's `splitFrom` (or as forced), the
 * split design instead (generate-apply.ts): record, apply over all SMs, finish.
 */
import type { DType } from '../../../core/dtype.js';
import type { Uplo } from '../../../core/enums.js';
import { MyriadError } from '../../../core/errors.js';
import type { TridiagTuning } from '../../model/tuning/index.js';
import type { OperandKind } from '../common/batch-pointer.js';
import { applySharedBytes } from './generate-apply.js';
import { tridiagLayout } from './generate-syev.js';
import type { SteinKernels, SyevSplitPlan, SyevSteinPlan, SyevTridiagParams, TridiagForce, TridiagSteinParams } from './params.js';
import { STEIN_NB, splitSlice, steinSlice } from './snippets.js';

/** The largest n the kernel is planned for (the GPU's syev coverage, as the Jacobi designs'). */
export const TRIDIAG_MAX = 512;

/** dsteqr's MAXIT: QL/QR iterations allowed per row of the matrix. */
export const TRIDIAG_MAXIT = 30;

/** The dynamic shared bytes a block may have where the problem does not say (the static 48 KiB). */
const STATIC_SHARED = 48 * 1024;

/**
 * `sharedLimit`: the dynamic shared bytes a block may have on the device (common/operands.ts
 * `sharedLimit`).
 */
export interface TridiagProblem {
  readonly dtype: DType;
  readonly n: number;
  readonly uplo: Uplo;
  readonly vectors: boolean;
  readonly kind: OperandKind;
  readonly sharedLimit?: number;
}

/** Whether syev sends matrices of size n and `dtype` to this kernel (the table's crossover, within TRIDIAG_MAX). */
export function tridiagServes(n: number, dtype: DType, tuning: TridiagTuning): boolean {
  return n >= tuning.syevFrom[dtype] && n <= TRIDIAG_MAX;
}

/** Threads for n rows: whole warps, one per row up to `maxThreads`. */
export function tridiagThreads(n: number, maxThreads: number): number {
  return Math.max(32, Math.min(maxThreads, 32 * Math.ceil(n / 32)));
}

export function planSyevTridiag(pr: TridiagProblem, tuning: TridiagTuning, options: { readonly force?: TridiagForce } = {}): SyevTridiagParams {
  const { dtype, n, uplo, vectors, kind } = pr;
  if (!Number.isInteger(n) || n < 1 || n > TRIDIAG_MAX) throw new MyriadError('UNSUPPORTED', `the tridiagonal syev takes 1 <= n <= ${TRIDIAG_MAX}, got ${n}`, 'a');
  const force = options.force ?? {};
  const threads = force.threads ?? tridiagThreads(n, tuning.maxThreads);
  if (!Number.isInteger(threads) || threads % 32 !== 0 || threads < 32 || threads > 1024)
    throw new MyriadError('UNSUPPORTED', `threads ${threads} must be a multiple of 32 within 1024`, 'force.threads');
  const limit = pr.sharedLimit ?? STATIC_SHARED;
  const base = { dtype, n, uplo, vectors, kind, threads, maxit: TRIDIAG_MAXIT };
  const shared = force.global !== true && n <= tuning.sharedMax && tridiagLayout({ n, vectors, shared: true }).sharedBytes <= limit;
  const p: SyevTridiagParams = { ...base, shared };
  if (tridiagLayout(p).sharedBytes > limit) throw new MyriadError('UNSUPPORTED', `the tridiagonal syev's scratch does not fit ${limit} shared bytes`, 'a');
  return p;
}

/** Whether a group's vectors take the split design: `force.split` where given, else n >= the table's `splitFrom`. */
export function tridiagSplits(pr: Pick<TridiagProblem, 'n' | 'vectors'>, tuning: TridiagTuning, force: TridiagForce = {}): boolean {
  return pr.vectors && (force.split ?? pr.n >= tuning.splitFrom);
}

/** Rotations each apply tile holds: 128, a whole number of rows' shares. */
const TILE = 128;
/**
 * Rotations of a sweep the apply kernel takes at once: 8 shared loads in flight against 8 dependent
 * FMA steps (~8 cycles each) cover the ~30-cycle shared latency that one at a time pays per rotation.
 */
const APPLY_UNROLL = 8;

/**
 * The split design's three kernels: record and finish with the one-kernel plan's threads and Z in
 * the slice; the buffer `capFactor` n^2 rotations (or forced, at least 2n: the first sweep must
 * fit); the apply kernel's rows from the table, halved until a block's rows fit shared memory.
 */
export function planSyevSplit(pr: TridiagProblem, tuning: TridiagTuning, options: { readonly force?: TridiagForce } = {}): SyevSplitPlan {
  const force = options.force ?? {};
  if (!pr.vectors) throw new MyriadError('UNSUPPORTED', 'the split design computes vectors', 'jobz');
  const base = planSyevTridiag(pr, tuning, { force: { ...force, global: true } });
  const n = pr.n;
  const cap = force.cap ?? Math.max(2 * n, Math.ceil(tuning.capFactor * n * n));
  if (!Number.isInteger(cap) || cap < 2 * n || cap > 2 ** 28) throw new MyriadError('UNSUPPORTED', `the rotation buffer ${cap} must be an integer within 2n = ${2 * n} ... 2^28`, 'force.cap');
  const limit = pr.sharedLimit ?? STATIC_SHARED;
  let rows = force.applyRows ?? tuning.applyRows;
  if (!Number.isInteger(rows) || rows < 1 || rows > 1024) throw new MyriadError('UNSUPPORTED', `apply rows ${rows} must be within 1 ... 1024`, 'force.applyRows');
  rows = Math.min(rows, 32 * Math.ceil(n / 32));
  const tileOf = (r: number): number => r * Math.ceil(TILE / r);
  while (rows > 1 && applySharedBytes({ n, rows, tile: tileOf(rows) }) > limit) rows = Math.ceil(rows / 2);
  const unroll = force.applyUnroll ?? APPLY_UNROLL;
  if (!Number.isInteger(unroll) || unroll < 1 || unroll > 32) throw new MyriadError('UNSUPPORTED', `apply unroll ${unroll} must be within 1 ... 32`, 'force.applyUnroll');
  const apply = { n, cap, rows, tile: tileOf(rows), unroll };
  if (applySharedBytes(apply) > limit) throw new MyriadError('UNSUPPORTED', `the split syev's apply rows do not fit ${limit} shared bytes`, 'a');
  const record: SyevTridiagParams = { ...base, split: { stage: 'record', cap } };
  const finish: SyevTridiagParams = { ...base, split: { stage: 'finish', cap } };
  for (const p of [record, finish])
    if (tridiagLayout(p).sharedBytes > limit) throw new MyriadError('UNSUPPORTED', `the tridiagonal syev's scratch does not fit ${limit} shared bytes`, 'a');
  return { record, apply, finish, slice: splitSlice(n, cap).slice };
}

/** dstein's MAXITS: inverse iterations per eigenvector at most. */
export const STEIN_MAXITS = 5;

/**
 * Whether a group takes the inverse-iteration design: `force.stein` where given, else with vectors
 * n >= the table's `steinFrom` (before the split design: it replaces both QL designs from there), values
 * only n >= `steinPanelFrom` (its blocked reduction and its values kernel, in place of the one-kernel
 * design's dsytd2 and bisection).
 */
export function tridiagSteins(pr: Pick<TridiagProblem, 'n' | 'vectors'>, tuning: TridiagTuning, force: TridiagForce = {}): boolean {
  return force.stein ?? pr.n >= (pr.vectors ? tuning.steinFrom : tuning.steinPanelFrom);
}

/** Threads a block of the inverse-iteration design's values and vectors kernels (a thread per eigenvalue). */
export const STEIN_THREADS = 64;

/** Threads of the clusters kernel's block (one a matrix): its rows and a cluster's earlier vectors spread over them. */
export const STEIN_CLUSTER_THREADS = 256;

/**
 * The clusters kernel's block for order `n`: STEIN_CLUSTER_THREADS (fewer where n is small: whole
 * warps), 512 above 256 on a whole tridiagonal. On an H200 (2026-12-01, scripts/probe/syev-clusters.mjs
 * with THREADS=256,512, the bench's diagonally dominant matrices, whose spectra are mostly one cluster;
 * ms, 256 / 512 threads) float64 320 x 60 13.16 / 12.02, 384 x 40 18.32 / 16.07, 448 x 30 26.06 / 21.57,
 * 512 x 20 32.68 / 26.60, float32 512 x 20 31.66 / 26.66; 256 x 100 8.31 / 8.28 and 128 x 500 4.82 /
 * 5.41; on random symmetric matrices (few clusters) within 1% at every order. The upper half of a
 * Golub-Kahan tridiagonal (gesvd) keeps 256: not measured there.
 */
export function steinClusterThreads(n: number, upperHalf = false): number {
  return !upperHalf && n > 256 ? 512 : Math.min(STEIN_CLUSTER_THREADS, 32 * Math.ceil(n / 32));
}

/**
 * The inverse-iteration design's launches: reduce (unblocked, or from the table's `steinPanelFrom`
 * the load stage and the blocked reduction's panels of STEIN_NB columns) and store with the
 * one-kernel plan's threads and Z in the slice, the values and vectors kernels a thread per eigenvalue, STEIN_THREADS a block (fewer
 * where n is smaller: whole warps), ceil(n / threads) blocks per matrix; values only, no vectors kernel.
 */
export function planSyevStein(pr: TridiagProblem, tuning: TridiagTuning, options: { readonly force?: TridiagForce } = {}): SyevSteinPlan {
  const force = options.force ?? {};
  const base = planSyevTridiag(pr, tuning, { force: { ...force, global: true } });
  const maxits = force.steinMaxits ?? STEIN_MAXITS;
  const limit = pr.sharedLimit ?? STATIC_SHARED;
  const blocked = force.steinPanel ?? pr.n >= tuning.steinPanelFrom;
  const reduce: SyevTridiagParams = { ...base, stein: blocked ? 'load' : 'reduce' };
  const store: SyevTridiagParams = { ...base, stein: 'store' };
  for (const p of [reduce, store])
    if (tridiagLayout(p).sharedBytes > limit) throw new MyriadError('UNSUPPORTED', `the tridiagonal syev's scratch does not fit ${limit} shared bytes`, 'a');
  return {
    reduce, ...(blocked ? { panel: { n: pr.n, threads: base.threads, nb: STEIN_NB } } : {}),
    ...planSteinKernels(pr.n, pr.vectors, maxits, {
      ...(force.steinSerialCluster === undefined ? {} : { serialCluster: force.steinSerialCluster }),
      ...(force.steinClusterThreads === undefined ? {} : { clusterThreads: force.steinClusterThreads }),
    }), store,
    slice: steinSlice(pr.n).slice,
  };
}

/**
 * The values and (with `vectors`) vectors kernels of the inverse-iteration design on a tridiagonal
 * already in the slices (snippets.ts `steinSlice`): a thread per eigenvalue, STEIN_THREADS a block
 * (fewer where n is smaller: whole warps), `maxits` inverse iterations at most; with `upperHalf` the
 * upper half of each unreduced block only (params.ts), orders to 2 TRIDIAG_MAX. The real design's
 * plan, the complex heev's (kernels/zheev/) and gesvd's on the Golub-Kahan tridiagonal (kernels/bidiag/) take them from here.
 */
export function planSteinKernels(n: number, vectors: boolean, maxits: number = STEIN_MAXITS,
  options: { readonly upperHalf?: boolean; readonly serialCluster?: number; readonly clusterThreads?: number } = {}): SteinKernels {
  const upperHalf = options.upperHalf === true;
  // The upper half of a Golub-Kahan tridiagonal of order 2k serves a bidiagonal of order k <= TRIDIAG_MAX.
  const most = upperHalf ? 2 * TRIDIAG_MAX : TRIDIAG_MAX;
  if (!Number.isInteger(n) || n < 1 || n > most) throw new MyriadError('UNSUPPORTED', `the inverse-iteration kernels take 1 <= n <= ${most}, got ${n}`, 'a');
  if (!Number.isInteger(maxits) || maxits < 1 || maxits > 100) throw new MyriadError('UNSUPPORTED', `inverse iterations ${maxits} must be within 1 ... 100`, 'force.steinMaxits');
  const serial = options.serialCluster;
  if (serial !== undefined && (!Number.isInteger(serial) || serial < 1 || serial > 64)) throw new MyriadError('UNSUPPORTED', `the serial cluster size ${serial} must be within 1 ... 64`, 'force.steinSerialCluster');
  const threads = Math.min(STEIN_THREADS, 32 * Math.ceil(n / 32));
  const half = upperHalf ? { upperHalf: true as const } : {};
  const values: TridiagSteinParams = { stage: 'values', n, threads, maxits, ...half };
  if (!vectors) return { values };
  const forcedThreads = options.clusterThreads;
  // At most 512: the kernel needs its 128 registers a thread (launch bounds of one block an SM).
  if (forcedThreads !== undefined && (!Number.isInteger(forcedThreads) || forcedThreads < 32 || forcedThreads > 512 || forcedThreads % 32 !== 0))
    throw new MyriadError('UNSUPPORTED', `the clusters kernel's threads ${forcedThreads} must be a multiple of 32 within 32 ... 512`, 'force.steinClusterThreads');
  const clusterThreads = forcedThreads ?? steinClusterThreads(n, upperHalf);
  // The serial cluster size: the vectors and clusters kernels must agree on it (the values kernel does not read it).
  const clustered = { ...half, ...(serial === undefined ? {} : { serialCluster: serial }) };
  return { values, vectors: { stage: 'vectors', n, threads, maxits, ...clustered }, clusters: { stage: 'clusters', n, threads: clusterThreads, maxits, ...clustered } };
}
