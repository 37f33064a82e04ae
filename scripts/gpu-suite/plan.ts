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
 * Seconds each long file takes on one H200 with an empty kernel cache (the suite's last recorded
 * run, BENCHMARKS.md; a file split in two: half its time), so that without
 * --order-from the longest still start first: a long file started last sets the suite's wall time.
 * Files not named here are short (under a minute).
 */
export const TYPICAL_SECONDS: ReadonlyMap<string, number> = new Map([
  ['factor-blocked-getrf-a', 215], ['factor-blocked-getrf-b', 215], ['factor-batches', 230], ['factor-large-potrf', 180],
  ['factor-spread-getrf-a', 160], ['factor-spread-getrf-b', 160], ['factor-potrf', 154], ['factor-solve', 145],
  ['tridiag', 257], ['gesvd-bidiag', 218], ['factor-getrf', 118], ['jacobi-syev', 103], ['contracts', 100], ['tridiag-split', 99],
  ['jacobi-block-gesvd', 98], ['tsm2', 93], ['trsm', 91], ['tridiag-split-resume', 83], ['poti', 82],
  ['jacobi-block', 76], ['large', 73], ['gemm', 72], ['qr-blocked', 71], ['factor-large-getrf', 46],
  // An estimate (not yet timed): 428 kernels compiled at once, then 22 cases.
  ['vbatched', 40],
  // An estimate (not yet timed): 72 complex gemm kernels compiled at once (planned on sm_90), then 76 small cases.
  ['zgemm', 25],
  // An estimate (not yet timed): 296 kernels compiled at once, then 46 cases.
  ['vbatched-solve', 40],
  // An estimate (not yet timed): 299 kernels compiled at once, then 51 cases (members to 600 checked on the host).
  ['vbatched-device', 60],
  // An estimate (not yet timed): 119 kernels compiled at once, then 6 cases (members to 600 checked on the host).
  ['vdevice-lu', 35],
  // An estimate (not yet timed): about 350 complex Cholesky kernels compiled at once, then 12 tests of 17-32 orders each.
  ['zpotrf', 45],
  // An estimate (not yet timed): about 970 complex trsm kernels compiled at once (the columns design's variants too), then the calls checked on the host.
  ['ztrsm', 90],
  // An estimate (not yet timed): about 70 complex herk kernels compiled at once, then 138 calls checked on the host.
  ['zherk', 30],
  // An estimate (not yet timed): 32 complex heev kernels compiled at once, then 4 tests of 9 orders each (n = 33 on the CPU reference).
  ['zheev', 30],
  // An estimate (not yet timed): about 100 complex gesvd kernels compiled at once, then 6 tests of 19 shapes each (33 on the CPU reference).
  ['zgesvd', 40],
  // Timed on an H200 (2026-11-29, the whole suite at once): 78 s.
  ['zinverse', 78],
  // An estimate (not yet timed): about 830 complex kernels compiled at once (every operation, 44 orders per batch), then 23 tests of one batch each.
  ['zvbatched', 75],
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
