// The host side of variable-size batches on the GPU route, without a GPU: where a call of 200,000
// device-resident members (the --vbatched bench's workloads, its generators) spends its host time.
//
//   npm run build && node scripts/probe/vbatched-host.mjs [a|b] [op ...] [--repeats N] [--profile [--other]]
//
// Each op on a stub device (a PlanningDevice with the H200's info: kernels, uploads and launches
// are no-ops, so what is timed is the host's work alone), per member of the batch:
// - validate: the API's validation of the call (prepare.ts VALIDATORS: shapes, buffers, overlaps);
// - route:    the router's choice without a force (every candidate's `covers` up to the one taken);
// - launcher: the route 'vbatched' forced, as the bench times it (runRouted); with --profile split
//             by a CPU profile of the same calls (this script run again for the op under
//             `node --cpu-prof`, warmed as here, its calls alone counted) into its stages (reading the members, classing,
//             the tables, trsm's update blocks, the plans, garbage collection, the rest: sampled
//             wall time, by function name, an inlined function counted in its caller's);
// - api:      the whole public call (ctx.<op>) on a context over the stub, its route forced to 'vbatched'.
// CPU time of the process (so other processes' load does not count), the fastest of --repeats calls
// after two warm-ups (a loaded machine's slow calls are its load's;
// the profile: over all of them; --other lists the functions of the profile's 'other'). This
// machine's numbers, not the GPU host's: compare before and after on one machine.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Context } from '../../dist/src/api/context.js';
import { VALIDATORS } from '../../dist/src/api/prepare.js';
import { withValidatedScans } from '../../dist/src/core/batch.js';
import { logUniformSizes, vbatchedRequest, VBATCHED_OPS, VBATCHED_WORKLOADS } from '../../dist/src/bench/vbatched.js';
import { CudaBackend } from '../../dist/src/cuda/backend.js';
import { choose, runRouted } from '../../dist/src/cuda/router.js';
import { PlanningDevice } from '../../dist/src/cuda/runtime/planning-device.js';

/** An H200 as cuDeviceGetAttribute reports it (the sm_90 tuning tables). */
const H200 = {
  ordinal: 0, name: 'NVIDIA H200', arch: 'sm_90', major: 9, minor: 0, smCount: 132, warpSize: 32,
  maxThreadsPerBlock: 1024, maxThreadsPerSM: 2048, maxBlocksPerSM: 32, regsPerBlock: 65536, regsPerSM: 65536,
  sharedPerBlock: 49152, sharedPerBlockOptin: 232448, sharedPerSM: 233472, clockKHz: 1980000,
  memoryClockKHz: 3201000, memoryBusWidthBits: 6144, l2Bytes: 62914560, totalMemoryBytes: 150e9,
};

const args = process.argv.slice(2);
const flag = (name) => { const i = args.indexOf(name); if (i < 0) return undefined; const v = args[i + 1]; args.splice(i, 2); return v; };
const repeats = Number(flag('--repeats') ?? 7);
const profile = args.includes('--profile');
// The profile's own process (run by stageSplit under --cpu-prof): the launcher's calls of one op, then exit.
const profiledChild = args.includes('--profiled-child');
const rest = args.filter((a) => a !== '--profile' && a !== '--other' && a !== '--profiled-child');
const workload = rest[0] === 'a' || rest[0] === 'b' ? rest.shift() : 'a';
const ops = rest.length > 0 ? rest : VBATCHED_OPS;

/** Profile functions by stage (the first pattern that matches a function's name wins). */
const STAGES = [
  ['read', /^(readMembers|memberFields|memberShapes|int32s)$/],
  ['classify', /^(planClasses|countSizes|placeMembers|memberSizes|classPathPays|classifyTrsm|keptMembers|countKept|placeKept|sizeClass|severalShapes|getrfMemberSize|gemmMemberSize)$/],
  ['tables', /(MemberTables|^putAddress$|^solveTables$|^addressWords$|^memberAddresses$|^fillTables|Tables$)/],
  ['trsm updates', /^(updateFields|updateEntries|cutFieldsOf|cutLoop|cutInBatchOrder|cutRow|keptRows)$/],
  ['plan', /^(plan|gemmClass|potrfClass|getrfClass|trsmClass|vmma|bandFor|mmaConfigFor)/],
  ['gc', /^\(garbage collector\)$/],
];

const showOther = args.includes('--other');

/** CPU milliseconds of the process (user + system): what a call costs whatever else the machine runs. */
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

function timed(run) {
  for (let i = 0; i < 2; i++) run();
  const ms = [];
  for (let i = 0; i < repeats; i++) { const t = cpuMs(); run(); ms.push(cpuMs() - t); }
  return Math.min(...ms);
}

/** The profiled calls: a function of its own, so that the profile's samples under it are theirs alone. */
function profiledWindow(run, calls) {
  for (let i = 0; i < calls; i++) run();
}

/**
 * Self time per stage (ms per call) of `calls` launcher calls of `op`, from a CPU profile (V8's
 * sampler at 50 us, `node --cpu-prof`) of this script run again for that op alone: only the samples
 * under profiledWindow count, not the process's setup.
 */
function stageSplit(op, calls) {
  const dir = mkdtempSync(join(tmpdir(), 'vbatched-host-'));
  try {
    const child = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-interval', '50', '--cpu-prof-dir', dir,
      fileURLToPath(import.meta.url), workload, op, '--repeats', String(calls), '--profiled-child'], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (child.status !== 0) throw new Error(`the profiled run of ${op} failed (status ${child.status})`);
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (file === undefined) throw new Error(`the profiled run of ${op} wrote no profile`);
    return stagesOf(JSON.parse(readFileSync(join(dir, file), 'utf8')), calls);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A profile's self time under profiledWindow, per stage, in ms per call. */
function stagesOf(p, calls) {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const inside = new Set();
  const mark = (id) => { inside.add(id); for (const c of byId.get(id).children ?? []) mark(c); };
  for (const n of p.nodes) if (n.callFrame.functionName === 'profiledWindow') mark(n.id);
  // The collector's samples hang off the root: those between the window's first and last sample count.
  const window = p.samples.flatMap((id, i) => (inside.has(id) ? [i] : []));
  const [first, last] = [window[0] ?? 0, window[window.length - 1] ?? -1];
  const counted = (id, i) => inside.has(id) || (i > first && i < last && byId.get(id).callFrame.functionName === '(garbage collector)');
  const self = new Map();
  for (let i = 0; i < p.samples.length; i++) if (counted(p.samples[i], i)) self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
  const out = Object.fromEntries([...STAGES.map(([s]) => [s, 0]), ['other', 0]]);
  const other = new Map();
  for (const n of p.nodes) {
    const us = self.get(n.id) ?? 0;
    const name = n.callFrame.functionName;
    if (us === 0 || name === '(idle)' || name === '(program)') continue;
    const stage = STAGES.find(([, re]) => re.test(name))?.[0] ?? 'other';
    out[stage] += us / 1000 / calls;
    if (stage === 'other') { const k = `${name || '(anonymous)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber + 1}`; other.set(k, (other.get(k) ?? 0) + us / 1000 / calls); }
  }
  if (showOther) for (const [k, ms] of [...other].sort((x, y) => y[1] - x[1]).slice(0, 8)) console.log(`    other: ${k} ${nsPer(ms)}`);
  return out;
}

const { count, max } = VBATCHED_WORKLOADS[workload];
const sizes = logUniformSizes(count, max, workload === 'a' ? 1 : 2);
const elements = sizes.reduce((s, n) => s + n * n, 0);
const nsPer = (ms) => (ms * 1e6 / count).toFixed(1);

console.log(`workload ${workload}: ${count} members, sizes 1-${max}; CPU ns per member (this machine), the fastest of ${repeats}`);
const header = ['op', 'validate', 'route (taken)', 'launcher', 'api', ...(profile ? [...STAGES.map(([s]) => s), 'other'] : [])];
console.log(header.join(' | '));
for (const op of ops) {
  const dev = new PlanningDevice(H200);
  const data = [0, 1, 2].map(() => dev.alloc('float64', elements));
  const info = dev.alloc('int32', count);
  const ipiv = dev.alloc('int32', count * max);
  const request = vbatchedRequest(op, sizes, data, info, ipiv);
  // The public arguments: the request less the pivot stride (the API derives it).
  const { pivotStride: _stride, ...input } = request;
  const validator = VALIDATORS[op];
  const hostInts = (n) => new Int32Array(n);
  // (as a call validates: its variable batches' scans kept while it runs, core/batch.ts withValidatedScans)
  const validate = timed(() => withValidatedScans(() => validator(input, hostInts)));
  const validated = validator(input, hostInts);
  let taken = '';
  const route = timed(() => { taken = choose(op, validated, dev).name; });
  if (profiledChild) {
    // Warmed as the parent's timing warms the launcher (two calls and the timed ones) before the window.
    for (let i = 0; i < 2 + repeats; i++) runRouted(op, dev, validated, 'vbatched');
    profiledWindow(() => runRouted(op, dev, validated, 'vbatched'), repeats);
    process.exit(0);
  }
  const launcher = timed(() => runRouted(op, dev, validated, 'vbatched'));
  const backend = new CudaBackend(dev, 'probe');
  backend.force = { [op]: 'vbatched' };
  const ctx = new Context('cuda', backend, backend, () => {});
  const api = timed(() => ctx[op](input));
  const row = [op, nsPer(validate), `${nsPer(route)} (${taken})`, nsPer(launcher), nsPer(api)];
  if (profile) {
    const split = stageSplit(op, repeats);
    row.push(...Object.values(split).map(nsPer));
  }
  console.log(row.join(' | '));
}
