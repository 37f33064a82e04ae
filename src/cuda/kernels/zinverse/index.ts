/**
 * Complex inverses on the GPU (ztrtri, zlauum, zpotri, poti, zgetri and the complex64 forms) on
 * strided and list batches of any order: compositions of the complex trsm, herk, gemm, Cholesky and
 * LU families with a diagonal scan and moves between A and workspaces. The family's public face.
 */
export type { ZmoveOp, ZmoveParams, ZscanParams } from './params.js';
export { MOVE_THREADS, SCAN_THREADS, zinverseMoveSource, zinverseScanSource } from './generate-move.js';
export {
  getriWorkspace, lauumProductSteps, lauumWorkspace, potriWorkspace, triangularInverseSteps, trtriWorkspace, zgetriSteps, ZINVERSE_LEAF,
  zlauumSteps, zpotriSteps, ztrtriSteps, type ZinverseStep, type ZinverseWorkspace, type ZpotriFactor,
} from './plan.js';
export {
  complexGetriCuda, complexLauumCuda, complexPotiCuda, complexPotriAfterFactor, complexPotriCuda, complexTrtriCuda, zinverseCovers,
} from './launch.js';
