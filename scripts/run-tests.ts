/**
 * `npm test`'s runner: every `*.test.js` under the given folders of dist/test, handed to
 * `node --test` as files. Node 20 accepts folders on the command line, Node 22 and later accept
 * only files and globs, and Node 20 has no globs: an explicit file list works on all three.
 *   node dist/scripts/run-tests.js [--concurrency N] [--isolate] <folder under dist/test> ...
 *
 * Files share processes: each Node process costs about half a second of CPU before its first test
 * (start-up, and the library's few hundred modules loaded again), which over some 150 files was a
 * third of the suite on a two-core machine. Up to GROUP_SIZE files of a folder run in one process
 * (a generated entry in dist/.test-groups/ imports each file inside a suite named after it, so the
 * file's top-level hooks stay its own and the report names the file): every file's top-level code
 * runs first, then the files' tests one file after the other. A file
 * runs alone in its own process where its source changes what other files would see
 * (`ownProcessReason`: environment variables, mocks, process handlers, globals, the CPU thread
 * settings) or says so itself with a `run-tests: own process` comment; files that change the process
 * in the same way (the same environment variables set to the same values, say) may name one process
 * of their own with a `run-tests: process NAME` comment: they share it, apart from every other file.
 * A file with a `run-tests: long` comment runs alone and first. Every run, a file alone included, is
 * handed to node --test as a generated entry (dist/.test-groups/run-NNN.mjs) whose name keeps the
 * plan's order: node --test starts files in the order of their sorted paths, not the order given.
 * --isolate: every file alone, in the folders' order.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sourceOf, testFiles } from './gpu-suite/files.js';

const here = dirname(fileURLToPath(import.meta.url));
const testRoot = resolve(here, '..', 'test');
const groupRoot = resolve(here, '..', '.test-groups');

/**
 * Files per shared process: large enough to save the start-ups (each group loads most of the
 * library again: about two seconds of CPU on Node 20, with the test runner's hooks), small enough
 * to spread over the cores. With some 135 shared files under cuda/ and 44 under cpu/, 45 makes
 * three cuda groups of about 15 s of CPU each beside one cpu group of about 40 s, started right
 * after the long file and beside the core group: the two cores still finish within a few seconds
 * of each other, two start-ups fewer than at 34 (measured on a two-core machine, 2026-11-30). The
 * cpu-fast suites share their kernels' generation and V8's warm-up of the generators: the BLAS-3
 * suite inside the cpu group cost 3-6 s of CPU less than in a process of its own.
 */
const GROUP_SIZE = 45;

/**
 * V8 flags of the test processes (node --test hands them on to every file's process). `--liftoff-only`:
 * WebAssembly compiled by the baseline compiler only. The optimizing tier's background compiles of the
 * fast CPU backend's modules took about 40% of the CPU of the wasm-heavy files on Node 20 (zpotrf-wasm
 * 6.6 -> 3.9 s, factor 6.1 -> 4.3, potrf-interleaved 7.1 -> 3.9 on a two-core machine), and the suite
 * checks results, which WebAssembly's semantics make the same in both tiers (relaxed SIMD's fused or
 * unfused multiply-add may differ: the tests accept both). Benchmarks and users keep both tiers.
 */
const TEST_FLAGS: readonly string[] = ['--liftoff-only'];

/** What in a test file's text changes the process for the files after it (the first match's description), or undefined. */
const OWN_PROCESS: readonly [RegExp, string][] = [
  [/run-tests: own process/, 'asks for its own process'],
  [/process\.env(?:\.[\w$]+|\[[^\]]*\])\s*(?:=(?!=)|\?\?=|\|\|=|&&=)|process\.env\s*=(?!=)|delete\s+process\.env|Object\.assign\(\s*process\.env/, 'sets environment variables'],
  [/\bmock\s*\./, 'mocks'],
  [/process\.(?:on|once|addListener|prependListener|chdir|exit|exitCode|umask|setUncaughtExceptionCaptureCallback)\b/, 'changes the process'],
  [/globalThis(?:\.[\w$]+|\[[^\]]*\])\s*=(?!=)|console\.\w+\s*=(?!=)/, 'replaces globals'],
  [/\bsetCpuThreads\s*\(|\bTHREADING\.\w+\s*=(?!=)|\bsetMeasuredBandwidth\s*\(/, 'changes the CPU thread settings'],
  // Node 20's relaxed-SIMD flag set at run time reaches the workers started after it but not a thread
  // that had probed the engine before: the pool's kernels would then differ from the caller's.
  [/\bsetFlagsFromString\s*\(/, 'changes V8 flags'],
];

export function ownProcessReason(text: string): string | undefined {
  return OWN_PROCESS.find(([pattern]) => pattern.test(text))?.[1];
}

/** A file that takes many seconds (most of them in processes of its own) says so with this comment: it runs alone, and first. */
const LONG = /run-tests: long/;

/** The process a file shares only with the files that name the same one (`run-tests: process NAME`), or undefined. */
export function namedProcess(text: string): string | undefined {
  return /run-tests: process ([\w-]+)/.exec(text)?.[1];
}

/**
 * The folders' files split into runs, in the order they start: the long files alone, then groups of
 * up to `groupSize` files of one folder that may share a process, then the named processes' files
 * (each name's files together), then the other files that need their own. Long runs first, so that
 * no long run starts at the end while the other core idles.
 */
export function plan(folders: readonly (readonly string[])[], read: (file: string) => string, groupSize = GROUP_SIZE): string[][] {
  const long: string[][] = [];
  const groups: string[][] = [];
  const named = new Map<string, string[]>();
  const alone: string[][] = [];
  for (const files of folders) {
    const shared: string[] = [];
    for (const file of files) {
      const text = read(file);
      const name = namedProcess(text);
      if (LONG.test(text)) long.push([file]);
      else if (name !== undefined) named.set(name, [...(named.get(name) ?? []), file]);
      else if (ownProcessReason(text) !== undefined) alone.push([file]);
      else shared.push(file);
    }
    const count = Math.ceil(shared.length / groupSize);
    // Round robin, so that each group takes files from across the folder rather than one corner of it.
    for (let g = 0; g < count; g++) groups.push(shared.filter((_, i) => i % count === g));
  }
  return [...long, ...groups, ...named.values(), ...alone];
}

/** The entry that runs `files` in one process: each imported inside a suite named after its path. */
function writeGroup(name: string, files: readonly string[]): string {
  const entry = join(groupRoot, `${name}.mjs`);
  const lines = [
    "import { describe } from 'node:test';",
    ...files.map((f) => `describe(${JSON.stringify(relative(process.cwd(), f))}, () => import(${JSON.stringify(pathToFileURL(f).href)}));`),
    '',
  ];
  writeFileSync(entry, lines.join('\n'));
  return entry;
}

function main(argv: string[]): number {
  let concurrency = 2;
  let isolate = false;
  const folders: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--concurrency') {
      concurrency = Number(argv[++i]);
      if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`--concurrency: expected a positive integer, got ${argv[i]}`);
    } else if (arg === '--isolate') isolate = true;
    else folders.push(arg);
  }
  if (folders.length === 0) throw new Error('run-tests: name at least one folder under dist/test (core, cpu, cuda, ...)');
  rmSync(groupRoot, { recursive: true, force: true });
  mkdirSync(groupRoot, { recursive: true });
  const lists = folders.map((folder) => {
    const path = join(testRoot, folder);
    const list = testFiles(path, (stale) => console.log(`left out ${relative(process.cwd(), stale)}: its source ${sourceOf(stale)} is gone (a stale build output)`));
    if (list.length === 0) throw new Error(`run-tests: no *.test.js under ${relative(process.cwd(), path)} (built? run tsc first)`);
    return list;
  });
  // node --test sorts the files it is given by path: every run is handed over as an entry whose
  // name keeps the plan's order (a file that runs alone too, else a long file named test/... would
  // start after every group, whose entries sort first).
  const runs = isolate ? lists.flat() : plan(lists, (f) => readFileSync(f, 'utf8')).map((files, g) => writeGroup(`run-${String(g + 1).padStart(3, '0')}`, files));
  const run = spawnSync(process.execPath, [...TEST_FLAGS, '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...runs.map((f) => relative(process.cwd(), f))], { stdio: 'inherit' });
  return run.status ?? 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
