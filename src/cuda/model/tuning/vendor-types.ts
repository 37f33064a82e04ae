/**
 * The vendor crossover tables' shape: per card (DeviceInfo.name, not the architecture: an H100 and
 * an H200 are both sm_90 and cross over at different sizes), the regions where a cuBLAS or cuSOLVER
 * routine was measured faster than the project's own route. A request inside a rule goes to that
 * vendor route; everywhere else (and on a card without a table) the own routes run. A rule is
 * measured data: it keeps the points behind it, each with its ratio vendor ms / own ms, and exists
 * only where every one of them is below VENDOR_RATIO_MAX.
 */
import type { ElementType } from '../../../core/dtype.js';
import type { Side } from '../../../core/enums.js';

/**
 * The operations with a vendor candidate. 'tsm2r': a gemm of the TSM2R shape (one product, m and k
 * large, C m x n with n <= 32: kernels/tsm2/), its rules' n C's columns.
 */
export type VendorOp = 'gemm' | 'tsm2r' | 'potrf' | 'getrf' | 'syev' | 'trsm' | 'getrs' | 'gesv';
/** The API operation whose routes hold a vendor operation's candidate ('tsm2r' is a gemm). */
export function routedOp(op: VendorOp): Exclude<VendorOp, 'tsm2r'> {
  return op === 'tsm2r' ? 'gemm' : op;
}
/** The vendor candidates' names in the routes. */
export type VendorRoute = 'cublas' | 'cusolver';

/** A rule exists only where the vendor took at most this share of the own route's time. */
export const VENDOR_RATIO_MAX = 0.97;

/** One measured point: order n, batch count, and vendor ms / own ms. */
export interface VendorPoint {
  readonly n: number;
  readonly count: number;
  readonly ratio: number;
}

/** A region where `route` serves `op` on this card. */
export interface VendorRule {
  readonly op: VendorOp;
  readonly route: VendorRoute;
  /** The element type measured (complex types: gemm and batched potrf so far). */
  readonly dtype: ElementType;
  /** syev: the job measured ('vectors' or 'values'); the other job keeps the own routes. */
  readonly jobz?: 'vectors' | 'values';
  /** trsm: the side measured; the other side keeps the own routes. */
  readonly side?: Side;
  /** Inclusive bounds of the order: n of a square matrix; gemm: the cube root of m n k; tsm2r: C's columns; trsm: A's order. */
  readonly n: readonly [number, number];
  /**
   * The solves (trsm, getrs, gesv): inclusive bounds of the right-hand sides per matrix (B's
   * columns; trsm: B's dimension that is not A's order). A query without nrhs never meets a rule
   * with them.
   */
  readonly nrhs?: readonly [number, number];
  /**
   * gemm: whether the products measured left C unread (beta = 0: true) or read it (false); a query
   * of the other kind never meets the rule. Absent: both kinds.
   */
  readonly betaZero?: boolean;
  /** Inclusive bounds of the batch count. */
  readonly count: readonly [number, number];
  /** The points behind the rule. */
  readonly measured: readonly VendorPoint[];
}

export interface VendorTable {
  /** The card it was measured on, as cuDeviceGetName spells it. */
  readonly card: string;
  /** Date, driver and CUDA, and the command that measures it again. */
  readonly provenance: string;
  readonly rules: readonly VendorRule[];
}

/** What a vendor candidate asks the table. */
export interface VendorQuery {
  readonly op: VendorOp;
  readonly route: VendorRoute;
  readonly dtype: ElementType;
  readonly n: number;
  readonly count: number;
  readonly jobz?: 'vectors' | 'values';
  readonly side?: Side;
  readonly nrhs?: number;
  /** gemm: beta = 0 (C not read). */
  readonly betaZero?: boolean;
}

const inside = (x: number, [lo, hi]: readonly [number, number]): boolean => x >= lo && x <= hi;

/** The rule of `table` that sends `q` to its vendor route, or undefined (the own routes then). */
export function vendorRuleFor(table: VendorTable | undefined, q: VendorQuery): VendorRule | undefined {
  if (table === undefined) return undefined;
  return table.rules.find((r) => r.op === q.op && r.route === q.route && r.dtype === q.dtype
    && (r.jobz === undefined || r.jobz === q.jobz) && (r.side === undefined || r.side === q.side)
    && (r.nrhs === undefined || (q.nrhs !== undefined && inside(q.nrhs, r.nrhs))) && (r.betaZero === undefined || r.betaZero === q.betaZero)
    && inside(q.n, r.n) && inside(q.count, r.count));
}
