/**
 * `npm run test:gpu` (or plain `node dist/scripts/gpu-tests.js` where npm is missing): every GPU
 * test file in a process of its own, as many at once as the machine takes, then one table.
 *
 *   node dist/scripts/gpu-tests.js [--json FILE] [--logs DIR] [--jobs N] [--file-timeout S] [--order-from JSON]
 *                                  [--shard I/N] [--require-gpu] [--plan] [files or folders...]
 *   (default: dist/test/gpu/; --plan: print the machine, the order and each file's needs, run nothing)
 *
 * - No GPU on the machine (CI): one line, "GPU tests not run: no usable GPU (reason)", exit 0
 *   (exit 1 with --require-gpu). A GPU that is there but unusable (driver error, no NVRTC): exit 1.
 * - Parallelism: process slots from the CPU cores, device memory from cuMemGetInfo on every
 *   device at the start, each file charged what scripts/gpu-suite/plan.ts says (files that take
 *   all the memory or every GPU run alone); on several GPUs, files that use one are spread over
 *   them with CUDA_VISIBLE_DEVICES (the driver then shows them that one as device 0).
 * - Children get MYRIAD_REQUIRE_GPU=1: a test that cannot open the GPU fails instead of skipping;
 *   a skip fails the file unless plan.ts allows it (opt-ins, a second GPU that is not there).
 * - Each file has a time limit (plan.ts, --file-timeout); a file that crashes, times out or
 *   reports no tests fails. Exit 1 on any failure.
 * - --order-from JSON: an earlier run's --json; within each class, the files that took longest start first.
 * - --shard I/N: only the I-th of N shards of about equal length (plan.ts shardOf, by the same seconds
 *   as the order), for machines that limit one command's time: run 1/N ... N/N to cover every file.
 * - --json FILE: the table as JSON, rewritten as each file finishes (a run cut short leaves what
 *   it finished). --logs DIR: each file's full output (default: a folder under the OS's tmpdir).
 */
import { sourceOf, testFiles } from './gpu-suite/files.js';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDevice } from '../src/cuda/runtime/index.js';
import { gpuPresence } from '../test/helpers/gpu-presence.js';
import { FILE_RULES, needsOf, queueOrder, secondsFromJson, shardOf, skipAllowed, timeoutOf, DEFAULT_TIMEOUT_S } from './gpu-suite/plan.js';
import { displayName, runSuite } from './gpu-suite/run.js';
import { GiB, slotsFromCores, type Machine } from './gpu-suite/schedule.js';
import { formatDetails, formatTable, notRun, totals, type FileResult } from './gpu-suite/summary.js';

const here = dirname(fileURLToPath(import.meta.url));

interface Options {
  json?: string;
  orderFrom?: string;
  logs?: string;
  jobs?: number;
  fileTimeoutS?: number;
  shard?: { index: number; shards: number };
  requireGpu: boolean;
  plan: boolean;
  targets: string[];
}

function parseArgs(argv: readonly string[]): Options {
  const o: Options = { requireGpu: false, plan: false, targets: [] };
  const value = (i: number, flag: string): string => {
    const v = argv[i];
    if (v === undefined) throw new Error(`${flag}: missing value`);
    return v;
  };
  const positive = (s: string, flag: string): number => {
    const n = Number(s);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`${flag}: expected a positive number, got ${s}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--json') o.json = value(++i, a);
    else if (a === '--logs') o.logs = value(++i, a);
    else if (a === '--order-from') o.orderFrom = value(++i, a);
    else if (a === '--jobs') o.jobs = Math.floor(positive(value(++i, a), a));
    else if (a === '--file-timeout') o.fileTimeoutS = positive(value(++i, a), a);
    else if (a === '--shard') o.shard = parseShard(value(++i, a));
    else if (a === '--require-gpu') o.requireGpu = true;
    else if (a === '--plan') o.plan = true;
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else o.targets.push(a);
  }
  return o;
}

/** `I/N` of --shard. */
function parseShard(s: string): { index: number; shards: number } {
  const m = /^(\d+)\/(\d+)$/.exec(s);
  if (m === null) throw new Error(`--shard: expected I/N (for example 1/2), got ${s}`);
  const index = Number(m[1]), shards = Number(m[2]);
  if (shards < 1 || index < 1 || index > shards) throw new Error(`--shard: expected 1 <= I <= N, got ${s}`);
  return { index, shards };
}

interface DeviceState { readonly ordinal: number; readonly name: string; readonly freeBytes: number; readonly totalBytes: number; readonly error?: string }

function readDevices(count: number): DeviceState[] {
  const out: DeviceState[] = [];
  for (let i = 0; i < count; i++) {
    try {
      const dev = openDevice(i);
      try {
        const { free, total } = dev.memoryInfo();
        out.push({ ordinal: i, name: dev.info.name, freeBytes: free, totalBytes: total });
      } finally {
        dev.dispose();
      }
    } catch (e) {
      out.push({ ordinal: i, name: '?', freeBytes: 0, totalBytes: 0, error: (e as Error).message });
    }
  }
  return out;
}

/** CUDA_VISIBLE_DEVICES for a child on device `d` (as this process numbers them). */
function visibleFor(d: number): string {
  const parent = process.env['CUDA_VISIBLE_DEVICES'];
  if (parent === undefined || parent.trim() === '') return String(d);
  const list = parent.split(',').map((s) => s.trim()).filter((s) => s !== '');
  return list[d] ?? String(d);
}

async function main(argv: readonly string[]): Promise<number> {
  const o = parseArgs(argv);
  const t0 = Date.now();
  const targets = o.targets.length > 0 ? o.targets : [resolve(here, '..', 'test', 'gpu')];
  const writeJson = (payload: unknown): void => { if (o.json) { mkdirSync(dirname(resolve(o.json)), { recursive: true }); writeFileSync(o.json, `${JSON.stringify(payload, null, 2)}\n`); } };

  const presence = gpuPresence();
  if (presence.state !== 'usable') {
    const line = presence.state === 'absent'
      ? `GPU tests not run: no usable GPU (${presence.reason})`
      : `GPU tests not run: a GPU is present but unusable (${presence.reason})`;
    console.log(line);
    const fail = presence.state === 'unusable' || o.requireGpu;
    writeJson({ ran: false, ok: !fail, reason: line });
    return fail ? 1 : 0;
  }

  const seconds = o.orderFrom ? secondsFromJson(JSON.parse(readFileSync(o.orderFrom, 'utf8'))) : undefined;
  const found = targets.flatMap((t) => testFiles(t, (path) => console.log(`left out ${path}: its source ${sourceOf(path)} is gone (a stale build output; rebuild dist/ from clean)`)));
  const files = queueOrder(o.shard ? shardOf(found, o.shard.index, o.shard.shards, seconds) : found, seconds);
  if (files.length === 0) throw new Error(`no *.test.js under ${targets.join(', ')} (built? run tsc first)`);
  const devices = readDevices(presence.devices);
  const cores = typeof availableParallelism === 'function' ? availableParallelism() : cpus().length;
  const freeBytes = devices.map((d) => d.freeBytes);
  const maxFree = Math.max(...freeBytes);
  const machine: Machine = {
    freeBytes,
    slots: o.jobs ?? slotsFromCores(cores),
    reserveBytes: Math.max(4 * GiB, 0.1 * maxFree),
  };
  const gpus = devices.length;
  const gib = (b: number): string => (b / GiB).toFixed(1);
  console.log(`GPU tests: ${files.length} files${o.shard ? ` (shard ${o.shard.index}/${o.shard.shards} of ${found.length})` : ''} on ${gpus} GPU(s): ${devices.map((d) => `${d.ordinal}: ${d.name}, ${gib(d.freeBytes)} of ${gib(d.totalBytes)} GiB free${d.error ? ` (${d.error})` : ''}`).join('; ')}`);
  console.log(`  up to ${machine.slots} at once (${cores} CPU cores${o.jobs ? ', --jobs' : ''}), ${gib(machine.reserveBytes)} GiB kept free per GPU`);
  if (o.plan) {
    for (const f of files) {
      const n = needsOf(f), rule = FILE_RULES[basename(f).replace(/\.test\.js$/, '')];
      console.log(`  ${basename(f)}: ${n.allGpus ? 'every GPU, alone' : n.exclusive ? 'alone on its GPU' : `${gib(n.memory)} GiB`}, limit ${timeoutOf(f, o.fileTimeoutS ?? DEFAULT_TIMEOUT_S)} s${rule ? ` (${rule.why})` : ''}`);
    }
    return 0;
  }
  const logDir = o.logs ? (mkdirSync(o.logs, { recursive: true }), o.logs) : mkdtempSync(join(tmpdir(), 'myriad-gpu-tests-'));
  console.log(`  logs in ${logDir}`);

  const machineJson = { gpus: devices, cores, slots: machine.slots, reserveBytes: machine.reserveBytes, node: process.version };
  const snapshot = (results: ReadonlyMap<string, FileResult>, final: boolean): void => {
    const list = files.map((f) => results.get(f) ?? notRun(displayName(f), final ? 'never started' : 'not finished yet'));
    const t = totals(list, (Date.now() - t0) / 1000);
    writeJson({ ran: true, final, ok: final && t.ok, machine: machineJson, total: t, files: list });
  };
  let finished = 0;
  const list = await runSuite({
    files, machine, needsOf, logDir,
    timeoutSOf: (f) => timeoutOf(f, o.fileTimeoutS ?? DEFAULT_TIMEOUT_S),
    skipAllowed: (f, reason) => skipAllowed(f, reason, gpus),
    env: { MYRIAD_REQUIRE_GPU: '1' },
    // One GPU: leave CUDA_VISIBLE_DEVICES as it is; several: one each, numbered as this process sees them.
    visibleFor: (d) => (gpus > 1 ? visibleFor(d) : undefined),
    onProgress: (results, res) => {
      if (res) {
        finished++;
        console.log(`[${finished}/${files.length}] ${res.file}: ${res.status}, ${res.pass} passed, ${res.fail} failed, ${res.skip} skipped, ${res.seconds.toFixed(1)} s${res.device === null ? '' : res.device === 'all' ? ' (all GPUs)' : ` (GPU ${res.device})`}`);
      }
      snapshot(results, false);
    },
  });
  const final = new Map(files.map((f, i) => [f, list[i]!] as const));
  const t = totals(list, (Date.now() - t0) / 1000);
  console.log('');
  console.log(formatTable(list, t));
  const details = formatDetails(list);
  if (details) console.log(`\n${details}`);
  snapshot(final, true);
  return t.ok ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (e: unknown) => {
    console.error(`gpu-tests: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 1;
  });
}
