/**
 * Which tuning table applies to an architecture: its own overrides over its parent's, down to
 * the defaults (sm_90 -> default). Unknown architectures get the defaults.
 */
import { defaultGemmTuning } from './default.js';
import { sm90GemmTuning } from './sm_90.js';
import type { GemmTuning, GemmTuningOverrides } from './types.js';

export type { GemmTuning, TiledBand, TiledConfig, MmaBand, MmaConfig, SmallWinner } from './types.js';

interface Entry { readonly parent: string | undefined; readonly overrides: GemmTuningOverrides }

const REGISTRY: Readonly<Record<string, Entry>> = {
  sm_90: { parent: undefined, overrides: sm90GemmTuning },
};

export function gemmTuningFor(arch: string): GemmTuning {
  const entry = REGISTRY[arch];
  if (entry === undefined) return defaultGemmTuning;
  const base = entry.parent === undefined ? defaultGemmTuning : gemmTuningFor(entry.parent);
  return { ...base, ...entry.overrides };
}
