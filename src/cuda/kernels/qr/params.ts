/**
 * Parameter objects of the batched Householder QR kernels (geqrf, orgqr): the shared-memory kernel's
 * and the blocked driver's, common to the real and the complex family (common/householder-plan.ts).
 * A generator is a pure function of its parameter object.
 *
 * Scope: where a group's lanes synchronise: 'warp' (max(m, n) <= 32: a matrix per group of `threads`
 * <= 32 lanes, several matrices per block, __syncwarp) or 'block' (a matrix per thread block of
 * `threads` > 32, __syncthreads).
 */
import type {
  HouseholderBlockedPlan, HouseholderDesign, HouseholderForce, HouseholderPlan, HouseholderScope, HouseholderShape, HouseholderSharedParams,
} from '../common/householder-plan.js';

export type QrScope = HouseholderScope;
export type QrShape = HouseholderShape;
export type QrSharedParams = HouseholderSharedParams;
export type QrForce = HouseholderForce;
export type QrPlan = HouseholderPlan;
export type QrBlockedPlan = HouseholderBlockedPlan;
export type QrDesign = HouseholderDesign;
