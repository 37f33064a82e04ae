/**
 * The CUDA backend's router: for each operation, the ordered list of its candidates (the first
 * whose `covers` takes the request runs it; the order is the measured preference, and the
 * thresholds a `covers` reads are the tuning tables' measured crossovers). The last candidate of
 * every list is the CPU reference (with copies), so a request no GPU design takes still runs, and
 * the route taken says so (`CudaBackend.lastRoute`, `ctx.lastRoute`, the bench's route column).
 * Kernel families never route to each other: a new design, or a vendor routine, is one more
 * candidate here. `force` pins a candidate by name (tests, benchmarks, sweeps).
 */
import type { DeviceVariableOp } from '../core/device-batch.js';
import type { OpName } from '../core/ops.js';
import { MyriadError } from '../core/errors.js';
import { OP_SPECS, type ComplexRequests } from '../core/op-specs.js';
import { batchCount, batchDtype, shapeAt, uniformShape, type Batch } from '../core/batch.js';
import type { Storage } from '../core/storage.js';
import { gelsCovers, gelsCuda } from './kernels/gels/index.js';
import { complexGesvCuda, complexGetrfCuda, complexGetrsCuda } from './kernels/complex-lu/index.js';
import { complexGemmCuda, gemmCuda, gemmDeviceVariableCuda, gemmVbatchedCovers, gemmVbatchedCuda } from './kernels/gemm/index.js';
import { getrfCuda, getrfDeviceVariableCuda, getrfVbatchedCovers, getrfVbatchedCuda } from './kernels/getrf/index.js';
import { getriCovers, getriCuda } from './kernels/getri/index.js';
import { gesvdCuda, jacobiCovers, syevCuda } from './kernels/jacobi/index.js';
import { bidiagServes, gesvdBidiagCuda } from './kernels/bidiag/index.js';
import { ormqrCovers, ormqrCuda } from './kernels/ormqr/index.js';
import { potiCuda, potriCuda } from './kernels/poti/index.js';
import { geqrfCuda, orgqrCuda, qrCovers } from './kernels/qr/index.js';
import { potrfCuda, potrfDeviceVariableCuda, potrfVbatchedCovers, potrfVbatchedCuda } from './kernels/potrf/index.js';
import { gesvCuda, gesvDeviceVariableCuda, gesvVbatchedCuda, getrsCuda, getrsDeviceVariableCuda, getrsVbatchedCuda, posvCuda, posvDeviceVariableCuda, posvVbatchedCovers, posvVbatchedCuda, potrsCuda, potrsDeviceVariableCuda, potrsVbatchedCuda, solveVbatchedCovers } from './kernels/solve/index.js';
import { lauumCuda } from './kernels/lauum/index.js';
import { syrkCuda, syrkDeviceVariableCuda, syrkVbatchedCovers, syrkVbatchedCuda } from './kernels/syrk/index.js';
import { syevTridiagCuda, tridiagServes } from './kernels/tridiag/index.js';
import { qlThreadServes, syevQlThreadCuda } from './kernels/ql-thread/index.js';
import { trmmCuda, trsmCuda, trsmDeviceVariableCuda, trsmVbatchedCovers, trsmVbatchedCuda } from './kernels/trsm/index.js';
import { trtriCuda, trtriDeviceVariableCuda, trtriVbatchedCovers, trtriVbatchedCuda } from './kernels/trtri/index.js';
import { complexPosvCuda, complexPosvSolve, complexPotrfCuda, complexPotrsCuda } from './kernels/zpotrf/index.js';
import { complexTrsmCuda } from './kernels/ztrsm/index.js';
import { complexHerkCuda, complexSyrkCuda } from './kernels/zherk/index.js';
import { complexTrmmCuda } from './kernels/ztrmm/index.js';
import { complexGetriCuda, complexLauumCuda, complexPotiCuda, complexPotriAfterFactor, complexPotriCuda, complexTrtriCuda } from './kernels/zinverse/index.js';
import { complexGesvdCuda, complexHeevCuda, heevCovers, zgesvdCovers } from './kernels/zjacobi/index.js';
import { complexGesvdBidiagCuda, zgesvdBidiagCovers } from './kernels/zbidiag/index.js';
import { complexHeevTridiagCuda, heevTridiagCovers } from './kernels/zheev/index.js';
import { tsm2Cuda, tsm2Serves } from './kernels/tsm2/index.js';
import { coversEachShape, partRequest, runByShape, runParts } from './kernels/common/shape-groups.js';
import { routesToTsqr } from './kernels/tsqr/index.js';
import { splitBeyondOwn } from './route-split.js';
import { complexGelsCuda, complexGeqrfCuda, complexOrgqrCuda, complexOrmqrCuda, zgelsCovers, zormqrCovers, zqrCovers } from './kernels/zqr/index.js';
import {
  cublasComplexGemm, cublasComplexGemmCovers, cublasGemm, cublasGemmCovers, cublasGesv, cublasGesvCovers, cublasGetrs, cublasGetrsCovers, cublasComplexTrsmCovers, cublasTrsm, cublasTrsmCovers,
  cusolverComplexPotrf, cusolverComplexPotrfCovers, cusolverGesvd, cusolverGesvdCovers, cusolverGetrf, cusolverGetrfCovers, cusolverHeev, cusolverHeevCovers,
  cusolverPotrf, cusolverPotrfCovers, cusolverSyev, cusolverSyevCovers, cusolverSyevd, cusolverSyevdCovers,
} from './vendor/index.js';
import type { ArrayRouted, RouteTaken } from '../core/device-backend.js';
import { tuningFor } from './model/tuning/index.js';
import type { Backend } from '../core/ops.js';
import type { DeviceArray, GpuDevice } from './runtime/types.js';

/** The validated, column-major request of operation K whose storages are all device arrays. */
export type DeviceRequest<K extends OpName> = Parameters<Backend<DeviceArray, DeviceArray>[K]>[0];

/** A launcher of operation K. */
export type GpuOp<K extends OpName> = (dev: GpuDevice, request: DeviceRequest<K>) => void;

/** One way to run operation K. */
export interface Candidate<K extends OpName> {
  /** Its name in routes, forces and the bench's route column. */
  readonly name: string;
  /** Which requests it takes (shape, dtype, device, count); absent: every request. */
  readonly covers?: (request: DeviceRequest<K>, dev: GpuDevice) => boolean;
  /** Runs it on the device; absent for the CPU reference, which the backend runs with copies. */
  readonly run?: GpuOp<K>;
  /** False where a graph cannot record its work (a vendor library's): a capture passes over it. Absent: true. */
  readonly capturable?: boolean;
}

/** The CPU reference: last in every list. */
const CPU = { name: 'cpu' } as const;

/** syev's tridiagonal design takes a batch whose every order lies in its band of the table (n >= syevFrom, <= TRIDIAG_MAX). */
function tridiagCovers(r: DeviceRequest<'syev'>, dev: GpuDevice): boolean {
  if (batchCount(r.a) === 0) return false;
  const dtype = batchDtype(r.a as Batch<Storage>, 'a');
  const tuning = tuningFor(dev.info.arch, 'tridiag');
  const uniform = uniformShape(r.a);
  if (uniform !== undefined) return tridiagServes(uniform.rows, dtype, tuning);
  for (let i = 0; i < batchCount(r.a); i++) if (!tridiagServes(shapeAt(r.a, i).rows, dtype, tuning)) return false;
  return true;
}

/** gesvd's bidiagonalization design takes a batch whose every shape the `bidiag` table's range holds (min(m, n) = 96 ... 512 by default). */
function bidiagCovers(r: DeviceRequest<'gesvd'>, dev: GpuDevice): boolean {
  if (batchCount(r.a) === 0) return false;
  const dtype = batchDtype(r.a as Batch<Storage>, 'a');
  const tuning = tuningFor(dev.info.arch, 'bidiag');
  const uniform = uniformShape(r.a);
  if (uniform !== undefined) return bidiagServes(uniform.rows, uniform.cols, dtype, tuning);
  for (let i = 0; i < batchCount(r.a); i++) { const sh = shapeAt(r.a, i); if (!bidiagServes(sh.rows, sh.cols, dtype, tuning)) return false; }
  return true;
}

/** syev's per-thread QL design takes a batch whose every order the table lists for its dtype and job (n <= 8). */
function qlThreadCovers(r: DeviceRequest<'syev'>, dev: GpuDevice): boolean {
  if (batchCount(r.a) === 0) return false;
  const dtype = batchDtype(r.a as Batch<Storage>, 'a');
  const tuning = tuningFor(dev.info.arch, 'qlThread');
  const uniform = uniformShape(r.a);
  const vectors = r.jobz === 'vectors';
  if (uniform !== undefined) return qlThreadServes(uniform.rows, dtype, vectors, tuning);
  for (let i = 0; i < batchCount(r.a); i++) if (!qlThreadServes(shapeAt(r.a, i).rows, dtype, vectors, tuning)) return false;
  return true;
}

/** TSM2 where it was chosen (or forced): a request it does not take is an error, never a silent no-op. */
function runTsm2(dev: GpuDevice, r: DeviceRequest<'gemm'>): void {
  if (!tsm2Cuda(dev, r)) throw new MyriadError('UNSUPPORTED', 'tsm2 takes one tall-and-skinny float product; this gemm is not one', 'force');
}

/**
 * The vendor candidates (cuda/vendor/): a cuBLAS or cuSOLVER routine, taken where the crossover
 * table of the device's card (model/tuning/vendor-*.ts) measured it faster than the own route and
 * the library loads; never recorded in a graph.
 */
const vendor = <K extends OpName>(name: 'cublas' | 'cusolver', covers: (r: DeviceRequest<K>, dev: GpuDevice) => boolean, run: GpuOp<K>): Candidate<K> =>
  ({ name, covers, run, capturable: false });

/**
 * A capability route (cuda/vendor/syevd.ts, gesvd.ts): a cuSOLVER dense routine, one matrix per call,
 * for the requests no own design covers; it stands after the own candidates and before the CPU
 * reference, and runs on any card where the library loads (no crossover table: beyond the own
 * designs' range the alternative is the CPU). Named after its routine; never recorded in a graph.
 */
const capability = <K extends OpName>(name: 'cusolver-syevd' | 'cusolver-gesvd', covers: (r: DeviceRequest<K>, dev: GpuDevice) => boolean, run: GpuOp<K>): Candidate<K> & { readonly run: GpuOp<K> } =>
  ({ name, covers, run, capturable: false });

/**
 * The factorisation of a vendor gesv: whichever route the router takes for getrf on that request
 * (never the CPU reference: its own GPU routes take every request).
 */
function routed<K extends 'getrf'>(op: K): GpuOp<K> {
  return (dev, r) => {
    if (!runRouted(op, dev, r as unknown as Record<string, unknown>)) throw new MyriadError('UNSUPPORTED', `no GPU route takes this ${op}`, 'a');
  };
}
const ROUTED_GETRF = routed('getrf');

/**
 * getrf on cuSOLVER, and on the own route the matrices it hands back (a pivot below the smallest
 * normal number, whose reciprocal the vendor multiplies by: vendor/getrf.ts), A restored: run as a
 * variable batch of those members, ipiv and info scattered to their places.
 */
function cusolverGetrfGuarded(dev: GpuDevice, r: DeviceRequest<'getrf'>): void {
  onOwnRoute('getrf', dev, r, cusolverGetrf(dev, r), (part) => runCandidate(ownRoute('getrf', part, dev), dev, part));
}

/**
 * The members `redo` (batch places) of a request a vendor route handed back, as one variable batch
 * run by `own` (their per-matrix integers gathered and scattered by runParts); nothing where none.
 */
function onOwnRoute(op: OpName, dev: GpuDevice, r: object, redo: readonly number[], own: (part: Record<string, unknown>) => void): void {
  if (redo.length === 0) return;
  const request = r as Record<string, unknown>;
  runParts(op, dev, request, [redo], (members, ints) => partRequest(op, request, members, ints), own);
}

/**
 * Complex trsm on cuBLAS, and on the own route the matrices it leaves as they were (a diagonal entry
 * whose reciprocal the vendor cannot take: vendor/trsm.ts), as a variable batch of those members.
 */
function cublasComplexTrsmGuarded(dev: GpuDevice, r: ComplexDeviceRequest<'trsm'>): void {
  onOwnRoute('trsm', dev, r, cublasTrsm(dev, r), (part) =>
    chooseComplex('trsm', part, dev, undefined, true).candidate.run!(dev, part as unknown as ComplexDeviceRequest<ComplexRouted>));
}

/** An operation with one GPU design, named as the operation, that takes every request: it, then the CPU reference. */
function single<K extends OpName>(op: K, run: GpuOp<K>): readonly Candidate<K>[] {
  return [{ name: op, run }, CPU];
}

/** syrk's candidates, real herk's too (the same request). */
function syrkRoutes<K extends 'syrk' | 'herk'>(): readonly Candidate<K>[] {
  return [
    { name: 'vbatched', covers: (r, dev) => syrkVbatchedCovers(r, dev), run: (dev, r) => syrkVbatchedCuda(dev, r) },
    { name: 'syrk', run: syrkCuda },
    CPU,
  ];
}

/**
 * syev's candidates; heev's too (on real data heev is syev; complex heev: COMPLEX_ROUTES).
 * 'ql-thread' (n <= 8, the table's band) before 'jacobi', whose per-thread design serves those
 * sizes where forced ('jacobi') or outside the band. What none of the own designs covers (n > 512)
 * runs on cusolverDn?syevd one matrix per call where libcusolver loads ('cusolver-syevd'), else on
 * the CPU reference; a variable batch with members on both sides is split between the two ('split').
 */
const SYEV_OWN: readonly Candidate<'syev'>[] = [
  vendor('cusolver', cusolverSyevCovers, cusolverSyev),
  { name: 'tridiag', covers: tridiagCovers, run: syevTridiagCuda },
  { name: 'ql-thread', covers: qlThreadCovers, run: syevQlThreadCuda },
  { name: 'jacobi', covers: (r) => jacobiCovers(r.a), run: syevCuda },
];
const SYEVD = capability<'syev'>('cusolver-syevd', cusolverSyevdCovers, cusolverSyevd);
const SYEV_ROUTES: readonly Candidate<'syev'>[] = [...SYEV_OWN, splitBeyondOwn('syev', SYEV_OWN, SYEVD), SYEVD, CPU];

/** gesvd's own candidates: 'bidiag' inside its table's range, 'jacobi' elsewhere to max(m, n) = 512 and where forced. */
const GESVD_OWN: readonly Candidate<'gesvd'>[] = [
  { name: 'bidiag', covers: bidiagCovers, run: gesvdBidiagCuda },
  { name: 'jacobi', covers: (r) => jacobiCovers(r.a), run: gesvdCuda },
];
const DENSE_GESVD = capability<'gesvd'>('cusolver-gesvd', cusolverGesvdCovers, cusolverGesvd);

/** Every operation's candidates, in order of preference. */
export const ROUTES: { readonly [K in OpName]: readonly Candidate<K>[] } = {
  gemm: [
    // cuBLAS first inside the card's rules: the TSM2R shapes where the vendor measured faster (op 'tsm2r'), and the rest.
    vendor('cublas', cublasGemmCovers, cublasGemm),
    { name: 'tsm2', covers: (r, dev) => tsm2Serves(dev, r), run: runTsm2 },
    // A variable batch of several shapes: one launch per size class (force 'gemm': one per shape).
    { name: 'vbatched', covers: (r) => gemmVbatchedCovers(r), run: (dev, r) => gemmVbatchedCuda(dev, r) },
    { name: 'gemm', run: gemmCuda },
    CPU,
  ],
  trsm: [
    vendor('cublas', cublasTrsmCovers, cublasTrsm),
    // A variable batch of several shapes: per size class of the triangle, the recursion over the class (force 'trsm': per shape).
    { name: 'vbatched', covers: (r, dev) => trsmVbatchedCovers(r, dev), run: (dev, r) => trsmVbatchedCuda(dev, r) },
    { name: 'trsm', run: trsmCuda },
    CPU,
  ],
  trmm: single('trmm', trmmCuda),
  // A variable batch of several shapes: per size class of C's order, the class leaves and one
  // variable-size GEMM of the off-diagonal blocks (force 'syrk': per shape). Real herk is syrk.
  syrk: syrkRoutes(),
  herk: syrkRoutes(),
  potrf: [
    vendor('cusolver', cusolverPotrfCovers, cusolverPotrf),
    { name: 'vbatched', covers: (r) => potrfVbatchedCovers(r), run: (dev, r) => potrfVbatchedCuda(dev, r) },
    { name: 'potrf', run: potrfCuda },
    CPU,
  ],
  // No vendor route: cusolverDn?potrsBatched writes the opposite triangle of A (measured on the H200, CUDA 13.0).
  // Variable batches of several shapes: trsm's class launches (posv: potrf's first); force 'potrs' / 'posv': per shape.
  potrs: [
    { name: 'vbatched', covers: solveVbatchedCovers, run: potrsVbatchedCuda },
    { name: 'potrs', run: potrsCuda },
    CPU,
  ],
  posv: [
    { name: 'vbatched', covers: posvVbatchedCovers, run: posvVbatchedCuda },
    { name: 'posv', run: posvCuda },
    CPU,
  ],
  getrf: [
    vendor('cusolver', cusolverGetrfCovers, cusolverGetrfGuarded),
    { name: 'vbatched', covers: (r, dev) => getrfVbatchedCovers(r, dev), run: (dev, r) => getrfVbatchedCuda(dev, r) },
    { name: 'getrf', run: getrfCuda },
    CPU,
  ],
  // Variable batches of several shapes: the permutation in one launch, trsm's class launches (gesv: getrf's first); force 'getrs' / 'gesv': per shape.
  getrs: [
    vendor('cublas', cublasGetrsCovers, cublasGetrs),
    { name: 'vbatched', covers: solveVbatchedCovers, run: getrsVbatchedCuda },
    { name: 'getrs', run: getrsCuda },
    CPU,
  ],
  gesv: [
    vendor('cublas', cublasGesvCovers, (dev, r) => cublasGesv(dev, r, ROUTED_GETRF)),
    { name: 'vbatched', covers: solveVbatchedCovers, run: gesvVbatchedCuda },
    { name: 'gesv', run: gesvCuda },
    CPU,
  ],
  trtri: [
    // A variable batch of several shapes: per size class of the order, a class leaf and the recursion by trsm's class solves (force 'trtri': per shape).
    { name: 'vbatched', covers: (r, dev) => trtriVbatchedCovers(r, dev), run: (dev, r) => trtriVbatchedCuda(dev, r) },
    { name: 'trtri', run: trtriCuda },
    CPU,
  ],
  lauum: single('lauum', lauumCuda),
  potri: single('potri', potriCuda),
  poti: single('poti', potiCuda),
  syev: SYEV_ROUTES,
  heev: SYEV_ROUTES,
  // 'bidiag' inside its table's range (k = min(m, n) = 96 ... 512, max(m, n) <= 4096), 'jacobi' elsewhere to
  // max(m, n) = 512 and where forced; beyond both, cusolverDn?gesvd one matrix per call where libcusolver loads, and
  // a variable batch with members on both sides split between the two.
  gesvd: [...GESVD_OWN, splitBeyondOwn('gesvd', GESVD_OWN, DENSE_GESVD), DENSE_GESVD, CPU],
  geqrf: [{ name: 'qr', covers: (r, dev) => qrCovers(r.a, dev), run: geqrfCuda }, CPU],
  orgqr: [{ name: 'qr', covers: (r, dev) => qrCovers(r.a, dev), run: orgqrCuda }, CPU],
  ormqr: [{ name: 'ormqr', covers: ormqrCovers, run: ormqrCuda }, CPU],
  gels: [{ name: 'gels', covers: gelsCovers, run: gelsCuda }, CPU],
  getri: [{ name: 'getri', covers: getriCovers, run: getriCuda }, CPU],
};

/**
 * variableDevice batches (sizes and addresses on the device, core/device-batch.ts): one route per
 * operation that takes them (gemm, potrf, getrf, trsm, potrs, posv, getrs, gesv, syrk, trtri), 'vdevice' (the class kernels of the `vbatched` route behind a
 * classification kernel). No CPU fallback: the host cannot read the members.
 */
export const DEVICE_VARIABLE_ROUTES = {
  gemm: { taken: Object.freeze({ op: 'gemm', route: 'vdevice', gpu: true }), run: gemmDeviceVariableCuda },
  potrf: { taken: Object.freeze({ op: 'potrf', route: 'vdevice', gpu: true }), run: potrfDeviceVariableCuda },
  getrf: { taken: Object.freeze({ op: 'getrf', route: 'vdevice', gpu: true }), run: getrfDeviceVariableCuda },
  trsm: { taken: Object.freeze({ op: 'trsm', route: 'vdevice', gpu: true }), run: trsmDeviceVariableCuda },
  potrs: { taken: Object.freeze({ op: 'potrs', route: 'vdevice', gpu: true }), run: potrsDeviceVariableCuda },
  posv: { taken: Object.freeze({ op: 'posv', route: 'vdevice', gpu: true }), run: posvDeviceVariableCuda },
  getrs: { taken: Object.freeze({ op: 'getrs', route: 'vdevice', gpu: true }), run: getrsDeviceVariableCuda },
  gesv: { taken: Object.freeze({ op: 'gesv', route: 'vdevice', gpu: true }), run: gesvDeviceVariableCuda },
  syrk: { taken: Object.freeze({ op: 'syrk', route: 'vdevice', gpu: true }), run: syrkDeviceVariableCuda },
  trtri: { taken: Object.freeze({ op: 'trtri', route: 'vdevice', gpu: true }), run: trtriDeviceVariableCuda },
} as const satisfies { readonly [K in DeviceVariableOp]: { readonly taken: RouteTaken; readonly run: (dev: GpuDevice, r: never) => void } };

/** The operations with GPU candidates for complex requests (isComplexRequest); the others run on the CPU reference. */
export type ComplexRouted = 'gemm' | 'trsm' | 'trmm' | 'syrk' | 'herk' | 'potrf' | 'potrs' | 'posv' | 'getrf' | 'getrs' | 'gesv' | 'trtri' | 'lauum' | 'potri' | 'poti' | 'getri' | 'heev' | 'gesvd'
  | 'geqrf' | 'orgqr' | 'ormqr' | 'gels';

/** A complex request of operation K on device arrays (the parts' dtype; rows, ld, offsets in pairs). */
export type ComplexDeviceRequest<K extends ComplexRouted> = ComplexRequests<DeviceArray, DeviceArray>[K];

/** Complex posv composed of two routes: cuSOLVER's z/cpotrfBatched (the factor and info), then the own solves keeping a failed matrix's B. */
function cusolverFactorOwnSolve(dev: GpuDevice, r: ComplexDeviceRequest<'posv'>): void {
  cusolverComplexPotrf(dev, r);
  complexPosvSolve(dev, r);
}

/** Complex poti composed of two routes: cuSOLVER's z/cpotrfBatched (the factor and info), then the own inverse where info is 0. */
function cusolverFactorOwnInverse(dev: GpuDevice, r: ComplexDeviceRequest<'poti'>): void {
  cusolverComplexPotrf(dev, r);
  complexPotriAfterFactor(dev, r);
}

/** Complex heev of strided or list batches (one shape group of a variable batch): the Jacobi warp design to order 32, the tridiagonal design above. */
function complexHeevBySize(dev: GpuDevice, r: ComplexDeviceRequest<'heev'>): void {
  if (heevCovers(r.a, r.w)) complexHeevCuda(dev, r);
  else complexHeevTridiagCuda(dev, r);
}

/** Complex gesvd of strided or list batches (one shape group of a variable batch): the Jacobi warp design to max(m, n) = 32, the bidiagonalization design above. */
function complexGesvdBySize(dev: GpuDevice, r: ComplexDeviceRequest<'gesvd'>): void {
  if (zgesvdCovers(r)) complexGesvdCuda(dev, r);
  else complexGesvdBidiagCuda(dev, r);
}

/** One way to run a complex request of K: as `Candidate`, on the complex request. */
export interface ComplexCandidate<K extends ComplexRouted> {
  readonly name: string;
  readonly covers?: (request: ComplexDeviceRequest<K>, dev: GpuDevice) => boolean;
  readonly run?: (dev: GpuDevice, request: ComplexDeviceRequest<K>) => void;
  readonly capturable?: boolean;
}

/**
 * An own complex candidate: `covers` and `run` of the family's launchers (strided and list batches),
 * and for a request with a variable batch the same launchers once per group of members of one shape
 * and ld, as list batches (kernels/common/shape-groups.ts), where `covers` takes every group. No
 * `covers`: the launchers take every strided and list batch, so every request (no grouping to ask).
 */
function ownComplex<K extends ComplexRouted>(op: K, name: string, covers: ((r: ComplexDeviceRequest<K>, dev: GpuDevice) => boolean) | undefined,
  run: (dev: GpuDevice, r: ComplexDeviceRequest<K>) => void): ComplexCandidate<K> {
  return { name, ...(covers === undefined ? {} : { covers: coversEachShape(op, covers) }), run: runByShape(op, run) };
}

/**
 * The candidates of complex requests, in order of preference, named as the real ones ('gemm' the
 * own kernels, 'cublas' the vendor's, 'cpu' the reference). The own kernels take strided and list
 * batches of any size, and variable batches by groups of one shape (`ownComplex`); the vendor's
 * candidates come first and run inside the card's measured rules for the complex type (forced by
 * name they run anywhere they can; of them only trsm's cuBLAS route and heev's cuSOLVER route take a
 * variable batch, where its members share one shape).
 */
export const COMPLEX_ROUTES: { readonly [K in ComplexRouted]: readonly ComplexCandidate<K>[] } = {
  gemm: [
    // cuBLAS's z/cgemm inside the card's measured crossover rules for the complex type (model/tuning/vendor-*.ts).
    { name: 'cublas', covers: cublasComplexGemmCovers, run: cublasComplexGemm, capturable: false },
    ownComplex('gemm', 'gemm', undefined, complexGemmCuda),
    CPU,
  ],
  // Any order (ztrsm/): cuBLAS's z/ctrsmBatched inside the card's measured crossover rules for the complex type, else
  // the warp design for triangles of order <= 32 and the recursion over it with the complex GEMM beyond.
  trsm: [
    { name: 'cublas', covers: cublasComplexTrsmCovers, run: cublasComplexTrsmGuarded, capturable: false },
    ownComplex('trsm', 'trsm', undefined, complexTrsmCuda),
    CPU,
  ],
  // Any order (ztrmm/): the warp design for triangles of order <= 32 and beyond it the recursion over it with the
  // complex GEMM, in place on B.
  trmm: [ownComplex('trmm', 'trmm', undefined, complexTrmmCuda), CPU],
  // zsyrk, any order (zherk/ with `symmetric`): a thread per element of C's triangle for n <= 32, beyond it diagonal
  // blocks on that kernel and the triangle's off-diagonal blocks by the complex GEMM (op 'T', nothing conjugated).
  syrk: [ownComplex('syrk', 'syrk', undefined, complexSyrkCuda), CPU],
  // Any order (zherk/): a thread per element of C's triangle for n <= 32, beyond it diagonal blocks on that kernel
  // and the triangle's off-diagonal blocks by the complex GEMM.
  herk: [ownComplex('herk', 'herk', undefined, complexHerkCuda), CPU],
  // The complex Cholesky, any order: cuSOLVER's z/cpotrfBatched inside the card's measured crossover rules for the
  // complex type (strided and list batches), else the own kernels (kernels/zpotrf/: the warp design for n <= 32,
  // the recursion (complex trsm and herk) beyond).
  potrf: [
    { name: 'cusolver', covers: cusolverComplexPotrfCovers, run: cusolverComplexPotrf, capturable: false },
    ownComplex('potrf', 'potrf', undefined, complexPotrfCuda),
    CPU,
  ],
  potrs: [ownComplex('potrs', 'potrs', undefined, complexPotrsCuda), CPU],
  // cuSOLVER's factor where the table sends potrf there (lower), then the own solves with B kept where info > 0.
  posv: [
    { name: 'cusolver', covers: (r, dev) => r.b.kind !== 'variable' && cusolverComplexPotrfCovers(r, dev), run: cusolverFactorOwnSolve, capturable: false },
    ownComplex('posv', 'posv', undefined, complexPosvCuda),
    CPU,
  ],
  // complex-lu/, any order: the register designs for n <= 32, the blocked steps above (panel kernel, zlaswp, the
  // complex trsm and gemm).
  getrf: [ownComplex('getrf', 'getrf', undefined, complexGetrfCuda), CPU],
  getrs: [ownComplex('getrs', 'getrs', undefined, complexGetrsCuda), CPU],
  gesv: [ownComplex('gesv', 'gesv', undefined, complexGesvCuda), CPU],
  // The complex inverses (zinverse/), any order, composed of the complex trsm, herk, gemm and Cholesky on workspace
  // copies, the result moved into A where info is 0.
  trtri: [ownComplex('trtri', 'trtri', undefined, complexTrtriCuda), CPU],
  lauum: [ownComplex('lauum', 'lauum', undefined, complexLauumCuda), CPU],
  potri: [ownComplex('potri', 'potri', undefined, complexPotriCuda), CPU],
  // cuSOLVER's factor where the table sends potrf there (lower; strided and list batches), then the own inverse; else
  // the own potrf and inverse.
  poti: [
    { name: 'cusolver', covers: cusolverComplexPotrfCovers, run: cusolverFactorOwnInverse, capturable: false },
    ownComplex('poti', 'poti', undefined, complexPotiCuda),
    CPU,
  ],
  getri: [ownComplex('getri', 'getri', undefined, complexGetriCuda), CPU],
  // The two-sided complex Jacobi warp design (zjacobi/) for n <= 32 (a variable batch: every member); 33 ... 512 the
  // tridiagonal design (zheev/: zhetd2's reduction to a real tridiagonal, the tridiag family's bisection and inverse
  // iteration, V = Q Z), a variable batch with members on both sides of 32 by groups of one shape, each group on its
  // design (route 'tridiag'); larger: the CPU reference. cusolverDnXsyevBatched on the complex type first, inside the
  // card's measured rules ('syev' with the complex dtype).
  heev: [
    { name: 'cusolver', covers: cusolverHeevCovers, run: cusolverHeev, capturable: false },
    ownComplex('heev', 'jacobi', (r) => heevCovers(r.a, r.w), complexHeevCuda),
    ownComplex('heev', 'tridiag', (r) => heevCovers(r.a, r.w) || heevTridiagCovers(r.a, r.w), complexHeevBySize),
    CPU,
  ],
  // The one-sided complex Jacobi warp design (zjacobi/): max(m, n) <= 32 (a variable batch: every member); min(m, n) =
  // 33 ... 512 with max(m, n) <= 4096 the bidiagonalization design (zbidiag/: zgebd2 to a real bidiagonal, the real
  // Golub-Kahan kernels of the tridiag and bidiag families, the complex reflectors by the zqr family's unmqr; a variable
  // batch with members on both sides of 32 by groups of one shape, each group on its design: route 'bidiag'); larger, and shapes between the two (max(m, n) > 32 with min(m, n) < 33): the CPU
  // reference (no cusolverDnZgesvd binding).
  gesvd: [
    ownComplex('gesvd', 'jacobi', (r) => zgesvdCovers(r), complexGesvdCuda),
    ownComplex('gesvd', 'bidiag', (r) => zgesvdCovers(r) || zgesvdBidiagCovers(r), complexGesvdBySize),
    CPU,
  ],
  // The complex Householder QR (zqr/), named as the real routes: the shared-memory kernel per matrix (warp scope to 32,
  // block scope while the tile fits) below 128 reflectors, the blocked compact-WY driver (panels on that kernel, the
  // trailing updates on the complex GEMM) above or where the tile does not fit; its `covers` asks that the narrowest
  // panel (8 columns) fit the shared memory.
  geqrf: [ownComplex('geqrf', 'qr', (r, dev) => zqrCovers(r.a, dev), complexGeqrfCuda), CPU],
  orgqr: [ownComplex('orgqr', 'qr', (r, dev) => zqrCovers(r.a, dev), complexOrgqrCuda), CPU],
  // zunmqr, any size: zunm2r's shared kernel below 64 reflectors where they fit, zunmqr's WY blocks on the complex GEMM beyond.
  ormqr: [ownComplex('ormqr', 'ormqr', (r) => zormqrCovers(r), complexOrmqrCuda), CPU],
  // zgels (trans 'N'), m >= n and m < n: a composition of the zqr family's geqrf and unmqr and the complex trsm with three
  // small kernels of its own (zqr/launch-gels.ts); empty systems on the CPU reference.
  gels: [ownComplex('gels', 'gels', zgelsCovers, complexGelsCuda), CPU],
};

/** The routes complex requests report, per operation (the CPU candidate is one object in every list). */
const COMPLEX_TAKEN = new Map((Object.entries(COMPLEX_ROUTES) as [ComplexRouted, readonly ComplexCandidate<ComplexRouted>[]][]).map(([op, list]) =>
  [op as OpName, new Map(list.map((c) => [c, Object.freeze({ op: op as OpName, route: c.name, gpu: c.run !== undefined })] as const))] as const));

/**
 * The candidate for a complex request of `op` (chosen as `choose` does, `force` naming one of the
 * complex list), and the route it reports. An operation without complex GPU candidates: the CPU
 * reference.
 */
export function chooseComplex(op: OpName, request: Record<string, unknown>, dev: GpuDevice, force?: string, recording = false): { candidate: ComplexCandidate<ComplexRouted>; taken: RouteTaken } {
  if (!Object.hasOwn(COMPLEX_ROUTES, op)) {
    if (force !== undefined && force !== CPU.name) throw new MyriadError('ENUM', `${op} on complex data has no route '${force}' (routes: ${CPU.name})`, 'force');
    return { candidate: CPU, taken: { op, route: CPU.name, gpu: false } };
  }
  // One operation's list, seen through the union's candidate type (its request is that operation's).
  const list = COMPLEX_ROUTES[op as ComplexRouted] as unknown as readonly ComplexCandidate<ComplexRouted>[];
  const r = request as unknown as ComplexDeviceRequest<ComplexRouted>;
  let chosen: ComplexCandidate<ComplexRouted> | undefined;
  if (force !== undefined) {
    chosen = list.find((c) => c.name === force);
    if (chosen === undefined) throw new MyriadError('ENUM', `${op} on complex data has no route '${force}' (routes: ${list.map((c) => c.name).join(', ')})`, 'force');
    if (recording && chosen.capturable === false)
      throw new MyriadError('UNSUPPORTED', `${op}'s route '${force}' cannot be recorded in ctx.capture() (a vendor library's work)`, 'force');
  } else {
    chosen = list.find((c) => (!recording || c.capturable !== false) && (c.covers === undefined || c.covers(r, dev))) ?? list[list.length - 1]!;
  }
  return { candidate: chosen, taken: COMPLEX_TAKEN.get(op)!.get(chosen)! };
}

/** One design of an array-level function, for a stack of `count` m x n matrices. */
export interface ArrayCandidate {
  readonly name: string;
  readonly covers?: (p: { m: number; n: number; count: number }, dev: GpuDevice) => boolean;
}

/** The array-level functions whose design the router chooses (the rest are compositions of the operations above). */
export const ARRAY_ROUTES: { readonly [K in ArrayRouted]: readonly ArrayCandidate[] } = {
  qr: [
    { name: 'tsqr', covers: (p, dev) => routesToTsqr(p.m, p.n, p.count, tuningFor(dev.info.arch, 'tsqr')) },
    { name: 'geqrf+orgqr' },
  ],
};

/** The design of array-level function `fn` for a stack (forced by name where `force` gives one). */
export function chooseArray(fn: ArrayRouted, p: { m: number; n: number; count: number }, dev: GpuDevice, force?: string): ArrayCandidate {
  const list = ARRAY_ROUTES[fn];
  if (force !== undefined) {
    const pinned = list.find((c) => c.name === force);
    if (pinned === undefined) throw new MyriadError('ENUM', `${fn} has no route '${force}' (routes: ${list.map((c) => c.name).join(', ')})`, 'force');
    return pinned;
  }
  for (const c of list) if (c.covers === undefined || c.covers(p, dev)) return c;
  return list[list.length - 1]!;
}

/** Candidates pinned by name, per operation (tests, benchmarks, sweeps). */
export type RouteForce = { readonly [K in OpName | ArrayRouted]?: string };

/**
 * The candidate that serves `request`: the forced one where `force` names one (an unknown name is
 * an error naming the choices), else the first that covers it. `recording` (inside ctx.capture(),
 * its run and its recording alike): only candidates a graph can record.
 */
export function choose<K extends OpName>(op: K, request: Record<string, unknown>, dev: GpuDevice, force?: string, recording = false): Candidate<K> {
  const list = ROUTES[op] as readonly Candidate<K>[];
  const r = request as unknown as DeviceRequest<K>;
  if (force !== undefined) {
    const pinned = list.find((c) => c.name === force);
    if (pinned === undefined) throw new MyriadError('ENUM', `${op} has no route '${force}' (routes: ${list.map((c) => c.name).join(', ')})`, 'force');
    if (recording && pinned.capturable === false)
      throw new MyriadError('UNSUPPORTED', `${op}'s route '${force}' cannot be recorded in ctx.capture() (a vendor library's work)`, 'force');
    return pinned;
  }
  for (const c of list) if ((!recording || c.capturable !== false) && (c.covers === undefined || c.covers(r, dev))) return c;
  return list[list.length - 1]!;
}

/**
 * The first candidate of `op` that covers `request` among those a graph can record: the own route,
 * passing over the vendor candidates (what the vendor is measured against, what a capture runs, and
 * what a host call's chunks run where the whole call did not take the vendor). `force` as in `choose`.
 */
export function ownRoute<K extends OpName>(op: K, request: Record<string, unknown>, dev: GpuDevice, force?: string): Candidate<K> {
  return choose(op, request, dev, force, true);
}

/** Each operation's routes as `lastRoute` reports them, made once (no object per call). */
const TAKEN = Object.fromEntries(Object.entries(ROUTES).map(([op, list]) => [op, new Map(
  (list as readonly Candidate<OpName>[]).map((c) => [c, Object.freeze({ op: op as OpName, route: c.name, gpu: c.run !== undefined })]),
)])) as Record<OpName, Map<Candidate<OpName>, RouteTaken>>;

/** The route taken when `op` runs candidate `c` (one shared, frozen object per candidate). */
export function routeTaken<K extends OpName>(op: K, c: Candidate<K>): RouteTaken {
  return TAKEN[op].get(c as unknown as Candidate<OpName>)!;
}

/** Runs a chosen GPU candidate on a request the backends assembled by field name (validated for `op` by the API: the one place that trusts it). */
export function runCandidate<K extends OpName>(c: Candidate<K>, dev: GpuDevice, request: Record<string, unknown>): void {
  c.run!(dev, request as unknown as DeviceRequest<K>);
}

/** Runs `op` through its route on device data (tools, scripts); false where the route is the CPU reference. */
export function runRouted(op: OpName, dev: GpuDevice, request: Record<string, unknown>, force?: string): boolean {
  const c = choose(op, request, dev, force);
  if (c.run === undefined) return false;
  runCandidate(c, dev, request);
  return true;
}

/** Whether `op` has any GPU candidate. */
export function hasGpuOp(op: OpName): boolean {
  return (ROUTES[op] as readonly Candidate<OpName>[]).some((c) => c.run !== undefined);
}

/** Whether a GPU candidate takes this request on `dev` (false: the CPU reference would run it). */
export function gpuCovers(op: OpName, request: Record<string, unknown>, dev: GpuDevice): boolean {
  return choose(op, request, dev).run !== undefined;
}

/** Whether `op`'s GPU work can be recorded in a graph: it has a GPU route, and its spec says its work is capturable. */
export function capturableOp(op: OpName): boolean {
  return hasGpuOp(op) && OP_SPECS[op].capturable;
}

/** The candidates' names of `op`, in order (for errors, docs and the bench). */
export function routeNames(op: OpName): readonly string[] {
  return (ROUTES[op] as readonly Candidate<OpName>[]).map((c) => c.name);
}
