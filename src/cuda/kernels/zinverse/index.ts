/**
 * Complex inverses on the GPU (ztrtri, zlauum, zpotri, poti, zgetri and the complex64 forms) on
 * strided and list batches of any order: compositions of the complex trsm, herk, gemm and Cholesky
 * families with a diagonal scan, moves between A and workspaces and getri's column interchanges. The family's public face.
 */
export type { ZcolumnsParams, ZdiagonalMove, ZmoveOp, ZmoveParams, ZscanParams } from './params.js';
export { MOVE_THREADS, SCAN_THREADS, zinverseColumnsSource, zinverseMoveSource, zinverseScanSource } from './generate-move.js';
export {
  getriWorkspace, lauumWorkspace, potriWorkspace, trtriWorkspace, zgetriSteps, ZINVERSE_LEAF,
  zlauumSteps, zpotriSteps, ztrtriSteps, type ZinverseStep, type ZinverseWorkspace, type ZpotriFactor,
} from './plan.js';
export {
  complexGetriCuda, complexLauumCuda, complexPotiCuda, complexPotriAfterFactor, complexPotriCuda, complexTrtriCuda,
} from './launch.js';
