/**
 * Picks TSM2R / TSM2L parameters for one problem. Paper Algorithm 5 minimises the model's time
 * over (t2, t3) by gradient descent; the candidate set here is small and discrete, so we search it
 * exhaustively (exact, and as cheap). The measured table for the architecture, where it has an
 * entry, replaces the model's code parameters; the model still sizes the k-split and the grid.
 */
import type { DType } from '../../../core/dtype.js';
import { dtypeInfo } from '../../../core/dtype-table.js';
import type { DeviceInfo, Dim3 } from '../../runtime/types.js';
import { checkTsm2rParams, tsm2rSharedBytes } from './generate-r.js';
import { checkTsm2lParams } from './generate-l.js';
import { estimateTsm2l, estimateTsm2r, occupancy, tsm2lRegisters, tsm2rRegisters, type Estimate } from './model.js';
import { TSM2L_MAX_K, TSM2L_MAX_N, TSM2R_MAX_SPLIT, type Tsm2lParams, type Tsm2rParams } from './params.js';
import { tuningFor, type Tsm2Tuning } from '../../model/tuning/index.js';
import type { GemmShape } from '../common/gemm-shape.js';

export type Tsm2Kind = 'tsm2r' | 'tsm2l';

/** Which TSM2 kernel suits C (m x n) = op(A) (m x k) op(B) (k x n), or undefined for neither. */
export function classifyTallSkinny(m: number, n: number, k: number, arch = 'sm_90'): Tsm2Kind | undefined {
  const r = tuningFor(arch, 'tsm2').routing;
  if (n < 1 || n > r.maxN || m < 1) return undefined;
  if (k <= r.maxKL) return m >= r.minRowsL ? 'tsm2l' : undefined;
  return m >= r.minRowsR && m * k >= r.minWorkR ? 'tsm2r' : undefined;
}

/** The predicate the CUDA backend routes a batch-of-one gemm with: true where TSM2 takes it. */
export function isTallSkinny(m: number, n: number, k: number, arch = 'sm_90'): boolean {
  return classifyTallSkinny(m, n, k, arch) !== undefined;
}

/** A problem as the planner sees it. `maxVec*`: the widest row vector the operand's alignment allows. */
export interface Tsm2Problem extends GemmShape {
  readonly betaZero: boolean;
  readonly maxVecA: number;
  readonly maxVecC: number;
}

export interface Tsm2rPlan {
  readonly kind: 'tsm2r';
  readonly params: Tsm2rParams;
  /** k-rows per block of a cluster (a multiple of tileK). */
  readonly kChunk: number;
  readonly grid: Dim3;
  readonly block: Dim3;
  readonly sharedBytes: number;
  readonly estimate: Estimate;
  readonly from: 'model' | 'table' | 'forced';
}

export interface Tsm2lPlan {
  readonly kind: 'tsm2l';
  readonly params: Tsm2lParams;
  /** Thread-count factor: rows per thread, m / (threads x vec). */
  readonly tcf: number;
  readonly grid: Dim3;
  readonly block: Dim3;
  readonly estimate: Estimate;
  readonly from: 'model' | 'table' | 'forced';
}

export type Tsm2rOverrides = Partial<Omit<Tsm2rParams, 'dtype' | 'transA' | 'transB' | 'n'>>;
export type Tsm2lOverrides = Partial<Omit<Tsm2lParams, 'dtype' | 'transA' | 'transB' | 'k' | 'n'>> & {
  readonly tcf?: number;
  readonly blocksPerSM?: number;
};

const maxRegisters = 255;
const vecLimit = (dtype: DType): number => dtypeInfo(dtype).vectorLanes;
const pow2Upto = (max: number): number[] => [1, 2, 4, 8, 16, 32, 64, 128, 256, 512].filter((x) => x <= max);

/** The smallest cluster split (power of two, <= 8) that gives every SM a full set of resident blocks. */
function chooseSplit(info: DeviceInfo, m: number, k: number, p: Tsm2rParams): number {
  if (info.major < 9) return 1; // clusters need sm_90
  const occ = occupancy(info, tsm2rRegisters(p), tsm2rSharedBytes({ ...p, split: 2 }), p.t1);
  const rowBlocks = Math.ceil(m / (p.t1 * p.vec));
  const wanted = Math.max(1, occ.blocksPerSM) * info.smCount;
  const maxUseful = Math.max(1, Math.ceil(k / p.tileK));
  let s = 1;
  while (s < TSM2R_MAX_SPLIT && rowBlocks * s < wanted && s * 2 <= maxUseful) s *= 2;
  return s;
}

function finishR(info: DeviceInfo, pr: Tsm2Problem, params: Tsm2rParams, from: Tsm2rPlan['from'], bandwidth: number): Tsm2rPlan {
  checkTsm2rParams(params);
  const kChunk = Math.ceil(Math.ceil(pr.k / params.split) / params.tileK) * params.tileK;
  return {
    kind: 'tsm2r', params, kChunk, from,
    grid: [Math.ceil(pr.m / (params.t1 * params.vec)), params.split, 1],
    block: [params.t1, 1, 1],
    sharedBytes: tsm2rSharedBytes(params),
    estimate: estimateTsm2r(info, bandwidth, pr.m, pr.n, pr.k, params, pr.betaZero),
  };
}

/** TSM2R's plan: forced fields, else the table's entry, else the model's best candidate. */
export function planTsm2r(
  info: DeviceInfo, bandwidth: number, pr: Tsm2Problem, force: Tsm2rOverrides = {}, tuning: Tsm2Tuning = tuningFor(info.arch, 'tsm2'),
): Tsm2rPlan {
  const base = { dtype: pr.dtype, transA: pr.transA, transB: pr.transB, n: pr.n };
  const vecMax = pr.transA === 'T' ? 1 : Math.min(pr.maxVecA, vecLimit(pr.dtype));
  const complete = (c: Omit<Tsm2rParams, 'split'> & { split?: number }): Tsm2rParams => {
    const p = { ...c, split: 1 };
    return { ...p, split: c.split ?? chooseSplit(info, pr.m, pr.k, p) };
  };
  const forced = Object.keys(force).length > 0;
  const entry = tuning.tsm2r[pr.dtype]?.find((e) => pr.n <= e.maxN);
  // A staged entry needs op(A) = N, and dmma's 16-byte copies of row pairs an even-aligned A;
  // where the operands do not allow it, the model picks a register-path kernel instead.
  const stagedOk = (e: { stages?: number; engine?: string }): boolean =>
    (e.stages ?? 0) === 0 || (pr.transA === 'N' && (e.engine !== 'dmma' || pr.maxVecA >= 2));
  if (entry && !forced && stagedOk(entry)) {
    const p = complete({
      ...base, t1: entry.t1, t2: pr.n, t3: entry.t3, tileK: entry.tileK, prefetch: entry.prefetch,
      vec: entry.engine === 'dmma' ? entry.vec : Math.min(entry.vec, vecMax), stages: entry.stages ?? 0, engine: entry.engine ?? 'fma',
    });
    return finishR(info, pr, p, 'table', bandwidth);
  }
  if (force.stages !== undefined && force.stages > 0) {
    // Forced staged kernels (tests, sweeps): the fields given, the rest from a staged default.
    const engine = force.engine ?? 'fma';
    const t3 = force.t3 ?? (engine === 'dmma' ? 16 : 4);
    const p = complete({
      ...base, t1: force.t1 ?? 128, t2: force.t2 ?? pr.n, t3, tileK: force.tileK ?? Math.max(32, t3 * (force.stages - 1)),
      vec: engine === 'dmma' ? force.vec ?? 1 : Math.min(force.vec ?? vecMax, vecMax), prefetch: 0, stages: force.stages, engine, split: force.split,
    });
    return finishR(info, pr, p, 'forced', bandwidth);
  }
  let best: { p: Tsm2rParams; score: number } | undefined;
  const t2s = [pr.n, ...[1, 2, 4, 8, 16, 32].filter((t) => t < pr.n)];
  for (const t2 of force.t2 !== undefined ? [force.t2] : t2s)
    for (const t1 of force.t1 !== undefined ? [force.t1] : [64, 128, 256])
      for (const vec of force.vec !== undefined ? [Math.min(force.vec, vecMax)] : pow2Upto(vecMax))
        for (const t3 of force.t3 !== undefined ? [force.t3] : [1, 2, 4, 8, 16])
          for (const tileK of force.tileK !== undefined ? [force.tileK] : [32, 64]) {
            if (tileK % t3 !== 0) continue;
            const p = complete({ ...base, t1, t2, t3, tileK, vec, split: force.split, prefetch: force.prefetch ?? 0, stages: 0, engine: 'fma' });
            if (tsm2rRegisters(p) > maxRegisters) continue;
            const e = estimateTsm2r(info, bandwidth, pr.m, pr.n, pr.k, p, pr.betaZero);
            // Loaded latency varies, so candidates with less than twice Little's minimum in flight
            // pay a little; remaining ties go to fewer registers.
            const score = e.seconds * (1 + 0.05 * Math.max(0, 2 - e.utilMem) + tsm2rRegisters(p) / 1e5);
            if (!best || score < best.score) best = { p, score };
          }
  if (!best) throw new Error(`no TSM2R candidate fits for ${JSON.stringify(pr)} with ${JSON.stringify(force)}`);
  return finishR(info, pr, best.p, forced ? 'forced' : 'model', bandwidth);
}

function finishL(info: DeviceInfo, pr: Tsm2Problem, params: Tsm2lParams, tcf: number, from: Tsm2lPlan['from'], bandwidth: number): Tsm2lPlan {
  checkTsm2lParams(params);
  const rowsPerBlock = params.t1 * params.vec;
  const blocks = Math.max(1, Math.min(2 ** 31 - 1, Math.ceil(pr.m / (rowsPerBlock * tcf))));
  const realTcf = Math.ceil(pr.m / (blocks * rowsPerBlock));
  return {
    kind: 'tsm2l', params, tcf: realTcf, from,
    grid: [blocks, 1, 1], block: [params.t1, 1, 1],
    estimate: estimateTsm2l(info, bandwidth, pr.m, params, realTcf, pr.betaZero),
  };
}

/** tcf that gives `blocksPerSM` x SM count blocks (a persistent-style grid); 0: tcf = 1. */
function tcfFor(info: DeviceInfo, m: number, t1: number, vec: number, blocksPerSM: number): number {
  if (blocksPerSM === 0) return 1;
  return Math.max(1, Math.ceil(m / (t1 * vec * blocksPerSM * info.smCount)));
}

/** TSM2L's plan: forced fields, else the table's entry, else the model's best (variant, t1, vec, tcf). */
export function planTsm2l(
  info: DeviceInfo, bandwidth: number, pr: Tsm2Problem, force: Tsm2lOverrides = {}, tuning: Tsm2Tuning = tuningFor(info.arch, 'tsm2'),
): Tsm2lPlan {
  if (pr.k > TSM2L_MAX_K || pr.n > TSM2L_MAX_N) throw new Error(`TSM2L takes k <= ${TSM2L_MAX_K}, n <= ${TSM2L_MAX_N}`);
  const base = { dtype: pr.dtype, transA: pr.transA, transB: pr.transB, k: pr.k, n: pr.n };
  const vecMax = pr.transA === 'T' ? 1 : Math.min(pr.maxVecA, pr.maxVecC, vecLimit(pr.dtype));
  const forced = Object.keys(force).length > 0;
  const entry = tuning.tsm2l[pr.dtype]?.find((e) => pr.k <= e.maxK && pr.n <= e.maxN);
  if (entry && !forced) {
    const p: Tsm2lParams = { ...base, t1: entry.t1, vec: Math.min(entry.vec, vecMax), variant: entry.variant };
    return finishL(info, pr, p, tcfFor(info, pr.m, p.t1, p.vec, entry.blocksPerSM), 'table', bandwidth);
  }
  let best: { p: Tsm2lParams; tcf: number; score: number } | undefined;
  for (const variant of force.variant !== undefined ? [force.variant] : (['opt1', 'opt2'] as const))
    for (const t1 of force.t1 !== undefined ? [force.t1] : [128, 256])
      for (const vec of force.vec !== undefined ? [Math.min(force.vec, vecMax)] : pow2Upto(vecMax)) {
        const p: Tsm2lParams = { ...base, t1, vec, variant };
        if (tsm2lRegisters(p) > maxRegisters) continue;
        const tcfs = force.tcf !== undefined ? [force.tcf]
          : force.blocksPerSM !== undefined ? [tcfFor(info, pr.m, t1, vec, force.blocksPerSM)]
            : pow2Upto(512);
        for (const tcf of tcfs) {
          const e = estimateTsm2l(info, bandwidth, pr.m, p, tcf, pr.betaZero);
          const score = e.seconds * (1 + 0.05 * Math.max(0, 2 - e.utilMem) + tsm2lRegisters(p) / 1e5);
          if (!best || score < best.score) best = { p, tcf, score };
        }
      }
  if (!best) throw new Error(`no TSM2L candidate fits for ${JSON.stringify(pr)} with ${JSON.stringify(force)}`);
  return finishL(info, pr, best.p, best.tcf, forced ? 'forced' : 'model', bandwidth);
}
