/**
 * myriad: batched linear algebra for very many small matrices, and tall-and-skinny shapes.
 *
 * Two levels:
 * - LAPACK level (`gemm`, `potrf`, `getrf`, ...): BLAS/LAPACK names and semantics on batches
 *   described by `strided`, `list` or `variable`; in place; per-matrix `info`.
 * - Array level (`matmul`, `cholesky`, `solve`, ...): row-major stacks [..., m, n], new arrays.
 * The top-level functions run on the CPU; `open()` returns a context for the best backend.
 */
import { cpuContext } from './api/context.js';

export * from './core/index.js';
export { Context, cpuContext, type BackendName, type InfoResult, type PivotResult, type IntsFor, type Preparers } from './api/context.js';
export type { PreparedCall, PreparedStorages } from './api/prepared.js';
export type { Captured } from './api/capture.js';
export { open, type OpenOptions } from './api/open.js';
export { probeBackends, type BackendChoice, type BackendStatus } from './api/backends.js';
export { ShardedArray, DeviceFailure, type DeviceSelection, type ShardLayout } from './cuda/multi/index.js';
export { MultiDeviceContext } from './api/multi-context.js';
export { openMultiDevice } from './api/multi-open.js';
export { cpuThreads, setCpuThreads } from './cpu-fast/index.js';
export { CudaError, NvrtcError, VendorError } from './cuda/runtime/index.js';
export { ndarray, type NDArray, type LuResult, type WithInfo, type CholeskyOptions, type InvOptions, type TriangularSolveOptions,
  type EighOptions, type EighResult, type SvdResult,
} from './api/array.js';
export type { QrMode, QrOptions, QrResult, LstsqResult } from './api/array-qr.js';
export type {
  GemmArgs, TrsmArgs, TrmmArgs, SyrkArgs, FactorArgs, CholeskySolveArgs, TrtriArgs, GetrfArgs, GetrsArgs, GesvArgs,
  SyevArgs, GesvdArgs, GeqrfArgs, OrgqrArgs, OrmqrArgs, GelsArgs,
} from './api/prepare.js';

const ctx = cpuContext;
// LAPACK level on the CPU.
export const gemm = ctx.gemm.bind(ctx);
export const trsm = ctx.trsm.bind(ctx);
export const trmm = ctx.trmm.bind(ctx);
export const syrk = ctx.syrk.bind(ctx);
export const potrf = ctx.potrf.bind(ctx);
export const potrs = ctx.potrs.bind(ctx);
export const posv = ctx.posv.bind(ctx);
export const getrf = ctx.getrf.bind(ctx);
export const getrs = ctx.getrs.bind(ctx);
export const gesv = ctx.gesv.bind(ctx);
export const trtri = ctx.trtri.bind(ctx);
export const lauum = ctx.lauum.bind(ctx);
export const potri = ctx.potri.bind(ctx);
export const syev = ctx.syev.bind(ctx);
export const gesvd = ctx.gesvd.bind(ctx);
export const geqrf = ctx.geqrf.bind(ctx);
export const orgqr = ctx.orgqr.bind(ctx);
export const ormqr = ctx.ormqr.bind(ctx);
export const gels = ctx.gels.bind(ctx);
export const poti = ctx.poti.bind(ctx);
// Array level on the CPU.
export const matmul = ctx.matmul.bind(ctx);
export const cholesky = ctx.cholesky.bind(ctx);
export const choleskyEx = ctx.choleskyEx.bind(ctx);
export const lu = ctx.lu.bind(ctx);
export const luEx = ctx.luEx.bind(ctx);
export const solve = ctx.solve.bind(ctx);
export const solveEx = ctx.solveEx.bind(ctx);
export const choleskySolve = ctx.choleskySolve.bind(ctx);
export const inv = ctx.inv.bind(ctx);
export const invEx = ctx.invEx.bind(ctx);
export const triangularSolve = ctx.triangularSolve.bind(ctx);
export const eigh = ctx.eigh.bind(ctx);
export const eighEx = ctx.eighEx.bind(ctx);
export const eigvalsh = ctx.eigvalsh.bind(ctx);
export const eigvalshEx = ctx.eigvalshEx.bind(ctx);
export const svd = ctx.svd.bind(ctx);
export const svdEx = ctx.svdEx.bind(ctx);
export const svdvals = ctx.svdvals.bind(ctx);
export const svdvalsEx = ctx.svdvalsEx.bind(ctx);
export const qr = ctx.qr.bind(ctx);
export const lstsq = ctx.lstsq.bind(ctx);
export const lstsqEx = ctx.lstsqEx.bind(ctx);
