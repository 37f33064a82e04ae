/**
 * The one table of what GPU test files need from the machine, and the skips that are allowed on
 * a machine with a GPU. Every file not named here is charged DEFAULT_GIB and shares the device.
 * Key: the file's name without `.test.js` (dist/test/gpu/<key>.test.js).
 */
import { GiB, type FileNeeds } from './schedule.js';

/** Memory charged to a file not in FILE_RULES: its CUDA context (about 0.5 GiB), workspace and test data. */
export const DEFAULT_GIB = 4;
/**
 * Per-file limit, seconds: the whole suite is meant to fit in 10 minutes on one H200, so a file
 * past 9 minutes is stuck or too slow either way (the JSON, rewritten as files finish, keeps the rest).
 */
export const DEFAULT_TIMEOUT_S = 540;

export interface FileRule {
  readonly gib?: number;
  readonly exclusive?: boolean;
  readonly allGpus?: boolean;
  readonly timeoutS?: number;
  /** Why the file needs this (printed with --plan). */
  readonly why: string;
}

export const FILE_RULES: Readonly<Record<string, FileRule>> = {
  'host-path': { exclusive: true, why: 'allocates all free device memory but 256 MiB to provoke OUT_OF_MEMORY in the staging (others would fail beside it)' },
  multi: { allGpus: true, why: 'needs every GPU, and fills the last one to provoke OUT_OF_MEMORY' },
  readme: { allGpus: true, why: 'the README\'s multi-GPU example runs on every GPU' },
  prepared: { exclusive: true, why: 'failed beside other files on an H200 and passed alone' },
  large: { gib: 24, why: 'single matrices up to n = 10240 (0.8 GiB each in float64) and the residual\'s products on the device' },
};

/** A skip that may happen on a machine with a GPU without failing the suite (reported in the table). */
export interface AllowedSkip {
  readonly file: string;
  readonly reason: RegExp;
  /** Only on machines where this holds (default: always). */
  readonly when?: (gpus: number) => boolean;
}

export const ALLOWED_SKIPS: readonly AllowedSkip[] = [
  { file: 'factor-large-getrf', reason: /^opt-in: MYRIAD_GETRF_RECURSION=1\b/ },
  { file: 'factor-solve', reason: /^opt-in: MYRIAD_FACTOR_TIMING=1\b/ },
  { file: 'runtime', reason: /^opt-out: MYRIAD_QUICK_FIRST=0\b/ },
  { file: 'multi', reason: /^needs 2 GPUs\b/, when: (gpus) => gpus < 2 },
  { file: 'readme', reason: /^needs 2 GPUs\b/, when: (gpus) => gpus < 2 },
];

/** dist/test/gpu/<key>.test.js -> <key> */
export function fileKey(path: string): string {
  const base = path.split(/[\\/]/).pop() ?? path;
  return base.replace(/\.test\.(js|mjs|ts)$/, '');
}

export function needsOf(path: string): FileNeeds {
  const rule = FILE_RULES[fileKey(path)];
  return { memory: (rule?.gib ?? DEFAULT_GIB) * GiB, exclusive: rule?.exclusive === true, allGpus: rule?.allGpus === true };
}

export function timeoutOf(path: string, fallbackS = DEFAULT_TIMEOUT_S): number {
  return FILE_RULES[fileKey(path)]?.timeoutS ?? fallbackS;
}

export function skipAllowed(path: string, reason: string, gpus: number, table: readonly AllowedSkip[] = ALLOWED_SKIPS): boolean {
  const key = fileKey(path);
  return table.some((s) => s.file === key && s.reason.test(reason) && (s.when?.(gpus) ?? true));
}

/**
 * Seconds each long file took in the suite's last recorded run (BENCHMARKS.md, "The GPU test
 * suite": two H200s, up to 16 files at once on each, an empty kernel cache; trmm-leaf from the run
 * before, the last file to start in that one; factor-batches from the whole suite's run after its
 * mid-size getrf test took the table's counts; its mid-size test since moved to factor-batches-mid,
 * the 405 s split between them by estimate, not yet timed apart; eigen-extremes from its own runs, one H200,
 * 107-117 s), so that without --order-from the longest start
 * first: a long file started last sets the suite's wall time. Files not named here took under 40 s.
 */
export const TYPICAL_SECONDS: ReadonlyMap<string, number> = new Map([
  ['gesvd-bidiag', 415], ['trmm-leaf', 345], ['factor-blocked-getrf-a', 269], ['factor-spread-getrf-b', 234],
  ['factor-batches', 180], ['factor-batches-mid', 300], ['tridiag', 199], ['trsm', 176], ['jacobi-block-gesvd', 171], ['factor-blocked-getrf-b', 165],
  ['tridiag-split-resume', 163], ['factor-large-potrf', 156], ['zgesvd-large', 152], ['factor-spread-getrf-a', 144],
  ['contracts', 138], ['zvbatched', 137], ['trmm-product', 136], ['tridiag-split', 133], ['jacobi-block', 126],
  ['ztrsm', 122], ['tsm2', 116], ['zheev-large', 111], ['qr-blocked', 106], ['zgetrf', 101], ['poti', 95], ['large', 91],
  ['eigen-extremes', 117], ['lauum', 89], ['factor-solve', 88], ['factor-potrf', 86], ['gemm', 81], ['gemm-tma', 74], ['qr-thread', 73],
  ['host-path', 63], ['factor-getrf', 59], ['zinverse', 58], ['tsqr', 57], ['syev-rows', 57], ['zherk', 55],
  ['jacobi-syev', 52], ['vendor-routes', 52], ['ztrmm', 45], ['syev-small', 42], ['getrf-spread', 40],
]);

/** Seconds a file without an entry in the table is counted for (shards). */
const UNTIMED_SECONDS = 20;

/**
 * Shard `index` (1-based) of `shards`: the files dealt out longest first (by `seconds`, else
 * UNTIMED_SECONDS), each to the shard with the fewest seconds so far (the lowest index on a tie), so
 * that a suite longer than one command's limit runs as `shards` commands of about equal length
 * (`--shard 1/2`, then `--shard 2/2`). Every file is in exactly one shard, whatever the order given.
 */
export function shardOf(paths: readonly string[], index: number, shards: number, seconds: ReadonlyMap<string, number> = TYPICAL_SECONDS): string[] {
  if (!Number.isInteger(shards) || shards < 1 || !Number.isInteger(index) || index < 1 || index > shards)
    throw new Error(`--shard: expected I/N with 1 <= I <= N, got ${index}/${shards}`);
  const took = (p: string): number => seconds.get(fileKey(p)) ?? UNTIMED_SECONDS;
  const sorted = [...new Set(paths)].sort((a, b) => took(b) - took(a) || (a < b ? -1 : a > b ? 1 : 0));
  const load = new Array<number>(shards).fill(0);
  const mine: string[] = [];
  for (const p of sorted) {
    const least = load.indexOf(Math.min(...load));
    load[least]! += took(p);
    if (least === index - 1) mine.push(p);
  }
  return mine;
}

/**
 * Queue order: files that need every GPU, then exclusive ones, then the rest; within each, the
 * longest first (by file key: an earlier run's seconds with --order-from, else TYPICAL_SECONDS),
 * then by name.
 */
export function queueOrder(paths: readonly string[], seconds: ReadonlyMap<string, number> = TYPICAL_SECONDS): string[] {
  const rank = (p: string): number => { const n = needsOf(p); return n.allGpus ? 0 : n.exclusive ? 1 : 2; };
  const took = (p: string): number => seconds.get(fileKey(p)) ?? 0;
  return [...paths].sort((a, b) => rank(a) - rank(b) || took(b) - took(a) || (a < b ? -1 : a > b ? 1 : 0));
}

/** Seconds per file key from an earlier run's --json output (files that finished). */
export function secondsFromJson(json: unknown): Map<string, number> {
  const out = new Map<string, number>();
  const files = (json as { files?: unknown }).files;
  if (!Array.isArray(files)) return out;
  for (const f of files as unknown[]) {
    const r = f as { file?: unknown; seconds?: unknown; status?: unknown };
    if (typeof r.file === 'string' && typeof r.seconds === 'number' && r.status !== 'not run') out.set(fileKey(r.file), r.seconds);
  }
  return out;
}
