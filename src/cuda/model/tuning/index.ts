/**
 * The one tuning lookup of the GPU kernels: `tuningFor(arch, family)`. Each architecture's table
 * lists only what differs from its parent, per family, and the chain ends in the defaults (BLIS's
 * config registry): sm_90 -> sm_80 -> default. Unknown architectures get the defaults. Tables are
 * measured data, checked in (src/cuda/tune/ sweeps a family and prints its entries).
 */
import type { GetrfTuning, PotrfTuning } from './factor-types.js';
import { sm90GetrfTuning, sm90PotrfTuning } from './factor-sm_90.js';
import { defaultGemmTuning } from './gemm-default.js';
import { sm90GemmTuning } from './gemm-sm_90.js';
import type { GemmTuning } from './gemm-types.js';
import { defaultTsm2Tuning } from './tsm2-default.js';
import { sm90Tsm2Tuning } from './tsm2-sm_90.js';
import type { Tsm2Tuning } from './tsm2-types.js';
import { defaultTrsmTuning } from './trsm-default.js';
import { sm90TrsmTuning } from './trsm-sm_90.js';
import type { TrsmTuning } from './trsm-types.js';
import { defaultLauumTuning, defaultSyrkTuning } from './syrk-default.js';
import type { LauumTuning, SyrkTuning } from './syrk-types.js';
import { defaultTrtriTuning } from './trtri-default.js';
import type { TrtriTuning } from './trtri-types.js';
import { defaultQrTuning } from './qr-default.js';
import type { QrTuning } from './qr-types.js';
import { defaultTsqrTuning } from './tsqr-default.js';
import type { TsqrTuning } from './tsqr-types.js';
import { defaultTridiagTuning } from './tridiag-default.js';
import { defaultBidiagTuning } from './bidiag-default.js';
import type { BidiagTuning } from './bidiag-types.js';
import type { TridiagTuning } from './tridiag-types.js';
import { defaultQlThreadTuning } from './ql-thread-default.js';
import type { QlThreadTuning } from './ql-thread-types.js';
import { defaultMultiTuning } from './multi-default.js';
import type { MultiTuning } from './multi-types.js';

export type { ComplexGemmTuning, GemmTuning, GemmTuningOverrides, TiledBand, TiledConfig, MmaBand, MmaConfig, PaddedTile, PaddedTiles, SmallWinner, TmaBand, TmaConfig, VbatchedLargeShape, VbatchedSmallShape } from './gemm-types.js';
export { tmaRouteFor, tmaRoutesFor, type TmaRoute, type TmaRouteTable } from './gemm-tma-routes.js';
export { rowsMinBlocks, rowsOccupancyFor, type RowsOccupancy, type RowsOccupancyTable } from './syev-rows-occupancy.js';
export type { RoutingThresholds, Tsm2Tuning, Tsm2rTuning, Tsm2lTuning } from './tsm2-types.js';
export type { TrmmProductTuning, TrsmTuning } from './trsm-types.js';
export type { LauumRegisterBand, LauumTuning, SyrkTilesBand, SyrkTilesOff, SyrkTuning } from './syrk-types.js';
export type { TrtriTuning } from './trtri-types.js';
export type { QrTuning } from './qr-types.js';
export type { TsqrTuning } from './tsqr-types.js';
export type { TridiagTuning } from './tridiag-types.js';
export type { BidiagTuning } from './bidiag-types.js';
export type { QlThreadTuning } from './ql-thread-types.js';
export type { MultiTuning } from './multi-types.js';
export type { SpreadExchange, GetrfBlockedTuning, GetrfMidBand, GetrfRecursionTuning, GetrfRegisterBand, GetrfSpreadTuning, GetrfTuning, PanelBand, PerDType, PotrfBlockedTuning, PotrfTuning, RegisterBand, RegisterShape } from './factor-types.js';

/** Every family's table. A new family adds its entry here and its defaults below. */
export interface FamilyTuning {
  readonly gemm: GemmTuning;
  readonly tsm2: Tsm2Tuning;
  readonly potrf: PotrfTuning;
  readonly getrf: GetrfTuning;
  readonly trsm: TrsmTuning;
  readonly syrk: SyrkTuning;
  readonly lauum: LauumTuning;
  readonly trtri: TrtriTuning;
  readonly qr: QrTuning;
  readonly tsqr: TsqrTuning;
  readonly tridiag: TridiagTuning;
  readonly qlThread: QlThreadTuning;
  readonly multi: MultiTuning;
  readonly bidiag: BidiagTuning;
}
export type TunedFamily = keyof FamilyTuning;

/** An architecture's overrides: per family, only the fields that differ from the parent's. */
export type ArchTuning = { readonly [F in TunedFamily]?: Partial<FamilyTuning[F]> };

// The factorisations have been measured on sm_90 only: every architecture uses those values
// until it is swept (so behaviour elsewhere is what it was before the tables existed).
const DEFAULTS: FamilyTuning = { gemm: defaultGemmTuning, tsm2: defaultTsm2Tuning, potrf: sm90PotrfTuning, getrf: sm90GetrfTuning, trsm: defaultTrsmTuning,
  syrk: defaultSyrkTuning, lauum: defaultLauumTuning, trtri: defaultTrtriTuning, qr: defaultQrTuning,
  tsqr: defaultTsqrTuning, tridiag: defaultTridiagTuning, qlThread: defaultQlThreadTuning, multi: defaultMultiTuning,
  bidiag: defaultBidiagTuning };

const TABLES: Readonly<Record<string, ArchTuning>> = {
  sm_90: { gemm: sm90GemmTuning, tsm2: sm90Tsm2Tuning, potrf: sm90PotrfTuning, getrf: sm90GetrfTuning, trsm: sm90TrsmTuning },
};
const PARENT: Readonly<Record<string, string>> = { sm_90: 'sm_80' };

/** The architectures from the most general to `arch` (the defaults not included). */
function chain(arch: string): string[] {
  const out: string[] = [];
  for (let a: string | undefined = arch; a !== undefined; a = PARENT[a]) out.unshift(a);
  return out;
}

/** Merged tables by architecture and family: the tables are constant data, merged once. */
const merged = new Map<string, Map<TunedFamily, unknown>>();

export function tuningFor<F extends TunedFamily>(arch: string, family: F): FamilyTuning[F] {
  let byFamily = merged.get(arch);
  if (byFamily === undefined) merged.set(arch, (byFamily = new Map()));
  let table = byFamily.get(family) as FamilyTuning[F] | undefined;
  if (table === undefined) {
    table = DEFAULTS[family];
    for (const a of chain(arch)) {
      const overrides = TABLES[a]?.[family];
      if (overrides !== undefined) table = { ...table, ...overrides };
    }
    byFamily.set(family, table);
  }
  return table;
}

/** The first band whose bound `size` does not exceed (bands ascend; the last should be Infinity). */
export function bandFor<B extends { readonly maxN: number }>(bands: readonly B[], size: number): B | undefined {
  return bands.find((b) => size <= b.maxN);
}
