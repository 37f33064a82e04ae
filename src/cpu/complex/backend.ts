/**
 * The complex CPU reference: one function per operation that takes complex batches (the keys of
 * `ComplexRequests`, core/op-specs.ts). Every context runs complex requests here (the cpu backend
 * too, single-threaded; a CUDA context on host copies of device data).
 */
import type { FloatArray } from '../../core/dtype.js';
import { MyriadError } from '../../core/errors.js';
import type { ComplexOpName, ComplexRequests, OpName } from '../../core/op-specs.js';
import { cpuGemmComplex } from './zgemm.js';
import { cpuGetrfComplex } from './zgetrf.js';
import { cpuGetriComplex } from './zgetri.js';
import { cpuGelsComplex } from './zgels.js';
import { cpuGesvdComplex } from './zgesvd.js';
import { cpuHeevComplex } from './zheev.js';
import { cpuGeqrfComplex, cpuOrgqrComplex, cpuOrmqrComplex } from './zqr.js';
import { cpuLauumComplex, cpuPotiComplex, cpuPotriComplex, cpuTrtriComplex } from './zinverse.js';
import { cpuPotrfComplex } from './zpotrf.js';
import { cpuGesvComplex, cpuGetrsComplex, cpuPosvComplex, cpuPotrsComplex } from './zsolve.js';
import { cpuHerkComplex, cpuSyrkComplex } from './zrankk.js';
import { cpuTrmmComplex } from './ztrmm.js';
import { cpuTrsmComplex } from './ztrsm.js';

export type ComplexHostOps = { readonly [K in ComplexOpName]: (r: ComplexRequests<FloatArray, Int32Array>[K]) => void };

export const complexReference: ComplexHostOps = Object.freeze({
  gemm: cpuGemmComplex,
  trsm: cpuTrsmComplex,
  trmm: cpuTrmmComplex,
  syrk: cpuSyrkComplex,
  herk: cpuHerkComplex,
  potrf: cpuPotrfComplex,
  potrs: cpuPotrsComplex,
  posv: cpuPosvComplex,
  getrf: cpuGetrfComplex,
  getrs: cpuGetrsComplex,
  gesv: cpuGesvComplex,
  trtri: cpuTrtriComplex,
  lauum: cpuLauumComplex,
  potri: cpuPotriComplex,
  poti: cpuPotiComplex,
  getri: cpuGetriComplex,
  heev: cpuHeevComplex,
  geqrf: cpuGeqrfComplex,
  orgqr: cpuOrgqrComplex,
  ormqr: cpuOrmqrComplex,
  gels: cpuGelsComplex,
  gesvd: cpuGesvdComplex,
});

/** The complex reference of `op`; UNSUPPORTED where it has none (validation rejects those first). */
export function complexReferenceOf(op: OpName): (request: object) => void {
  if (!Object.hasOwn(complexReference, op)) throw new MyriadError('UNSUPPORTED', `${op} does not support complex batches yet`, op);
  return complexReference[op as ComplexOpName] as (request: object) => void;
}
