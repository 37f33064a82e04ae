/** The CPU reference for the LAPACK-level operations (see each file for the LAPACK routine it follows). */
export { cpuPotrf, potrfMatrix } from './potrf.js';
export { cpuGetrf, getrfMatrix } from './getrf.js';
export { cpuGetri, getriMatrix } from './getri.js';
export { cpuPotrs, cpuPosv, cpuGetrs, cpuGesv } from './solve.js';
export { cpuSyev, cpuGesvd, syevMatrix, gesvdMatrix } from './jacobi.js';
export { cpuTrtri, cpuLauum, cpuPotri, cpuPoti, trtriMatrix, lauumMatrix } from './inverse.js';
export { cpuGeqrf, cpuOrgqr, cpuOrmqr, cpuGels, geqr2, org2r, orm2r } from './qr.js';
