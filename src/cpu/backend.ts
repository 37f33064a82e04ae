/**
 * The CPU backend: the reference implementation of every operation, in plain TypeScript.
 * It is the oracle for the GPU kernels and the fallback where no GPU is usable.
 */
import type { FloatArray } from '../core/dtype.js';
import type { Backend } from '../core/ops.js';
import { cpuGemm, cpuSyrk, cpuTrmm, cpuTrsm } from './blas3.js';
import {
  cpuGels, cpuGeqrf, cpuGesv, cpuGesvd, cpuGetrf, cpuGetri, cpuGetrs, cpuLauum, cpuOrgqr, cpuOrmqr, cpuPosv, cpuPotrf, cpuPoti, cpuPotri, cpuPotrs, cpuSyev, cpuTrtri,
} from './lapack/index.js';

export type HostBackend = Backend<FloatArray, Int32Array>;

export const cpuBackend: HostBackend = Object.freeze({
  name: 'cpu',
  gemm: cpuGemm,
  trsm: cpuTrsm,
  trmm: cpuTrmm,
  syrk: cpuSyrk,
  herk: cpuSyrk,
  potrf: cpuPotrf,
  potrs: cpuPotrs,
  posv: cpuPosv,
  getrf: cpuGetrf,
  getrs: cpuGetrs,
  gesv: cpuGesv,
  trtri: cpuTrtri,
  lauum: cpuLauum,
  potri: cpuPotri,
  poti: cpuPoti,
  syev: cpuSyev,
  heev: cpuSyev,
  gesvd: cpuGesvd,
  geqrf: cpuGeqrf,
  orgqr: cpuOrgqr,
  ormqr: cpuOrmqr,
  gels: cpuGels,
  getri: cpuGetri,
});
