import type { QlThreadTuning } from './ql-thread-types.js';

/**
 * Not measured yet: chosen by operation counts; the GPU sweep (scripts/probe/syev-small.mjs)
 * decides the band. float64 n = 2 ... 8: at n = 8 the per-thread Jacobi takes 6-7 sweeps of 28
 * rotations (~20,000 FP64 instructions a matrix, 4.79 ms for 1,000,000 matrices with vectors on an
 * H200 against a bandwidth bound of ~0.27 ms); Householder, Q's formation and 18 QL iterations
 * (random matrices, host emulation) an estimated 6,000-7,000. At n = 2 both are one rotation, but
 * the Jacobi design's check sweep costs two more square roots and a test. float32 n = 5 ... 8: the
 * QL design computes in float64, at half the FP32 rate of the float32 Jacobi, so by the same counts
 * it gains from about n = 5 (~1.5x at 8) and ties or loses below.
 */
export const defaultQlThreadTuning: QlThreadTuning = {
  syev: { float64: { from: 2, to: 8 }, float32: { from: 5, to: 8 } },
};
