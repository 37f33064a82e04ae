/**
 * The fast CPU backend: the reference first, then override what is faster (BLIS's
 * `bli_cntx_init_<arch>`: every operation exists in src/cpu/, and this one place replaces the
 * ones with generated kernels). Every operation, overridden or not, runs on all cores through
 * the worker pool (threads/parallel.ts) when the call is large enough.
 */
import type { FloatArray } from '../core/dtype.js';
import { OP_NAMES, type Backend, type OpName } from '../core/ops.js';
import { cpuBackend, type HostBackend } from '../cpu/backend.js';
import { fastSyrk } from './ops/syrk.js';
import { fastTrmm, fastTrsm } from './ops/trsm.js';
import { fastPosv, fastPotrf, fastPotrs } from './ops/potrf.js';
import { fastGemm } from './ops/gemm.js';
import { fastLauum, fastPotri, fastTrtri } from './ops/trtri.js';
import { fastGesv, fastGetrf, fastGetrs } from './ops/getrf.js';
import { fastSyev } from './ops/syev.js';
import { isComplexRequest } from '../core/op-specs.js';
import { complexReferenceOf } from '../cpu/complex/backend.js';
import { FAST_COMPLEX, type ComplexFastOp } from './ops/zfactor.js';
import { parallel } from './threads/parallel.js';
import { cpuThreads } from './threads/pool.js';

/** The single-threaded fast kernels: what each worker runs on its share of the batch. */
export const serialKernels: HostBackend = Object.freeze({
  ...cpuBackend,
  name: 'cpu-fast',
  gemm: fastGemm,
  potrf: fastPotrf,
  posv: fastPosv,
  potrs: fastPotrs,
  getrf: fastGetrf,
  gesv: fastGesv,
  getrs: fastGetrs,
  trsm: fastTrsm,
  trmm: fastTrmm,
  syrk: fastSyrk,
  herk: fastSyrk,
  trtri: fastTrtri,
  lauum: fastLauum,
  potri: fastPotri,
  syev: fastSyev,
  heev: fastSyev,
});

export type HostOp = (r: Parameters<Backend<FloatArray, Int32Array>[OpName]>[0]) => void;

/** The complex kernels of the ops that have them (ops/zfactor.ts); the others' complex requests run the complex reference. */
const complexSerial = (op: OpName): HostOp | undefined =>
  Object.hasOwn(FAST_COMPLEX, op) ? (FAST_COMPLEX[op as ComplexFastOp] as HostOp) : undefined;

/** The function a worker or the caller runs for an op: its complex kernel for a complex request. */
export function serialOp(op: OpName): HostOp {
  const real = serialKernels[op] as HostOp;
  const complex = complexSerial(op);
  return complex ? (r) => (isComplexRequest(op, r) ? complex(r) : real(r)) : real;
}

const fastComplexOps = new Map<OpName, (r: object) => void>();

/**
 * What a CPU context runs for a complex request of `op` on the backend named `backend`: on the
 * fast backend the complex kernels spread over the worker pool where the op has them, else the
 * complex reference (single-threaded).
 */
export function hostComplexOp(backend: string, op: OpName): (r: object) => void {
  const complex = backend === fastCpuBackend.name ? complexSerial(op) : undefined;
  if (!complex) return complexReferenceOf(op);
  let run = fastComplexOps.get(op);
  if (!run) fastComplexOps.set(op, (run = parallel(op, complex as (r: object) => void)));
  return run;
}

/** The fast backend as the CPU context sees it: every op spread over the worker pool. */
export const fastCpuBackend: HostBackend = Object.freeze({
  ...Object.fromEntries(OP_NAMES.map((op) => [op, parallel(op, serialKernels[op] as (r: object) => void)])),
  name: 'cpu-fast',
} as unknown as HostBackend);

/** One line for Context.describe() on the CPU. */
export function describeHostBackend(name: string): string {
  return name === 'cpu' ? 'cpu (TypeScript reference backend)'
    : `cpu (generated JavaScript and WebAssembly SIMD kernels, ${cpuThreads()} thread(s))`;
}
