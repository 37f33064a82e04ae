/** The batched Householder QR tables (src/cuda/kernels/qr/ and kernels/ormqr/: the blocked compact-WY driver). */
import type { PerDType } from './factor-types.js';

/**
 * The per-thread kernel's two generators (kernels/qr/): 'classic' (generate-thread.ts: common/tile-load.ts
 * copies, dlarfg with the scaled norm and hypot at every column) and 'fast' (generate-thread-fast.ts:
 * common/span-stage.ts copies of whole 16-byte vectors on both sides, every layout staged, and dlarfg
 * without divisions or hypot where the column's squares can neither overflow nor underflow).
 */
export type QrThreadVariant = 'classic' | 'fast';

export interface QrTuning {
  /**
   * geqrf and orgqr take the per-thread kernel (one thread per matrix, the matrix in registers) where
   * max(m, n) is at most this (0: never; the kernel takes up to 8).
   */
  readonly threadMax: PerDType<number>;
  /** geqrf's per-thread generator (orgqr has the classic one only). */
  readonly threadVariant: PerDType<QrThreadVariant>;
  /**
   * geqrf and orgqr take the blocked driver (panels, the compact WY form, the trailing update as
   * GEMMs) from k = min(m, n) reflectors on; below it one shared-memory kernel per matrix serves
   * where the tile fits (larger tiles always go blocked).
   */
  readonly blockedFrom: PerDType<number>;
  /** Panel width nb of the blocked driver (halved down to 8 where an m x nb panel does not fit the shared memory). */
  readonly panel: PerDType<number>;
  /**
   * The blocked driver hands what is left to one shared-memory kernel once at most this many
   * reflectors remain (geqrf: k - j; orgqr: n - kk columns) and that tile fits (LAPACK's nx).
   */
  readonly tailMax: PerDType<number>;
  /** ormqr takes the blocked driver from this many reflectors on (and wherever its shared kernel does not fit). */
  readonly ormqrBlockedFrom: PerDType<number>;
}
