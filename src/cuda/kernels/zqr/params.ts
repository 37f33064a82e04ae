/**
 * Parameter objects of the complex Householder QR family (zgeqrf, zungqr, zunmqr over (re, im)
 * pairs). A generator is a pure function of its parameter object.
 */
import type { DType } from '../../../core/dtype.js';
import type { Side } from '../../../core/enums.js';
import type { OperandKind } from '../common/batch-pointer.js';
import type {
  HouseholderApplyShape, HouseholderBlockedPlan, HouseholderDesign, HouseholderForce, HouseholderPlan, HouseholderShape, HouseholderSharedParams,
} from '../common/householder-plan.js';

/**
 * The shared-memory Householder kernel's and the blocked driver's parameters: the real family's
 * (common/householder-plan.ts), `dtype` the parts' type.
 */
export type ZqrShape = HouseholderShape;
export type ZqrSharedParams = HouseholderSharedParams;
export type ZqrPlan = HouseholderPlan;
export type ZqrBlockedPlan = HouseholderBlockedPlan;
export type ZqrDesign = HouseholderDesign;
export type ZqrForce = HouseholderForce;

/** zunm2r's kernel (generate-ormqr.ts): sizes are kernel arguments. */
export interface ZormqrParams {
  readonly dtype: DType;
  readonly side: Side;
  readonly trans: 'N' | 'C';
  /** The form of all three operands (A, tau, C). */
  readonly kind: OperandKind;
}

/** Launch shape of one zunm2r group: the real ormqr kernel's (common/householder-plan.ts), its slot in pairs. */
export type ZormqrShape = HouseholderApplyShape;

export interface ZormqrPlan {
  readonly params: ZormqrParams;
  readonly shape: ZormqrShape;
}

export interface ZormqrForce {
  readonly design?: 'shared' | 'blocked';
  readonly panel?: number;
  readonly threads?: number;
}

/** The compact WY kernel (generate-wy.ts): V explicit and Y = V T or V T^H of a block of <= nb reflectors. */
export interface ZwyParams {
  readonly dtype: DType;
  readonly kind: OperandKind;
  readonly nb: number;
  /** Y = V T^H instead of V T (C Q on the right: C - (C V) (V T^H)^H). */
  readonly conjT: boolean;
}

/** zlaset on a view: 0 off the diagonal, a real value on it. */
export interface ZlasetParams {
  readonly dtype: DType;
  readonly kind: OperandKind;
}
