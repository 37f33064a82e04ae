/**
 * The vendor's way to run the variable batch of `myriad bench --vbatched`, timed beside the own
 * routes on the same device data: one batched call per distinct shape (cublas?gemmBatched,
 * cusolverDn?potrfBatched, each over device arrays of its members' addresses; the solves and
 * getrf in vbatched-vendor-solve.ts), and for gemm, where the loaded cuBLAS has it (12.5 on), one
 * cublas?gemmGroupedBatched call over all the shapes.
 *
 * The address arrays are built and uploaded once, before the timing: the vendor's calls alone are
 * timed, where the own routes' times include building and uploading their tables on every call.
 * Before any native call every member is checked against its buffer and its dtype, and every size,
 * leading dimension and count against int32: a vendor routine that reads outside its buffer
 * poisons the context; every status is checked by the bindings (VendorError).
 */
import { batchCount } from '../core/batch.js';
import type { DType } from '../core/dtype.js';
import { MyriadError } from '../core/errors.js';
import type { GemmRequest, PotrfRequest } from '../core/ops.js';
import { cublasHasGrouped } from '../cuda/baselines/cublas.js';
import { groupMembers, memberAddresses, memberFields, type MemberFields } from '../cuda/kernels/common/members.js';
import { deviceDtype } from '../cuda/kernels/common/operands.js';
import { elementBytes } from '../cuda/kernels/common/precision.js';
import type { DeviceArray, GpuDevice } from '../cuda/runtime/types.js';
import { vendorBlas, vendorChunks, vendorSolver, vendorUsable, type GemmGroups, type VendorBlas, type VendorSolver } from '../cuda/vendor/native.js';

/** The cuBLAS and cuSOLVER calls a run makes (native.ts's VendorBlas, VendorSolver; a recording fake in the tests). */
export type GemmCalls = Pick<VendorBlas, 'gemmPointersAt' | 'gemmGroupedAt'>;
export type PotrfCalls = Pick<VendorSolver, 'potrfBatchedAt'>;

/** A vendor run of one request, its device arrays made: `run` enqueues the calls on the device's stream. */
export interface VendorRun {
  /** Vendor calls per run (each of which launches one or more kernels of its own). */
  readonly calls: number;
  run(): void;
  dispose(): void;
}

const INT32_MAX = 2 ** 31 - 1;

/** Throws unless every member of `f` is a `dtype` matrix inside its buffer, its sizes int32. */
export function checkMembers(f: MemberFields, dtype: DType, name: string): void {
  for (const a of f.arrays) if (a.dtype !== dtype) throw new MyriadError('DTYPE', `expected ${dtype} device memory, got ${a.dtype}`, name);
  for (let i = 0; i < f.count; i++) {
    const rows = f.rows[i]!, cols = f.cols[i]!, ld = f.ld[i]!;
    if (ld < Math.max(1, rows)) throw new MyriadError('LAYOUT', `matrix ${i}: leading dimension ${ld} < rows ${rows}`, name);
    if (rows === 0 || cols === 0) continue;
    const length = f.arrays[f.slot[i]!]!.length;
    const end = f.offset[i]! + ld * (cols - 1) + rows;
    if (end > length) throw new MyriadError('BOUNDS', `matrix ${i} (${rows} x ${cols}, ld ${ld}, offset ${f.offset[i]}) does not fit its ${length} elements`, name);
  }
}

export function checkInt32(v: number, what: string): void {
  if (!(Number.isSafeInteger(v) && v >= 0 && v <= INT32_MAX)) throw new MyriadError('INVALID_ARGUMENT', `${what} must be an int32 >= 0, got ${v}`, what);
}

/** Uploads `table` into a new device array, kept in `arrays` (disposed with the run). */
export function upload(dev: GpuDevice, table: BigInt64Array, arrays: DeviceArray[]): DeviceArray {
  const d = dev.upload(table);
  arrays.push(d);
  return d;
}

export function disposeAll(dev: GpuDevice, arrays: readonly DeviceArray[]): void {
  dev.synchronize();
  for (const a of arrays) a.dispose();
}

/**
 * gemm the vendor's way: `grouped` false, cublas?gemmBatched once per distinct (m, n, k, lda, ldb,
 * ldc); true, one cublas?gemmGroupedBatched call. Undefined where cuBLAS (or the grouped call) is
 * not here; `calls` replaces the library (tests).
 */
export function vendorGemm(dev: GpuDevice, r: GemmRequest<DeviceArray>, grouped: boolean, calls?: GemmCalls): VendorRun | undefined {
  const blas = calls ?? (vendorUsable(dev, 'cublas') && (!grouped || cublasHasGrouped()) ? vendorBlas(dev) : undefined);
  if (blas === undefined) return undefined;
  const count = batchCount(r.c);
  const dtype = deviceDtype(r.c);
  const a = memberFields(r.a), b = memberFields(r.b), c = memberFields(r.c);
  if (a.count !== count || b.count !== count) throw new MyriadError('SHAPE', `a, b and c hold ${a.count}, ${b.count} and ${count} matrices`, 'a');
  checkMembers(a, dtype, 'a');
  checkMembers(b, dtype, 'b');
  checkMembers(c, dtype, 'c');
  const k = r.transA === 'N' ? a.cols : a.rows;
  const groups = groupMembers(count, [c.rows, c.cols, k, a.ld, b.ld, c.ld]).filter((g) => c.rows[g[0]!]! > 0 && c.cols[g[0]!]! > 0);
  for (const g of groups) {
    const i = g[0]!;
    for (const [v, what] of [[c.rows[i]!, 'm'], [c.cols[i]!, 'n'], [k[i]!, 'k'], [g.length, 'count']] as const) checkInt32(v, what);
    // op(A) is m x k and op(B) k x n: a member whose shapes disagree would be read out of bounds.
    const aM = r.transA === 'N' ? a.rows[i]! : a.cols[i]!;
    const bK = r.transB === 'N' ? b.rows[i]! : b.cols[i]!, bN = r.transB === 'N' ? b.cols[i]! : b.rows[i]!;
    if (aM !== c.rows[i] || bK !== k[i] || bN !== c.cols[i])
      throw new MyriadError('SHAPE', `matrix ${i}: op(A) ${aM} x ${k[i]}, op(B) ${bK} x ${bN} and C ${c.rows[i]} x ${c.cols[i]} do not agree`, 'c');
  }
  checkInt32(groups.reduce((s, g) => s + g.length, 0), 'count');
  const bytes = elementBytes(dtype);
  const arrays: DeviceArray[] = [];
  try {
    if (grouped) {
      const order = groups.flat();
      const pa = upload(dev, memberAddresses(a, order, bytes), arrays);
      const pb = upload(dev, memberAddresses(b, order, bytes), arrays);
      const pc = upload(dev, memberAddresses(c, order, bytes), arrays);
      const at = (f: Int32Array): Int32Array => Int32Array.from(groups, (g) => f[g[0]!]!);
      const g: GemmGroups = { m: at(c.rows), n: at(c.cols), k: at(k), lda: at(a.ld), ldb: at(b.ld), ldc: at(c.ld), size: Int32Array.from(groups, (x) => x.length) };
      return {
        calls: groups.length > 0 ? 1 : 0,
        run: () => { if (groups.length > 0) blas.gemmGroupedAt(dtype, r.transA, r.transB, r.alpha, r.beta, g, pa.ptr, pb.ptr, pc.ptr); },
        dispose: () => disposeAll(dev, arrays),
      };
    }
    const calls = groups.map((g) => {
      const i = g[0]!;
      return {
        m: c.rows[i]!, n: c.cols[i]!, k: k[i]!, lda: a.ld[i]!, ldb: b.ld[i]!, ldc: c.ld[i]!, count: g.length,
        pa: upload(dev, memberAddresses(a, g, bytes), arrays).ptr,
        pb: upload(dev, memberAddresses(b, g, bytes), arrays).ptr,
        pc: upload(dev, memberAddresses(c, g, bytes), arrays).ptr,
      };
    });
    return {
      calls: calls.length,
      run: () => {
        for (const x of calls) blas.gemmPointersAt(dtype, r.transA, r.transB, x.m, x.n, x.k, r.alpha, x.pa, x.lda, x.pb, x.ldb, r.beta, x.pc, x.ldc, x.count);
      },
      dispose: () => disposeAll(dev, arrays),
    };
  } catch (e) {
    disposeAll(dev, arrays);
    throw e;
  }
}

/**
 * potrf the vendor's way: cusolverDn?potrfBatched once per distinct (n, lda), info into scratch
 * of the run's own (the vendor writes one per member of a call; the request's info is by batch
 * place). Undefined where cuSOLVER is not here; `calls` replaces the library (tests).
 */
export function vendorPotrf(dev: GpuDevice, r: PotrfRequest<DeviceArray, DeviceArray>, calls?: PotrfCalls): VendorRun | undefined {
  const solver = calls ?? (vendorUsable(dev, 'cusolver') ? vendorSolver(dev) : undefined);
  if (solver === undefined) return undefined;
  const count = batchCount(r.a);
  const dtype = deviceDtype(r.a);
  const a = memberFields(r.a);
  checkMembers(a, dtype, 'a');
  for (let i = 0; i < count; i++) if (a.rows[i] !== a.cols[i]) throw new MyriadError('SHAPE', `matrix ${i} is ${a.rows[i]} x ${a.cols[i]}, not square`, 'a');
  const groups = groupMembers(count, [a.rows, a.ld]).filter((g) => a.rows[g[0]!]! > 0);
  for (const g of groups) { checkInt32(a.rows[g[0]!]!, 'n'); checkInt32(g.length, 'count'); }
  const bytes = elementBytes(dtype);
  const arrays: DeviceArray[] = [];
  try {
    const info = dev.alloc('int32', Math.max(1, count));
    arrays.push(info);
    let base = 0;
    const calls = groups.map((g) => {
      const i = g[0]!;
      const call = { n: a.rows[i]!, lda: a.ld[i]!, count: g.length, pointers: upload(dev, memberAddresses(a, g, bytes), arrays).ptr, info: info.ptr + BigInt(4 * base) };
      base += g.length;
      return call;
    });
    return {
      // The binding splits a call beyond VENDOR_BATCH_MAX matrices.
      calls: calls.reduce((s, x) => s + vendorChunks(x.count).length, 0),
      run: () => { for (const x of calls) solver.potrfBatchedAt(dtype, r.uplo, x.n, x.pointers, x.lda, x.info, x.count); },
      dispose: () => disposeAll(dev, arrays),
    };
  } catch (e) {
    disposeAll(dev, arrays);
    throw e;
  }
}
