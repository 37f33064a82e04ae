/**
 * getrs and gesv on variable-size batches, composed of the class kernels of the families they run
 * on, through those families' faces, as potrs and posv are (launch-vbatched.ts):
 * - getrs: the row interchanges of every member's B by its pivots in one launch over all members
 *   (generate-permute-vbatched.ts; a second launch for members beyond VBATCH_MAX, its shared memory
 *   sized for them), and the two triangular solves by trsm's variable-size launcher
 *   (trsmVbatchedCuda: unit lower L, non-unit upper U, each one set of class launches). op N:
 *   B := P B, then L, then U; op T: U^T, then L^T, then B := P^T B. info is set to 0.
 * - gesv: the members of order up to 32 on its fused class kernels (generate-vsmall.ts: one launch a
 *   class, B unchanged where the factorisation fails); the larger ones on getrf's class path
 *   (getrfVbatchedCuda: ipiv and info as for uniform batches), then those solves (op N) with B kept
 *   aside and the failed members' B copied back (`keepingFailed`), so B is unchanged where info > 0,
 *   as LAPACK's gesv and the per-size path leave it; the permutation skips the failed members
 *   (reads no pivot of theirs) and shares the copy's tables.
 * Members beyond the classes take each family's per-size path inside those launchers.
 */
import { batchCount, type Batch } from '../../../core/batch.js';
import type { DType } from '../../../core/dtype.js';
import { MyriadError } from '../../../core/errors.js';
import type { Diag, Uplo } from '../../../core/enums.js';
import type { GesvRequest, GetrsRequest, Op } from '../../../core/ops.js';
import { arg, type DeviceArray, type GpuDevice, type Kernel, type LaunchConfig } from '../../runtime/types.js';
import { zeroInfo } from '../common/info-zero.js';
import { cachedKernel, kernelFor } from '../common/kernel-cache.js';
import { HostScratch, type HostFrame } from '../common/host-scratch.js';
import { memberFields, type MemberFields } from '../common/members.js';
import { deviceDtype, sharedLimit } from '../common/operands.js';
import { elementBytes } from '../common/precision.js';
import { releaseMemberTables, type MemberTables } from '../common/vbatch.js';
import { getrfVbatchedFields } from '../getrf/index.js';
import { trsmVbatchedMembers, trsmVbatchedSolve } from '../trsm/index.js';
import {
  PERMUTE_VBATCH_CHUNKS, PERMUTE_VBATCH_THREADS, permuteVbatchedCap, permuteVbatchedSharedBytes, permuteVbatchedSource,
} from './generate-permute-vbatched.js';
import { COPY_VBATCH_POINTERS } from './generate-copy-vbatched.js';
import { gesvLayout } from './generate-small.js';
import { gesvSmallVbatchedSource } from './generate-vsmall.js';
import { fusedClasses, keepingFailed, keptMembers, solveTables, vbatchedFusedLaunch, type KeptMembers } from './launch-vbatched.js';

/** Most blocks of a permutation launch along x (each walks further members in steps of the grid). */
const PERMUTE_GRID_MAX = 65535;

/** One permutation launch: members [first, end) of the tables, their largest order and nrhs. */
export interface PermuteLaunch {
  readonly first: number;
  readonly end: number;
  readonly nMax: number;
  readonly config: LaunchConfig;
}

/**
 * The launch of the permutation over `members` table rows of orders up to nMax and columns up to
 * nrhsMax (a block per member and chunk of columns, shared memory for nMax); throws UNSUPPORTED,
 * naming `argument`, where nMax needs more shared memory than a block has (`what`: the members, in words).
 */
export function permuteConfig(members: number, nMax: number, nrhsMax: number, dtype: DType, shared: number, argument: string, what: string): LaunchConfig {
  const sharedBytes = permuteVbatchedSharedBytes(nMax, elementBytes(dtype));
  if (sharedBytes > shared) throw new MyriadError('UNSUPPORTED', `${what} too large for the row interchanges of a variable-size solve (${sharedBytes} bytes of shared memory, at most ${shared})`, argument);
  return { grid: [Math.min(members, PERMUTE_GRID_MAX), Math.min(PERMUTE_VBATCH_CHUNKS, nrhsMax), 1], block: [PERMUTE_VBATCH_THREADS, 1, 1], sharedBytes };
}

/** The permutation kernel, B := P B or (inverse) P^T B: one per dtype and direction, host and device sizes alike. */
export function permuteKernel(dev: GpuDevice, dtype: DType, inverse: boolean): Kernel {
  const p = { dtype, inverse };
  return cachedKernel(dev, `laswp-vbatched/${dtype}/${inverse ? 'inv' : 'fwd'}`, () => permuteVbatchedSource(p));
}

/**
 * The permutation's launches over the kept members: one for those up to VBATCH_MAX, one for the
 * larger (each with shared memory for its largest order), a block per member and chunk of columns.
 * Throws, naming b.rows, where a member's order needs more shared memory than a block has.
 */
export function permuteLaunches(fb: MemberFields, kept: KeptMembers, dtype: DType, shared: number): PermuteLaunch[] {
  const out: PermuteLaunch[] = [];
  for (const [first, end] of [[0, kept.small], [kept.small, kept.order.length]] as const) {
    if (end === first) continue;
    const nMax = largestAt(fb.rows, kept.order, first, end), nrhsMax = largestAt(fb.cols, kept.order, first, end);
    out.push({ first, end, nMax, config: permuteConfig(end - first, nMax, nrhsMax, dtype, shared, 'b.rows', `a member of order ${nMax} is`) });
  }
  return out;
}

/** The largest values[order[q]] for q in [first, end), alone in its function (no code after the loop that never ran). */
function largestAt(values: Int32Array, order: Int32Array, first: number, end: number): number {
  let most = 0;
  for (let q = first; q < end; q++) most = Math.max(most, values[order[q]!]!);
  return most;
}

interface Pivots { readonly ipiv: DeviceArray; readonly pivotStride: number }

/** B := P B (or P^T B) for the kept members in `tables` (`info`: skip the members whose info is non-zero). */
function permute(dev: GpuDevice, dtype: DType, tables: MemberTables, pointerStride: number, launches: readonly PermuteLaunch[], piv: Pivots, info: DeviceArray | null, inverse: boolean): void {
  const k = permuteKernel(dev, dtype, inverse);
  for (const l of launches) {
    const at = tables.at(l.first);
    k.launch(l.config, [
      arg.ptr(at.pointers), arg.i32(pointerStride), arg.ptr(at.ints), arg.ptr(piv.ipiv), arg.i32(piv.pivotStride),
      arg.ptr(info === null ? 0n : info.ptr), arg.i32(l.end - l.first), arg.i32(l.nMax), arg.i32(permuteVbatchedCap(l.nMax)),
    ]);
  }
}

/**
 * Both triangular solves with LU factors by trsm's variable-size launcher, around `interchange` (op
 * N before them, op T after); `fa`, `fb` the members of a and b, read once for both.
 */
function luSolves(dev: GpuDevice, trans: Op, a: Batch<DeviceArray>, b: Batch<DeviceArray>, fa: MemberFields, fb: MemberFields, frame: HostFrame, interchange: () => void): void {
  const members = trsmVbatchedMembers({ side: 'left', b }, fa, fb, frame);
  const solve = (uplo: Uplo, diag: Diag): void => trsmVbatchedSolve(dev, { side: 'left', uplo, transA: trans, diag, alpha: 1, a, b }, members);
  if (trans === 'N') {
    interchange();
    solve('lower', 'unit');
    solve('upper', 'nonunit');
  } else {
    solve('upper', 'nonunit');
    solve('lower', 'unit');
    interchange();
  }
}

/** B's members (`fb`: their fields), those with something to solve, and the interchange launches over them (getrs and gesv alike). */
function interchangePlan(dev: GpuDevice, dtype: DType, fb: MemberFields, frame: HostFrame) {
  const kept = keptMembers(fb, frame);
  return { kept, launches: permuteLaunches(fb, kept, dtype, sharedLimit(dev)) };
}

/** Solves op(A) X = B with the LU factors and pivots of A (from getrf), by size class. info is set to 0. */
export function getrsVbatchedCuda(dev: GpuDevice, r: GetrsRequest<DeviceArray, DeviceArray>): void {
  const count = batchCount(r.b);
  if (count === 0) return;
  const frame = HostScratch.of(dev).frame();
  try {
    const dtype = deviceDtype(r.b), fb = memberFields(r.b, frame);
    const { kept, launches } = interchangePlan(dev, dtype, fb, frame);
    zeroInfo(dev, r.info, null, count);
    if (kept.order.length === 0) return;
    const tables = solveTables(dev, dtype, fb, kept);
    try {
      luSolves(dev, r.trans, r.a, r.b, memberFields(r.a, frame), fb, frame, () => permute(dev, dtype, tables, 1, launches, r, null, r.trans !== 'N'));
    } finally {
      releaseMemberTables(dev, tables);
    }
  } finally {
    frame.end();
  }
}

/** LU factorisation with partial pivoting and solve by size class; B is left unchanged where info > 0 (LAPACK's gesv). */
export function gesvVbatchedCuda(dev: GpuDevice, r: GesvRequest<DeviceArray, DeviceArray>): void {
  if (batchCount(r.b) === 0) return;
  const frame = HostScratch.of(dev).frame();
  try {
    // A's and B's members read once, for the factorisations and both solves.
    const dtype = deviceDtype(r.b);
    const fa = memberFields(r.a, frame), fb = memberFields(r.b, frame);
    fusedClasses(dev, dtype, fa, fb, frame, (p, at, n) => {
      kernelFor(dev, 'gesv-vsmall', p, () => gesvSmallVbatchedSource(p)).launch(vbatchedFusedLaunch(gesvLayout(p), p, n), [
        arg.ptr(at.pointers), arg.ptr(at.ints), arg.ptr(r.ipiv), arg.i32(r.pivotStride), arg.ptr(r.info), arg.i32(n)]);
    }, (restA, restB) => {
      const { kept, launches } = interchangePlan(dev, dtype, restB, frame);
      getrfVbatchedFields(dev, { a: r.a, ipiv: r.ipiv, pivotStride: r.pivotStride, info: r.info }, restA);
      keepingFailed(dev, dtype, restB, kept, r.info, (tables) =>
        luSolves(dev, 'N', r.a, r.b, restA, restB, frame, () => permute(dev, dtype, tables, COPY_VBATCH_POINTERS, launches, r, r.info, false)));
    });
  } finally {
    frame.end();
  }
}
