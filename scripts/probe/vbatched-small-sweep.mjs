// Variable-size gemm's classes up to 64, design by design: workload a's members (200,000 square,
// log-uniform in 1-64), C += A B, split by class, each part alone, float64 and float32.
// 1. Classes up to 32, the team design (A and B read from memory, a team of threads a member)
//    against the staged design (operands in shared memory, unrolled product, a register tile of C),
//    both forced through the tuning table's `vbatchedSmall`, on the device form (classification
//    plus the class kernels, as `vbatched-classes.mjs` times it), beside cuBLAS's per-size loop and
//    the uniform batched gemm of the class bound over as many members.
// 2. Each class kernel alone (host tables uploaded once, one launch timed): the team design, the
//    staged design's shapes (members a block, tm x tn a thread), and for 33-48 and 49-64 the
//    tensor-core (float64) and tiled configurations (smaller tiles, fewer stages, more warps).
// Prints markdown. Usage: MYRIAD_QUICK_FIRST=0 node scripts/probe/vbatched-small-sweep.mjs
// Options by environment: DTYPES=float64 (default both), FROM=33 (classes whose bound is at least
// this), MMA48 / MMA64='[[bm, bn, bk, wm, wn, stages, minBlocks, prefetchC], ...]' replace a class's
// mma list (minBlocks 0 or absent: none; prefetchC 0: C's tile not prefetched (by default it is)); ALIGN=1: the kernel-alone rows on members at 16-byte aligned
// offsets with even leading dimensions (what misaligned members cost the 16-byte copies).
// (MYRIAD_QUICK_FIRST=0: every kernel its optimised build before it runs; the timings are of those).
import { open, strided, variable } from '../../dist/src/index.js';
import { logUniformSizes, VBATCHED_WORKLOADS, vbatchedRequest } from '../../dist/src/bench/vbatched.js';
import { deviceFormCall } from '../../dist/src/bench/vbatched-device.js';
import { vendorGemm } from '../../dist/src/bench/vbatched-vendor.js';
import { fillUniform } from '../../dist/src/cuda/tune/tsm2-bench.js';
import { timeMs } from '../../dist/src/cuda/tune/measure.js';
import { tuningFor } from '../../dist/src/cuda/model/tuning/index.js';
import { elementBytes } from '../../dist/src/cuda/kernels/common/precision.js';
import { memberFields } from '../../dist/src/cuda/kernels/common/members.js';
import { uploadMemberTables } from '../../dist/src/cuda/kernels/common/vbatch.js';
import { kernelFor } from '../../dist/src/cuda/kernels/common/kernel-cache.js';
import { arg } from '../../dist/src/cuda/runtime/types.js';
import {
  GEMM_VBATCH_INTS, GEMM_VBATCH_POINTERS, gemmClassParams, gemmDeviceVariableCuda, vbatchedGemmLaunch, vbatchedGemmSource, vstagedProblem, vstagedSharedBytes,
} from '../../dist/src/cuda/kernels/gemm/index.js';
import { gemmMemberTables } from '../../dist/src/cuda/kernels/gemm/launch-vbatched.js';
import { planVbatchedGemmSizes } from '../../dist/src/cuda/kernels/gemm/plan-vbatched.js';

const ctx = await open({ backend: 'cuda' });
const dev = ctx.deviceBackend.device;
const base = tuningFor(dev.info.arch, 'gemm');
const { count, max } = VBATCHED_WORKLOADS.a;
const all = logUniformSizes(count, max, 1);
const FROM = Number(process.env.FROM ?? 1);
const CLASSES = [[1, 8], [9, 16], [17, 24], [25, 32], [33, 48], [49, 64]].filter(([, bound]) => bound >= FROM);
const DTYPES = (process.env.DTYPES ?? 'float64,float32').split(',');
const REPEATS = 7;

// The team design's shapes (threads a member, members a block) per bound.
const TEAM = { 8: { team: 32, tbc: 8 }, 16: { team: 64, tbc: 4 }, 24: { team: 128, tbc: 2 }, 32: { team: 128, tbc: 2 } };
// Staged shapes tried per bound: [members, tm, tn] (the planner's default is added first).
const STAGED = {
  8: [[8, 1, 2], [16, 2, 2], [32, 2, 2], [8, 2, 2], [16, 2, 4], [8, 1, 1]],
  16: [[4, 2, 2], [8, 2, 2], [2, 2, 2], [8, 4, 2], [4, 4, 4], [8, 4, 4]],
  24: [[4, 3, 3], [2, 3, 3], [2, 3, 2], [4, 6, 3], [8, 6, 3]],
  32: [[2, 4, 4], [1, 4, 4], [2, 2, 4], [1, 2, 2], [2, 4, 2], [4, 4, 8]],
};
// Classes 33-48 and 49-64: [variant, config] tried (the plan's pick added first).
const MMA = {
  48: [[32, 32, 32, 2, 2, 2], [32, 32, 16, 2, 2, 2], [32, 32, 16, 2, 2, 3], [32, 32, 32, 2, 2, 1], [32, 32, 16, 1, 1, 2], [32, 32, 32, 1, 2, 2], [48, 48, 16, 3, 3, 2], [48, 48, 16, 3, 1, 2], [64, 64, 8, 2, 2, 4]],
  64: [[64, 64, 16, 4, 2, 3], [64, 64, 16, 4, 2, 2], [64, 64, 16, 2, 2, 2], [64, 64, 32, 4, 2, 2], [64, 64, 16, 4, 4, 2], [64, 64, 8, 4, 2, 4], [32, 32, 32, 2, 2, 2], [32, 64, 16, 2, 2, 2], [64, 32, 16, 2, 2, 2], [64, 64, 8, 2, 2, 4]],
};
if (process.env.MMA48) MMA[48] = JSON.parse(process.env.MMA48);
if (process.env.MMA64) MMA[64] = JSON.parse(process.env.MMA64);
const TILED = {
  48: [[32, 32, 16, 2, 2], [32, 32, 16, 4, 4], [32, 32, 8, 4, 4], [32, 32, 16, 2, 4], [48, 48, 16, 4, 4], [16, 16, 16, 4, 4], [64, 64, 16, 8, 8]],
  64: [[64, 64, 16, 8, 8], [64, 64, 16, 4, 4], [32, 32, 16, 4, 4], [32, 64, 16, 4, 4], [64, 32, 16, 4, 4], [64, 64, 8, 8, 8], [32, 32, 16, 2, 2]],
};

const fmt = (x, d = 3) => (Number.isFinite(x) ? x.toFixed(d) : '-');
const rows = { classes: [], kernels: [], large: [] };

/** Times one class kernel of params `p` alone over the class's members (tables uploaded once). */
function kernelMs(part, p) {
  const kernel = kernelFor(dev, `gemm-${p.variant}`, p, () => vbatchedGemmSource(p));
  const launch = vbatchedGemmLaunch(p, part.n);
  const args = [arg.ptr(part.tables.pointers), arg.ptr(part.tables.ints), arg.i32(part.n), arg.real(part.dtype, 1), arg.real(part.dtype, 1)];
  return timeMs(dev, () => kernel.launch(launch, args), REPEATS);
}

function tryRow(list, label, run, bytes) {
  try {
    const ms = run();
    list.push(`| ${label} | ${fmt(ms)} | ${fmt(bytes / ms, 0)} |`);
  } catch (e) {
    list.push(`| ${label} | failed: ${String(e.message ?? e).slice(0, 80)} | - |`);
  }
}

for (const dtype of DTYPES) {
  const eb = elementBytes(dtype);
  for (const [lo, bound] of CLASSES) {
    const sizes = all.filter((n) => n >= lo && n <= bound);
    const elements = sizes.reduce((s, n) => s + n * n, 0);
    const bytes = (4 * elements * eb) / 1e6;
    const ldOf = (n) => n + (n % 2);
    const alignedElements = sizes.reduce((s, n) => s + n * ldOf(n), 0);
    const data = [0, 1, 2].map((i) => { const d = dev.alloc(dtype, process.env.ALIGN ? alignedElements : elements); fillUniform(dev, d, 11 + i); return d; });
    const info = dev.alloc('int32', sizes.length);
    const request = vbatchedRequest('gemm', sizes, data, info);
    const alignedBatch = (d) => { let at = 0; return variable(sizes.map((n) => { const m = { data: d, rows: n, ld: ldOf(n), offset: at }; at += n * ldOf(n); return m; })); };
    const kernelRequest = process.env.ALIGN ? { ...request, a: alignedBatch(data[0]), b: alignedBatch(data[1]), c: alignedBatch(data[2]) } : request;
    const device = deviceFormCall(ctx, dev, 'gemm', sizes, data, info, dtype);
    // Host tables of the class, in the plan's order, uploaded once for the kernel-alone timings.
    const a = memberFields(kernelRequest.a), b = memberFields(kernelRequest.b), c = memberFields(kernelRequest.c);
    const scalars = { dtype, transA: 'N', transB: 'N', alpha: 1, beta: 1 };
    const plan = planVbatchedGemmSizes(scalars, Int32Array.from(sizes), base);
    const t = gemmMemberTables(plan, a, b, c, a.cols, eb);
    const tables = uploadMemberTables(dev, t.pointers, GEMM_VBATCH_POINTERS, t.ints, GEMM_VBATCH_INTS);
    const part = { dtype, n: sizes.length, tables: tables.at(0) };
    const picked = gemmClassParams(scalars, bound, base);
    const name = `${lo}-${bound}`;
    const deviceMs = (tuning) => timeMs(dev, () => gemmDeviceVariableCuda(dev, device.request, { tuning }), REPEATS);
    const forced = (shape) => ({ ...base, vbatchedSmall: { [dtype]: { [bound]: shape } } });
    const team = bound <= 32 ? { design: 'team', ...TEAM[bound] } : undefined;
    const teamMs = team === undefined ? NaN : deviceMs(forced(team));
    const planMs = deviceMs(base);
    const vendor = vendorGemm(dev, request, false);
    const vms = vendor === undefined ? NaN : timeMs(dev, () => vendor.run(), REPEATS);
    const u = [0, 1, 2].map(() => dev.alloc(dtype, bound * bound * sizes.length));
    const batch = (d) => strided(d, { rows: bound, cols: bound, count: sizes.length });
    const ums = timeMs(dev, () => ctx.gemm({ transA: 'N', transB: 'N', alpha: 1, beta: 1, a: batch(u[0]), b: batch(u[1]), c: batch(u[2]) }), REPEATS);
    rows.classes.push(`| ${dtype} | ${name} | ${sizes.length} | ${fmt(bytes, 0)} | ${fmt(teamMs)} | ${fmt(bytes / teamMs, 0)} | ${fmt(planMs)} | ${fmt(bytes / planMs, 0)} | ${fmt(vms)} | ${fmt(bytes / vms, 0)} | ${fmt(ums)} |`);
    dev.synchronize();
    vendor?.dispose(); for (const x of u) x.dispose();
    if (bound <= 32) {
      // Kernel alone: the team design, then the staged shapes.
      tryRow(rows.kernels, `${dtype} | ${name} | team ${team.team} x ${team.tbc}`, () => kernelMs(part, gemmClassParams(scalars, bound, forced(team))), bytes);
      const shapes = [[picked.members, picked.tm, picked.tn], ...STAGED[bound].filter(([m, x, y]) => !(m === picked.members && x === picked.tm && y === picked.tn))];
      for (const [members, tm, tn] of shapes) {
        const p = { ...picked, members, tm, tn };
        if (vstagedProblem(p) !== undefined) continue;   // float64's larger blocks pass 48 KiB
        const threads = members * (bound / tm) * (bound / tn);
        const kib = vstagedSharedBytes(p) / 1024;
        const mark = members === picked.members && tm === picked.tm && tn === picked.tn ? ' (plan)' : '';
        tryRow(rows.kernels, `${dtype} | ${name} | staged ${members} a block, ${tm} x ${tn}, ${threads} threads, ${fmt(kib, 1)} KiB${mark}`, () => kernelMs(part, p), bytes);
      }
    } else {
      const describe = (p) => (p.variant === 'vmma' ? `vmma ${p.bm}x${p.bn}x${p.bk} w${p.wm}x${p.wn} s${p.stages}${p.minBlocks ? ` b${p.minBlocks}` : ''}${p.prefetchC === false ? ' npc' : ''}` : `vtiled ${p.bm}x${p.bn}x${p.bk} t${p.tm}x${p.tn}`);
      tryRow(rows.large, `${dtype} | ${name} | ${describe(picked)} (plan)`, () => kernelMs(part, picked), bytes);
      const common = { variant: 'vtiled', dtype, transA: 'N', transB: 'N', betaZero: false, bound };
      const tried = [];
      if (dtype === 'float64') for (const [bm, bn, bk, wm, wn, stages, minBlocks, prefetchC] of MMA[bound]) tried.push({ ...common, variant: 'vmma', bm, bn, bk, wm, wn, stages, ...(minBlocks ? { minBlocks } : {}), ...(prefetchC === 0 ? { prefetchC: false } : {}) });
      // float32's tiled kernel loads 16-byte vectors: tm, tn and bk multiples of 4.
      if (!(dtype === 'float64' && (process.env.MMA48 || process.env.MMA64))) for (const [bm, bn, bk, tm, tn] of TILED[bound]) if (dtype === 'float64' || (tm % 4 === 0 && tn % 4 === 0)) tried.push({ ...common, bm, bn, bk, tm, tn });
      for (const p of tried) if (describe(p) !== describe(picked)) tryRow(rows.large, `${dtype} | ${name} | ${describe(p)}`, () => kernelMs(part, p), bytes);
    }
    dev.synchronize();
    tables.dispose();
    for (const x of [...data, info, ...device.arrays]) x.dispose();
  }
}

console.log(`## Variable-size gemm by class, ${dev.info.arch}, ${dev.info.smCount} SMs: workload a (200,000 square, 1-64), C += A B\n`);
console.log('Device form (classification + class kernels), each class alone: up to 32 the team design forced and the plan (staged), above 32 the plan; GB/s of A, B read and C read and written.\n');
console.log('| dtype | class | members | bytes MB | team ms | team GB/s | plan ms | plan GB/s | vendor loop ms | vendor GB/s | uniform ms (n = bound) |');
console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const r of rows.classes) console.log(r);
console.log('\nClasses up to 32, the class kernel alone (host tables uploaded once, one launch):\n');
console.log('| dtype | class | design | kernel ms | GB/s |');
console.log('| --- | --- | --- | ---: | ---: |');
for (const r of rows.kernels) console.log(r);
console.log('\nClasses 33-48 and 49-64, the class kernel alone (vmma: bm x bn x bk, warps wm x wn, stages; vtiled: bm x bn x bk, thread tile):\n');
console.log('| dtype | class | configuration | kernel ms | GB/s |');
console.log('| --- | --- | --- | ---: | ---: |');
for (const r of rows.large) console.log(r);
ctx.dispose();
