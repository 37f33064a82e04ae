// Variable-size gemm's device form (variableDevice, route 'vdevice') stage by stage, on workload a
// (200,000 square members, log-uniform in 1-64) or b (20,000 in 1-512), C += A B, CUDA events after
// a warm-up, median of 7:
// 1. the API call (as `myriad bench gemm --vbatched a` times it) and the launcher alone;
// 2. its stages alone: the memset of the classes' counters, the classification kernel (counters
//    reset untimed before each run), each class's device-count kernel over its region (the tables
//    of one classification, kept);
// 3. what the stages replaced: each class's plain kernel over its whole region (a block a row, the
//    rows past the class's members zero), and the tables' allocation, zeroing, wait and free of one
//    call (host clock);
// 4. the device-count grids' waves (tuning `vdeviceWaves`: 1, 2, 4), and cuBLAS's loop of
//    gemmBatched calls over the same members.
// Prints markdown, with each stage's launches, bytes moved and waits.
// Usage: MYRIAD_QUICK_FIRST=0 node scripts/probe/vdevice-stages.mjs [a|b] [float64|float32]
// (MYRIAD_QUICK_FIRST=0: every kernel its optimised build before it runs; the timings are of those).
import { open } from '../../dist/src/index.js';
import { logUniformSizes, VBATCHED_WORKLOADS, vbatchedRequest } from '../../dist/src/bench/vbatched.js';
import { deviceFormCall } from '../../dist/src/bench/vbatched-device.js';
import { vendorGemm } from '../../dist/src/bench/vbatched-vendor.js';
import { fillUniform } from '../../dist/src/cuda/tune/tsm2-bench.js';
import { timeMs } from '../../dist/src/cuda/tune/measure.js';
import { tuningFor } from '../../dist/src/cuda/model/tuning/index.js';
import { kernelFor } from '../../dist/src/cuda/kernels/common/kernel-cache.js';
import { batchArgs, deviceRegions, inDeviceFrame, launchPerMember, onDevice, takeDeviceTables } from '../../dist/src/cuda/kernels/common/vdevice.js';
import { arg } from '../../dist/src/cuda/runtime/types.js';
import {
  GEMM_VBATCH_INTS, GEMM_VBATCH_POINTERS, gemmClassParams, gemmDeviceVariableCuda, generateGemmClassify, vbatchedGemmLaunch, vbatchedGemmSource,
} from '../../dist/src/cuda/kernels/gemm/index.js';
import { gemmDeviceMaxSize, deviceClassSlots } from '../../dist/src/cuda/kernels/gemm/launch-vdevice.js';
import { VBATCH_CLASSES, sizeClass } from '../../dist/src/cuda/kernels/common/vbatch.js';

const workload = process.argv[2] ?? 'a';
const dtype = process.argv[3] ?? 'float64';
const REPEATS = 7;
const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const tuning = tuningFor(dev.info.arch, 'gemm');
const { count, max } = VBATCHED_WORKLOADS[workload];
const sizes = logUniformSizes(count, max, workload === 'a' ? 1 : 2);
const elements = sizes.reduce((s, n) => s + n * n, 0);
const data = [0, 1, 2].map((i) => { const d = dev.alloc(dtype, elements); fillUniform(dev, d, 11 + i); return d; });
const info = dev.alloc('int32', count);
const hostRequest = vbatchedRequest('gemm', sizes, data, info);
const device = deviceFormCall(ctx, dev, 'gemm', sizes, data, info, dtype);
const r = device.request;
const { launches, regions } = deviceRegions(gemmDeviceMaxSize(r));
const scalars = { dtype, transA: r.transA, transB: r.transB, beta: r.beta };
const fmt = (x, d = 3) => (Number.isFinite(x) ? x.toFixed(d) : '-');
const rows = [];
const row = (stage, ms, launchesN, bytes, waits, note = '') => rows.push(`| ${stage} | ${fmt(ms)} | ${launchesN} | ${fmt(bytes / 1e6, 1)} | ${waits} | ${note} |`);
const perClass = new Map();
for (const n of sizes) { const b = n > 512 ? 'large' : sizeClass(n); perClass.set(b, (perClass.get(b) ?? 0) + 1); }

// 1. The whole call.
row('API call (ctx.gemm, variableDevice)', timeMs(dev, device.run, REPEATS), 2 + launches.length, NaN, 0, 'memset + classification + a launch a class');
row('launcher alone (gemmDeviceVariableCuda)', timeMs(dev, () => gemmDeviceVariableCuda(dev, r), REPEATS), 2 + launches.length, NaN, 0);

// 2. The stages, on tables of one frame kept open for the timings (nothing else takes from the workspace meanwhile).
inDeviceFrame(dev, (frame) => {
  const tables = takeDeviceTables(dev, frame, regions, count, GEMM_VBATCH_POINTERS, GEMM_VBATCH_INTS, 'zeroed');
  const countersView = dev.view(tables.ints, regions * count * GEMM_VBATCH_INTS, regions);
  row('memset of the counters', timeMs(dev, () => dev.fill(countersView, 0), REPEATS), 1, 4 * regions, 0);
  const cp = { transA: r.transA, transB: r.transB };
  const classify = kernelFor(dev, 'gemm-vclassify', cp, () => generateGemmClassify(cp));
  const classifyArgs = [
    ...batchArgs(r.a), ...batchArgs(r.b), ...batchArgs(r.c),
    arg.i32(count), arg.i32(r.alpha === 0 ? 1 : 0), arg.i32(r.beta === 1 ? 1 : 0), arg.i64(count),
    arg.ptr(tables.pointers), arg.ptr(tables.ints), arg.ptr(tables.counters), arg.ptr(onDevice(r.info)),
  ];
  // Per member: rows, ld (int32) and an address (int64) of A, B, C read; info and a row (3 addresses, 6 ints) written.
  const classifyBytes = count * (3 * 16 + 4 + 3 * 8 + 6 * 4);
  row('classification kernel', timeMs(dev, () => launchPerMember(classify, count, classifyArgs), REPEATS, () => dev.fill(countersView, 0)), 1, classifyBytes, 0,
    `${count} threads, ${count} atomicAdds on ${regions} counters`);
  // One classification for the class kernels below (rows past each counter zero: the plain kernels read them).
  dev.fill(countersView, 0);
  launchPerMember(classify, count, classifyArgs);
  let sumCounted = 0, sumPlain = 0;
  for (const { region, bound } of launches) {
    const members = perClass.get(bound > 512 ? 'large' : bound) ?? 0;
    const p = gemmClassParams(scalars, bound, tuning);
    const at = tables.at(region);
    const common = [arg.ptr(at.pointers), arg.ptr(at.ints), arg.i32(count), arg.real(dtype, r.alpha), arg.real(dtype, r.beta)];
    const counted = { ...p, deviceCount: true };
    const ck = kernelFor(dev, `gemm-${counted.variant}`, counted, () => vbatchedGemmSource(counted));
    const describe = (q) => (q.variant === 'vmma' ? `vmma ${q.bm}x${q.bn}x${q.bk} w${q.wm}x${q.wn} s${q.stages}` : q.variant === 'vtiled' ? `vtiled ${q.bm}x${q.bn}x${q.bk}` : q.variant === 'vstaged' ? `vstaged ${q.members} a block ${q.tm}x${q.tn}` : `vsmall ${q.team}x${q.tbc}`);
    for (const waves of [1, 2, 4]) {
      const slots = deviceClassSlots(dev, counted, ck, count, waves);
      const launch = vbatchedGemmLaunch(counted, slots);
      const blocks = launch.grid[0] * launch.grid[1] * launch.grid[2];
      const ms = timeMs(dev, () => ck.launch(launch, [...common, arg.ptr(tables.counter(region))]), REPEATS);
      if (waves === (tuning.vdeviceWaves ?? 2)) sumCounted += ms;
      row(`class ${bound}: device-count kernel, ${waves} wave${waves > 1 ? 's' : ''}`, ms, 1, NaN, 0, `${describe(p)}, ${members} members, ${blocks} blocks, ${ck.registers} registers`);
    }
    const pk = kernelFor(dev, `gemm-${p.variant}`, p, () => vbatchedGemmSource(p));
    const plain = vbatchedGemmLaunch(p, count);
    const ms = timeMs(dev, () => pk.launch(plain, common), REPEATS);
    sumPlain += ms;
    row(`class ${bound}: plain kernel over the region`, ms, 1, NaN, 0, `${plain.grid[0] * plain.grid[1] * plain.grid[2]} blocks, a row each (${count - members} rows zero)`);
  }
  row('sum of the device-count class kernels', sumCounted, launches.length, NaN, 0);
  row('sum of the plain class kernels over whole regions', sumPlain, launches.length, NaN, 0);
});

// 3. The tables' allocation of one call as it was (host clock: alloc, zero, wait, free).
{
  const pointerElements = regions * count * GEMM_VBATCH_POINTERS, intElements = regions * count * GEMM_VBATCH_INTS + regions;
  const once = () => {
    const t0 = performance.now();
    const p = dev.alloc('int64', pointerElements), i = dev.alloc('int32', intElements);
    dev.fill(p, 0); dev.fill(i, 0);
    dev.synchronize();
    p.dispose(); i.dispose();
    return performance.now() - t0;
  };
  once();
  const t = Array.from({ length: REPEATS }, once).sort((x, y) => x - y)[REPEATS >> 1];
  row('tables allocated, zeroed, waited for and freed (per call, host clock)', t, 2, 8 * pointerElements + 4 * intElements, 1, '2 cuMemAlloc, 2 memsets, a synchronize, 2 cuMemFree');
}

// 4. The vendor's loop over the same members.
const vendor = vendorGemm(dev, hostRequest, false);
if (vendor !== undefined) row('cuBLAS loop (gemmBatched a distinct size)', timeMs(dev, () => vendor.run(), REPEATS), new Set(sizes).size, NaN, 0);

console.log(`## gemm's device form by stage, ${dev.info.name} (${dev.info.arch}, ${dev.info.smCount} SMs): workload ${workload}, ${dtype}, ${count} members, C += A B\n`);
console.log(`Classes: ${[...VBATCH_CLASSES, 'large'].filter((b) => perClass.has(b)).map((b) => `${b}: ${perClass.get(b)}`).join(', ')}.\n`);
console.log('| stage | ms | launches | MB moved | waits | notes |');
console.log('| --- | ---: | ---: | ---: | ---: | --- |');
for (const line of rows) console.log(line);
dev.synchronize();
vendor?.dispose();
for (const x of [...data, info, ...device.arrays]) x.dispose();
ctx.dispose();
