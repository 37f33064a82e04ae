/**
 * The vendor's loop for getrf, trsm, posv and gesv in `myriad bench --vbatched` (beside gemm's and
 * potrf's in vbatched-vendor.ts, with the same rules): per distinct shape the batched routines a
 * user of cuBLAS and cuSOLVER calls, over device arrays of the members' addresses built and
 * uploaded before the timing, pivots and info into scratch of the run's own (the vendor packs them
 * per call).
 * - getrf: cublas?getrfBatched.
 * - trsm: cublas?trsmBatched (the request's side, uplo, op and diag).
 * - posv: cusolverDn?potrfBatched, then cublas?trsmBatched twice with the factor (L then L^T for
 *   lower, U^T then U for upper). cusolverDn?potrsBatched solves nrhs = 1 only (cuSOLVER's
 *   documented limit; cuda/baselines/cusolver.ts refuses more), and the bench's B is n x n per member:
 *   a loop over B's columns would make n potrsBatched calls per size, which is not what a user
 *   would write; the two triangular solves are.
 * - gesv: cublas?getrfBatched, then cublas?getrsBatched (op N).
 * Every member is checked against its buffer and its dtype, and every size and count against
 * int32, before any native call; the bindings check their arguments again and split calls of more
 * than VENDOR_BATCH_MAX matrices.
 */
import { batchCount } from '../core/batch.js';
import type { DType } from '../core/dtype.js';
import { MyriadError } from '../core/errors.js';
import type { GesvRequest, GetrfRequest, PosvRequest, TrsmRequest } from '../core/ops.js';
import { groupMembers, memberAddresses, memberFields, type MemberFields } from '../cuda/kernels/common/members.js';
import { deviceDtype } from '../cuda/kernels/common/operands.js';
import { elementBytes } from '../cuda/kernels/common/precision.js';
import type { DeviceArray, GpuDevice } from '../cuda/runtime/types.js';
import { vendorBlas, vendorChunks, vendorSolver, vendorUsable, type VendorBlas, type VendorSolver } from '../cuda/vendor/native.js';
import { checkInt32, checkMembers, disposeAll, upload, type VendorRun } from './vbatched-vendor.js';

/** The cuBLAS and cuSOLVER calls of each run (native.ts's; a recording fake in the tests). */
export type GetrfCalls = Pick<VendorBlas, 'getrfPointersAt'>;
export type TrsmCalls = Pick<VendorBlas, 'trsmPointersAt'>;
export type PosvCalls = Pick<VendorSolver, 'potrfBatchedAt'> & Pick<VendorBlas, 'trsmPointersAt'>;
export type GesvCalls = Pick<VendorBlas, 'getrfPointersAt' | 'getrsPointersAt'>;

/** Members of one shape: A n x n (ld lda) and, where there is a B, B n x nrhs (ld ldb); `members` their batch places. */
interface SquareGroup {
  readonly n: number; readonly lda: number; readonly nrhs: number; readonly ldb: number;
  readonly members: readonly number[];
}

/**
 * The groups of square members of `a` (and `b`, n rows per member) with something to do, in order
 * of first appearance; throws, naming the operand, where a member is not square, B's rows are not
 * A's order, or a member does not fit its buffer.
 */
function squareGroups(a: MemberFields, b: MemberFields | undefined, dtype: DType): SquareGroup[] {
  checkMembers(a, dtype, 'a');
  if (b !== undefined) {
    if (b.count !== a.count) throw new MyriadError('SHAPE', `a and b hold ${a.count} and ${b.count} matrices`, 'b');
    checkMembers(b, dtype, 'b');
  }
  for (let i = 0; i < a.count; i++) {
    if (a.rows[i] !== a.cols[i]) throw new MyriadError('SHAPE', `matrix ${i} is ${a.rows[i]} x ${a.cols[i]}, not square`, 'a');
    if (b !== undefined && b.rows[i] !== a.rows[i]) throw new MyriadError('SHAPE', `matrix ${i}: B has ${b.rows[i]} rows, A is of order ${a.rows[i]}`, 'b');
  }
  const fields = b === undefined ? [a.rows, a.ld] : [a.rows, a.ld, b.cols, b.ld];
  const groups = groupMembers(a.count, fields).filter((g) => a.rows[g[0]!]! > 0 && (b === undefined || b.cols[g[0]!]! > 0));
  return groups.map((g) => {
    const i = g[0]!;
    const group = { n: a.rows[i]!, lda: a.ld[i]!, nrhs: b?.cols[i] ?? 0, ldb: b?.ld[i] ?? 1, members: g };
    checkInt32(group.n, 'n');
    checkInt32(group.nrhs, 'nrhs');
    checkInt32(g.length, 'count');
    return group;
  });
}

/** Native calls a routine makes for a group (the bindings split a batch beyond VENDOR_BATCH_MAX). */
const chunks = (g: SquareGroup): number => vendorChunks(g.members.length).length;

/** A group's device arrays: A's and B's addresses, and the group's pivots and info in the run's scratch. */
interface GroupCall extends SquareGroup { readonly pa: bigint; readonly pb: bigint; readonly pivots: bigint; readonly info: bigint }

/**
 * The groups' address arrays uploaded and their places in the run's pivots (n a member, packed
 * per call as the vendor writes them; only where `pivots`) and info, made in `arrays`.
 */
function groupCalls(dev: GpuDevice, groups: readonly SquareGroup[], a: MemberFields, b: MemberFields | undefined, dtype: DType, pivots: boolean, arrays: DeviceArray[]): GroupCall[] {
  const bytes = elementBytes(dtype);
  const members = groups.reduce((s, g) => s + g.members.length, 0);
  const info = dev.alloc('int32', Math.max(1, members));
  arrays.push(info);
  const piv = pivots ? dev.alloc('int32', Math.max(1, groups.reduce((s, g) => s + g.n * g.members.length, 0))) : undefined;
  if (piv !== undefined) arrays.push(piv);
  let at = 0, pivAt = 0;
  return groups.map((g) => {
    const call: GroupCall = {
      ...g,
      pa: upload(dev, memberAddresses(a, g.members, bytes), arrays).ptr,
      pb: b === undefined ? 0n : upload(dev, memberAddresses(b, g.members, bytes), arrays).ptr,
      pivots: piv === undefined ? 0n : piv.ptr + BigInt(4 * pivAt),
      info: info.ptr + BigInt(4 * at),
    };
    at += g.members.length;
    pivAt += g.n * g.members.length;
    return call;
  });
}

/** A run over `groups`: `calls` native calls a run, `each` enqueues one group's; the arrays freed by dispose (and on a failure here). */
function loopRun(dev: GpuDevice, make: (arrays: DeviceArray[]) => { calls: number; each: (x: GroupCall) => void; list: readonly GroupCall[] }): VendorRun {
  const arrays: DeviceArray[] = [];
  try {
    const { calls, each, list } = make(arrays);
    return { calls, run: () => { for (const x of list) each(x); }, dispose: () => disposeAll(dev, arrays) };
  } catch (e) {
    disposeAll(dev, arrays);
    throw e;
  }
}

const blasOf = (dev: GpuDevice): VendorBlas | undefined => (vendorUsable(dev, 'cublas') ? vendorBlas(dev) : undefined);

/** getrf the vendor's way: cublas?getrfBatched per distinct (n, lda). Undefined where cuBLAS is not here; `calls` replaces the library (tests). */
export function vendorGetrf(dev: GpuDevice, r: GetrfRequest<DeviceArray, DeviceArray>, calls?: GetrfCalls): VendorRun | undefined {
  const blas = calls ?? blasOf(dev);
  if (blas === undefined || batchCount(r.a) === 0) return undefined;
  const dtype = deviceDtype(r.a);
  const a = memberFields(r.a);
  const groups = squareGroups(a, undefined, dtype);
  return loopRun(dev, (arrays) => ({
    calls: groups.reduce((s, g) => s + chunks(g), 0),
    list: groupCalls(dev, groups, a, undefined, dtype, true, arrays),
    each: (x) => blas.getrfPointersAt(dtype, x.n, x.pa, x.lda, x.pivots, x.info, x.members.length),
  }));
}

/** trsm the vendor's way: cublas?trsmBatched per distinct (m, n, lda, ldb), the request's side, uplo, op, diag and alpha. */
export function vendorTrsm(dev: GpuDevice, r: TrsmRequest<DeviceArray>, calls?: TrsmCalls): VendorRun | undefined {
  const blas = calls ?? blasOf(dev);
  if (blas === undefined || batchCount(r.b) === 0) return undefined;
  if (r.side !== 'left') throw new MyriadError('UNSUPPORTED', `the vendor's loop of the bench solves side 'left', got '${r.side}'`, 'side');
  const dtype = deviceDtype(r.b);
  const a = memberFields(r.a), b = memberFields(r.b);
  const groups = squareGroups(a, b, dtype);
  return loopRun(dev, (arrays) => ({
    calls: groups.reduce((s, g) => s + chunks(g), 0),
    list: groupCalls(dev, groups, a, b, dtype, false, arrays),
    each: (x) => blas.trsmPointersAt(dtype, 'left', r.uplo, r.transA, r.diag, x.n, x.nrhs, r.alpha, x.pa, x.lda, x.pb, x.ldb, x.members.length),
  }));
}

/**
 * posv the vendor's way: per distinct (n, lda, nrhs, ldb), cusolverDn?potrfBatched, then
 * cublas?trsmBatched with the factor twice (the header says why not potrsBatched). Undefined where
 * cuBLAS or cuSOLVER is not here.
 */
export function vendorPosv(dev: GpuDevice, r: PosvRequest<DeviceArray, DeviceArray>, calls?: PosvCalls): VendorRun | undefined {
  const lib = calls ?? posvLibraries(dev);
  if (lib === undefined || batchCount(r.b) === 0) return undefined;
  const dtype = deviceDtype(r.a);
  const a = memberFields(r.a), b = memberFields(r.b);
  const groups = squareGroups(a, b, dtype);
  // A = L L^T: L Y = B, then L^T X = Y; A = U^T U: U^T Y = B, then U X = Y.
  const [first, second] = r.uplo === 'lower' ? (['N', 'T'] as const) : (['T', 'N'] as const);
  return loopRun(dev, (arrays) => ({
    calls: groups.reduce((s, g) => s + 3 * chunks(g), 0),
    list: groupCalls(dev, groups, a, b, dtype, false, arrays),
    each: (x) => {
      const count = x.members.length;
      lib.potrfBatchedAt(dtype, r.uplo, x.n, x.pa, x.lda, x.info, count);
      lib.trsmPointersAt(dtype, 'left', r.uplo, first, 'nonunit', x.n, x.nrhs, 1, x.pa, x.lda, x.pb, x.ldb, count);
      lib.trsmPointersAt(dtype, 'left', r.uplo, second, 'nonunit', x.n, x.nrhs, 1, x.pa, x.lda, x.pb, x.ldb, count);
    },
  }));
}

function posvLibraries(dev: GpuDevice): PosvCalls | undefined {
  if (!vendorUsable(dev, 'cublas') || !vendorUsable(dev, 'cusolver')) return undefined;
  const blas = vendorBlas(dev), solver = vendorSolver(dev);
  if (blas === undefined || solver === undefined) return undefined;
  return { potrfBatchedAt: solver.potrfBatchedAt.bind(solver), trsmPointersAt: blas.trsmPointersAt.bind(blas) };
}

/** gesv the vendor's way: per distinct (n, lda, nrhs, ldb), cublas?getrfBatched then cublas?getrsBatched (op N). */
export function vendorGesv(dev: GpuDevice, r: GesvRequest<DeviceArray, DeviceArray>, calls?: GesvCalls): VendorRun | undefined {
  const blas = calls ?? blasOf(dev);
  if (blas === undefined || batchCount(r.b) === 0) return undefined;
  const dtype = deviceDtype(r.a);
  const a = memberFields(r.a), b = memberFields(r.b);
  const groups = squareGroups(a, b, dtype);
  return loopRun(dev, (arrays) => ({
    calls: groups.reduce((s, g) => s + 2 * chunks(g), 0),
    list: groupCalls(dev, groups, a, b, dtype, true, arrays),
    each: (x) => {
      const count = x.members.length;
      blas.getrfPointersAt(dtype, x.n, x.pa, x.lda, x.pivots, x.info, count);
      blas.getrsPointersAt(dtype, 'N', x.n, x.nrhs, x.pa, x.lda, x.pivots, x.pb, x.ldb, count);
    },
  }));
}
