/**
 * The MYRIAD_CPU_* switches as overrides of the tuning table: a pure function of the variables
 * given (context.ts passes process.env, once). Each forces one side of a choice for measurements
 * and tests; tuning.ts documents the entries they override.
 *   MYRIAD_CPU_FMA=0|1                 fused multiply-add off everywhere / on everywhere
 *   MYRIAD_CPU_GEMM=js|wasm            gemm's variant
 *   MYRIAD_CPU_LU_BLOCK=min,nb         the delayed-update LU's range start and panel width
 *   MYRIAD_CPU_LU_PAIRS=n              the delayed-update LU in pairs up to n (0: never)
 *   MYRIAD_CPU_LU_BLOCKED=min,leaf     the recursive LU's start and leaf
 *   MYRIAD_CPU_TRSM_WASM=min,max       trsm 'left' on the WebAssembly solves, both dtypes
 *   MYRIAD_CPU_INTERLEAVED=0|1         the interleaved potrf/posv off / from n = 1 (posv composed from 9)
 *   MYRIAD_CPU_INTERLEAVED_MAX=m       every interleaved potrf/posv range capped at m
 *   MYRIAD_CPU_INTERLEAVED_MEMORY=n    the interleaved potrf's 'loop' form from n
 *   MYRIAD_CPU_GESV_INTERLEAVED=min,max  the interleaved gesv's range, both dtypes (0,0: off)
 *   MYRIAD_CPU_GESV_LOOP=n             the interleaved gesv's loop updates from n
 *   MYRIAD_CPU_GESV_LOCALS=n           the interleaved gesv's v128-locals form up to n (0: never)
 *   MYRIAD_CPU_GESV_PAIRS=1|2          pairs per loop trip of the interleaved gesv
 * and, outside the table, MYRIAD_THREADS (threads per call, the caller's included) and
 * MYRIAD_PRINT_SOURCE=1 (each new generated JavaScript kernel printed to stderr, as tfjs's
 * WEBGPU_PRINT_SHADER).
 */
import { MyriadError } from '../core/errors.js';
import type { CpuTuning, SizeRange } from './tuning.js';

export type Environment = Readonly<Record<string, string | undefined>>;

/** The names this backend reads (all of them, and only here). */
export const CPU_ENVIRONMENT = [
  'MYRIAD_CPU_FMA', 'MYRIAD_CPU_GEMM', 'MYRIAD_CPU_LU_BLOCK', 'MYRIAD_CPU_LU_PAIRS', 'MYRIAD_CPU_LU_BLOCKED',
  'MYRIAD_CPU_TRSM_WASM', 'MYRIAD_CPU_INTERLEAVED', 'MYRIAD_CPU_INTERLEAVED_MAX', 'MYRIAD_CPU_INTERLEAVED_MEMORY',
  'MYRIAD_CPU_GESV_INTERLEAVED', 'MYRIAD_CPU_GESV_LOOP', 'MYRIAD_CPU_GESV_LOCALS', 'MYRIAD_CPU_GESV_PAIRS',
  'MYRIAD_THREADS', 'MYRIAD_PRINT_SOURCE',
] as const;
type CpuSwitch = (typeof CPU_ENVIRONMENT)[number];

/** A value that is set: undefined when absent or empty. */
const given = (env: Environment, name: CpuSwitch): string | undefined => (env[name] === '' ? undefined : env[name]);
const malformed = (name: CpuSwitch, value: string, expected: string): MyriadError =>
  new MyriadError('INVALID_ARGUMENT', `expected ${expected}, got '${value}'`, name);

/** Two integers `a,b`, each at least `least`; undefined when unset; a malformed value is an error naming the variable. */
function pair(env: Environment, name: CpuSwitch, least: number): readonly [number, number] | undefined {
  const value = given(env, name);
  if (value === undefined) return undefined;
  const v = value.split(',').map((x) => (x.trim() === '' ? NaN : Number(x)));
  if (v.length !== 2 || !v.every((x) => Number.isSafeInteger(x) && x >= least)) throw malformed(name, value, `two integers a,b of at least ${least}`);
  return [v[0]!, v[1]!];
}
/** An integer at least `least`; undefined when unset; a malformed value is an error naming the variable. */
function integer(env: Environment, name: CpuSwitch, least: number): number | undefined {
  const value = given(env, name);
  if (value === undefined) return undefined;
  const n = value.trim() === '' ? NaN : Number(value);
  if (!Number.isSafeInteger(n) || n < least) throw malformed(name, value, `an integer of at least ${least}`);
  return n;
}
/** One of `allowed`; undefined when unset; anything else is an error naming the variable. */
function choice<T extends string>(env: Environment, name: CpuSwitch, allowed: readonly T[]): T | undefined {
  const value = given(env, name);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw malformed(name, value, `one of ${allowed.map((a) => `'${a}'`).join(', ')}`);
  return value as T;
}
const range = (min: number, max: number): SizeRange => Object.freeze({ min, max });

/**
 * The table with the environment's overrides applied (the table itself when none is set). A value
 * that is set but malformed is an error naming the variable (a typo would otherwise change nothing).
 */
export function tuningFromEnvironment(base: CpuTuning, env: Environment): CpuTuning {
  const t: { -readonly [K in keyof CpuTuning]: CpuTuning[K] } = { ...base };
  const fma = choice(env, 'MYRIAD_CPU_FMA', ['0', '1']);
  if (fma !== undefined) t.fmaMode = fma === '0' ? 'off' : 'on';
  const gemm = choice(env, 'MYRIAD_CPU_GEMM', ['js', 'wasm']);
  if (gemm !== undefined) t.gemmForce = gemm;

  const luBlock = pair(env, 'MYRIAD_CPU_LU_BLOCK', 1);
  if (luBlock) t.luWasmBlock = Object.freeze({ min: luBlock[0], nb: luBlock[1] });
  const luPairs = integer(env, 'MYRIAD_CPU_LU_PAIRS', 0);
  if (luPairs !== undefined) t.luWasmPairsMax = luPairs;
  const luBlocked = pair(env, 'MYRIAD_CPU_LU_BLOCKED', 1);
  if (luBlocked) t.luBlocked = Object.freeze({ min: luBlocked[0], leaf: luBlocked[1] });
  const trsm = pair(env, 'MYRIAD_CPU_TRSM_WASM', 0);
  if (trsm) t.trsmLeftWasm = Object.freeze({ float64: range(trsm[0], trsm[1]), float32: range(trsm[0], trsm[1]) });

  const on = choice(env, 'MYRIAD_CPU_INTERLEAVED', ['0', '1']);
  const cap = integer(env, 'MYRIAD_CPU_INTERLEAVED_MAX', 0);
  if (on !== undefined || cap !== undefined) {
    const limit = Math.min(cap ?? base.interleavedNMax, base.interleavedNMax);
    const interleaved = (r: SizeRange, forcedMin: number): SizeRange =>
      on === '0' ? range(1, 0) : range(on === '1' ? forcedMin : r.min, Math.min(r.max, limit));
    t.choleskyInterleaved = Object.freeze({
      float64: interleaved(base.choleskyInterleaved.float64, 1), float32: interleaved(base.choleskyInterleaved.float32, 1),
    });
    t.posvInterleaved = interleaved(base.posvInterleaved, 1);
    t.posvComposed = interleaved(base.posvComposed, base.posvComposed.min);
  }
  const memory = integer(env, 'MYRIAD_CPU_INTERLEAVED_MEMORY', 1);
  if (memory !== undefined) t.interleavedMemoryFormMin = memory;

  const gesv = pair(env, 'MYRIAD_CPU_GESV_INTERLEAVED', 0);
  if (gesv) t.gesvInterleaved = Object.freeze({ float64: range(gesv[0], gesv[1]), float32: range(gesv[0], gesv[1]) });
  const loop = integer(env, 'MYRIAD_CPU_GESV_LOOP', 1);
  if (loop !== undefined) t.gesvInterleavedLoopMin = loop;
  const locals = integer(env, 'MYRIAD_CPU_GESV_LOCALS', 0);
  if (locals !== undefined) t.gesvInterleavedLocalsMax = locals;
  if (choice(env, 'MYRIAD_CPU_GESV_PAIRS', ['1', '2']) === '2') t.gesvInterleavedPairsPerTrip = 2;
  return Object.freeze(t);
}

/**
 * The most threads a CPU call may use. Each worker holds its own arenas (several MiB) and starts a V8
 * isolate: a thousand of them took seconds to start and gigabytes of memory; past the cores they only
 * share them.
 */
export const MAX_CPU_THREADS = 256;

/** A thread count from `name` (MYRIAD_THREADS or setCpuThreads' argument): an integer in 1 ... MAX_CPU_THREADS. */
export function checkThreadCount(n: number, shown: string, name: string): number {
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_CPU_THREADS) {
    throw new MyriadError('INVALID_ARGUMENT', `expected an integer from 1 to ${MAX_CPU_THREADS}, got ${shown}`, name);
  }
  return n;
}

/** MYRIAD_THREADS: undefined when unset or empty; a bad value is an error naming the variable. */
export function threadsFromEnvironment(env: Environment): number | undefined {
  const value = given(env, 'MYRIAD_THREADS');
  return value === undefined ? undefined : checkThreadCount(Number(value), `'${value}'`, 'MYRIAD_THREADS');
}

/** MYRIAD_PRINT_SOURCE=1. */
export const printSourceFromEnvironment = (env: Environment): boolean => env.MYRIAD_PRINT_SOURCE === '1';
