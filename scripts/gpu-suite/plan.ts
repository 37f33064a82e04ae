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
 * before, the last file to start in that one), so that without --order-from the longest start
 * first: a long file started last sets the suite's wall time. Files not named here took under 40 s.
 */
export const TYPICAL_SECONDS: ReadonlyMap<string, number> = new Map([
  ['gesvd-bidiag', 425], ['trmm-leaf', 286], ['factor-blocked-getrf-a', 270], ['factor-spread-getrf-b', 223],
  ['trsm', 220], ['factor-batches', 211], ['tridiag', 200], ['factor-large-potrf', 171],
  ['factor-blocked-getrf-b', 157], ['contracts', 144], ['trmm-product', 144], ['jacobi-block-gesvd', 141],
  ['factor-spread-getrf-a', 137], ['factor-potrf', 128], ['tridiag-split-resume', 119], ['tsm2', 119], ['poti', 117],
  ['zgesvd-large', 116], ['tridiag-split', 114], ['factor-solve', 104], ['qr-blocked', 98], ['ztrsm', 97],
  ['zvbatched', 96], ['jacobi-block', 92], ['gemm', 82], ['zheev-large', 77], ['large', 76], ['zgetrf', 73],
  ['factor-getrf', 72], ['lauum', 71], ['gemm-tma', 70], ['zinverse', 63], ['tsqr', 62], ['qr-thread', 61],
  ['syev-rows', 53], ['vendor-routes', 51], ['jacobi-syev', 51], ['host-path', 45], ['zherk', 43], ['zpotrf', 42],
  ['ztrmm', 42],
]);

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
