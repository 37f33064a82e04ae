/**
 * The classification kernels of device-sized variable batches (gemm/, potrf/ and getrf/generate-vdevice.ts)
 * compiled as C++ for the host (test/helpers/vdevice-classify-host-harness.cpp, needs g++) and run
 * on members of sizes 0-600 in random order, ragged ld, and members with invalid device sizes
 * (beyond the maxima, negative, ld too small, gemm shapes that disagree). Checked: every member's
 * code; every region holds exactly its class's members (as rows, in any order) and zeros past them;
 * and the rows of the members up to 512 are, class by class, the rows the host-sized path uploads
 * (gemmMemberTables, potrfMemberTables, getrf's rows over a variable() batch of the valid members), so the class
 * kernels see the same work either way. Where nvcc is on PATH the kernels are compiled for sm_90 with
 * no spills. Two gemm transposition pairs, potrf and getrf by default (each a g++ compile); every pair under
 * MYRIAD_HOST_EMULATION=1.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { variable, type VariableBatch } from '../../src/core/batch.js';
import type { Op } from '../../src/core/ops.js';
import { memberFields } from '../../src/cuda/kernels/common/members.js';
import { VBATCH_CLASSES, VBATCH_MAX, sizeClass } from '../../src/cuda/kernels/common/vbatch.js';
import { LARGE_REGION, deviceRegions, inDeviceFrame, takeDeviceTables } from '../../src/cuda/kernels/common/vdevice.js';
import { Workspace } from '../../src/cuda/runtime/workspace.js';
import { FakeDevice } from '../helpers/fake-gpus.js';
import { generateGemmClassify, gemmMemberSize, planVbatchedGemm } from '../../src/cuda/kernels/gemm/index.js';
import { gemmMemberTables } from '../../src/cuda/kernels/gemm/launch-vbatched.js';
import { gemmDeviceMaxSize } from '../../src/cuda/kernels/gemm/launch-vdevice.js';
import { generatePotrfClassify, planVbatchedPotrf } from '../../src/cuda/kernels/potrf/index.js';
import { generateGetrfClassify } from '../../src/cuda/kernels/getrf/index.js';
import { getrfMemberSize, planVbatchedGetrf } from '../../src/cuda/kernels/getrf/plan-vbatched.js';
import { potrfMemberTables } from '../../src/cuda/kernels/potrf/launch-vbatched.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import type { DeviceArray, KernelSource } from '../../src/cuda/runtime/types.js';
import { compileFailures, compileForSm90, NVCC_SKIP } from '../helpers/nvcc.js';
import { Rng } from '../helpers/random.js';

const GXX_SKIP = spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH';
const FULL = process.env['MYRIAD_HOST_EMULATION'] === '1';
const HARNESS = resolve('test/helpers/vdevice-classify-host-harness.cpp');
const BYTES = 8;

/** A device array that holds nothing: only its address matters to the tables. */
function fakeArray(ptr: bigint): DeviceArray {
  return { kind: 'device', dtype: 'float64', length: 2 ** 45, device: 0, ptr, byteLength: 2 ** 48, disposed: false, dispose: () => {} };
}

interface Stored { rows: number; cols: number; ld: number; offset: number }
interface Operand { hasCols: boolean; maxRows: number; maxCols: number; members: Stored[]; base: bigint }

function operandText(o: Operand): string {
  const lines = o.members.map((m) => `${m.rows} ${m.cols} ${m.ld} ${o.base + BigInt(m.offset * BYTES)}`);
  return `${o.hasCols ? 1 : 0} ${o.maxRows} ${o.maxCols}\n${lines.join('\n')}\n`;
}

/** Runs the harness; its counters, rows (as strings, per region) and codes. */
function runClassify(dir: string, src: KernelSource, gemm: boolean, input: string, count: number, regions: number, pointers: number, ints: number):
  { counters: number[]; rows: string[][]; codes: number[] } {
  writeFileSync(join(dir, 'kernel.cu'), src.source);
  const exe = join(dir, `h-${src.entry}`);
  execFileSync('g++', ['-std=c++20', '-O1', `-DENTRY=${src.entry}`, ...(gemm ? ['-DGEMM'] : [`-DINTS=${ints}`]), `-I${dir}`, HARNESS, '-o', exe]);
  const r = spawnSync(exe, { input, maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, `${src.entry}: status ${r.status} ${r.stderr.toString()}`);
  const lines = r.stdout.toString().trim().split('\n');
  const counters = lines.slice(0, regions).map(Number);
  const rowLines = lines.slice(regions, regions + regions * count).map((l) => l.trim());
  const rows = Array.from({ length: regions }, (_, g) => rowLines.slice(g * count, (g + 1) * count));
  const codes = lines.slice(regions + regions * count).map(Number);
  for (const line of rowLines) assert.equal(line.split(' ').length, pointers + ints);
  return { counters, rows, codes };
}

const regionOf = (size: number): number => (size > VBATCH_MAX ? LARGE_REGION : VBATCH_CLASSES.indexOf(sizeClass(size)!));
const sorted = (rows: readonly string[]): string[] => [...rows].sort();
const ZERO_ROW = (p: number, i: number): string => Array(p + i).fill('0').join(' ');

/** Checks each region: its counter, its rows as a set, zeros past them. */
function checkRegions(got: ReturnType<typeof runClassify>, want: Map<number, string[]>, regions: number, p: number, i: number): void {
  for (let g = 0; g < regions; g++) {
    const rows = want.get(g) ?? [];
    assert.equal(got.counters[g], rows.length, `region ${g}: members`);
    assert.deepEqual(sorted(got.rows[g]!.slice(0, rows.length)), sorted(rows), `region ${g}: rows`);
    for (const r of got.rows[g]!.slice(rows.length)) assert.equal(r, ZERO_ROW(p, i), `region ${g}: a row past its members is not zero`);
  }
}

/** A size 0-600: mostly small, some in every class, some beyond 512. */
function size(rng: Rng): number {
  const pick = rng.next();
  if (pick < 0.08) return 0;
  if (pick < 0.5) return rng.int(1, 32);
  if (pick < 0.8) return rng.int(33, 128);
  if (pick < 0.93) return rng.int(129, 512);
  return rng.int(513, 600);
}

/** Transpositions and scalars: beta = 1 leaves k = 0 members out, alpha = 0 runs k = 0. */
const GEMM_CASES: readonly { transA: Op; transB: Op; alpha: number; beta: number }[] = [
  { transA: 'N', transB: 'T', alpha: 1, beta: 0.5 },
  { transA: 'T', transB: 'N', alpha: -1, beta: 1 },
  ...(FULL ? [{ transA: 'N', transB: 'N', alpha: 0, beta: 0.5 }, { transA: 'T', transB: 'T', alpha: 2, beta: 0 }] as const : []),
];

for (const { transA, transB, alpha, beta } of GEMM_CASES) {
  test(`gemm ${transA}${transB} (alpha ${alpha}, beta ${beta}): the classification kernel on the host: codes, regions, and the host path's rows`, { skip: GXX_SKIP }, () => {
    const rng = new Rng(transA === 'N' ? (transB === 'N' ? 11 : 12) : (transB === 'N' ? 13 : 14));
    const count = 400;
    const next = { a: 0, b: 0, c: 0 };
    const stored = (key: 'a' | 'b' | 'c', rows: number, cols: number): Stored => {
      const ld = Math.max(1, rows + rng.int(0, 3));
      const m = { rows, cols, ld, offset: next[key] };
      next[key] += ld * Math.max(cols, 1) + rng.int(0, 5);
      return m;
    };
    const shapes = Array.from({ length: count }, () => ({ m: size(rng), n: size(rng), k: size(rng) }));
    const a: Operand = { hasCols: true, maxRows: 600, maxCols: 600, members: [], base: 1n << 40n };
    const b: Operand = { hasCols: true, maxRows: 600, maxCols: 600, members: [], base: 2n << 40n };
    const c: Operand = { hasCols: true, maxRows: 600, maxCols: 600, members: [], base: 3n << 40n };
    for (const { m, n, k } of shapes) {
      a.members.push(transA === 'N' ? stored('a', m, k) : stored('a', k, m));
      b.members.push(transB === 'N' ? stored('b', k, n) : stored('b', n, k));
      c.members.push(stored('c', m, n));
    }
    // Invalid members, each with the code LAPACK's dgemm gives that argument.
    const want = new Array<number>(count).fill(0);
    const spoil = (i: number, code: number, f: () => void): void => { f(); want[i] = code; };
    spoil(3, -3, () => { c.members[3]!.rows = 601; });                            // m beyond c.maxRows
    spoil(7, -3, () => { c.members[7]!.rows += 1; c.members[7]!.ld += 1; });      // op(A) has other rows
    spoil(9, -4, () => { c.members[9]!.cols = -1; });
    spoil(15, -5, () => { if (transA === 'N') a.members[15]!.cols += 1; else a.members[15]!.rows += 1; a.members[15]!.ld += 1; });
    spoil(21, -8, () => { a.members[21]!.ld = 0; });
    spoil(22, -10, () => { b.members[22]!.ld = 0; });
    spoil(23, -13, () => { c.members[23]!.ld = 0; });
    // A spoiled member may have become invalid for an earlier argument: the kernel reports the first.
    const codeOf = (i: number): number => {
      const [am, ak] = transA === 'N' ? ['rows', 'cols'] as const : ['cols', 'rows'] as const;
      const [bk, bn] = transB === 'N' ? ['rows', 'cols'] as const : ['cols', 'rows'] as const;
      const A = a.members[i]!, B = b.members[i]!, C = c.members[i]!;
      const within = (v: number, max: number): boolean => v >= 0 && v <= max;
      const maxOf = (o: Operand, d: 'rows' | 'cols'): number => (d === 'rows' ? o.maxRows : o.maxCols);
      if (!(within(C.rows, c.maxRows) && within(A[am], maxOf(a, am)) && A[am] === C.rows)) return -3;
      if (!(within(C.cols, c.maxCols) && within(B[bn], maxOf(b, bn)) && B[bn] === C.cols)) return -4;
      if (!(within(A[ak], maxOf(a, ak)) && within(B[bk], maxOf(b, bk)) && B[bk] === A[ak])) return -5;
      if (A.ld < Math.max(1, A.rows)) return -8;
      if (B.ld < Math.max(1, B.rows)) return -10;
      if (C.ld < Math.max(1, C.rows)) return -13;
      return 0;
    };
    for (let i = 0; i < count; i++) want[i] = codeOf(i);
    assert.ok(want.filter((x) => x !== 0).length >= 5, 'the spoiled members are invalid');

    const { regions } = deviceRegions(gemmDeviceMaxSize({ transA, transB, alpha, a, b, c } as never));
    const input = `${count} ${regions} ${alpha === 0 ? 1 : 0} ${beta === 1 ? 1 : 0}\n${operandText(a)}${operandText(b)}${operandText(c)}`;
    const dir = mkdtempSync(join(tmpdir(), 'myriad-vdevice-'));
    try {
      const got = runClassify(dir, generateGemmClassify({ transA, transB }), true, input, count, regions, 3, 6);
      assert.deepEqual(got.codes, want, 'codes');
      // Expected rows: every valid member with work, in the region of max(m, n, k).
      const addr = (o: Operand, i: number): bigint => o.base + BigInt(o.members[i]!.offset * BYTES);
      const rowOf = (i: number): string => {
        const k = alpha === 0 ? 0 : transA === 'N' ? a.members[i]!.cols : a.members[i]!.rows;
        return `${addr(a, i)} ${addr(b, i)} ${addr(c, i)} ${c.members[i]!.rows} ${c.members[i]!.cols} ${k} ${a.members[i]!.ld} ${b.members[i]!.ld} ${c.members[i]!.ld}`;
      };
      const expected = new Map<number, string[]>();
      const valid: number[] = [];
      for (let i = 0; i < count; i++) {
        if (want[i] !== 0) continue;
        valid.push(i);
        const k = alpha === 0 ? 0 : transA === 'N' ? a.members[i]!.cols : a.members[i]!.rows;
        const s = gemmMemberSize(c.members[i]!.rows, c.members[i]!.cols, k, beta);
        if (s === undefined) continue;
        const g = regionOf(s);
        expected.set(g, [...(expected.get(g) ?? []), rowOf(i)]);
      }
      checkRegions(got, expected, regions, 3, 6);
      // The host path over the valid members: its tables' rows, class by class, are the regions'.
      const batch = (o: Operand): VariableBatch<DeviceArray> => {
        const data = fakeArray(o.base);
        return variable(valid.map((i) => ({ data, rows: o.members[i]!.rows, cols: o.members[i]!.cols, ld: o.members[i]!.ld, offset: o.members[i]!.offset })), {}, 'host');
      };
      const fa = memberFields(batch(a)), fb = memberFields(batch(b)), fc = memberFields(batch(c));
      const k = alpha === 0 ? new Int32Array(valid.length) : transA === 'N' ? fa.cols : fa.rows;
      const plan = planVbatchedGemm({ dtype: 'float64', transA, transB, alpha, beta, shapes: valid.map((_, j) => ({ m: fc.rows[j]!, n: fc.cols[j]!, k: k[j]! })) }, tuningFor('sm_90', 'gemm'));
      const tables = gemmMemberTables(plan, fa, fb, fc, k, BYTES);
      let first = 0;
      for (const l of plan.launches) {
        const hostRows = Array.from({ length: l.members.length }, (_, q) => {
          const p = [...tables.pointers.subarray(3 * (first + q), 3 * (first + q) + 3)].join(' ');
          return `${p} ${[...tables.ints.subarray(6 * (first + q), 6 * (first + q) + 6)].join(' ')}`;
        });
        first += l.members.length;
        const g = VBATCH_CLASSES.indexOf(l.bound);
        assert.deepEqual(sorted(got.rows[g]!.slice(0, got.counters[g])), sorted(hostRows), `class ${l.bound}: the host path's rows`);
      }
      assert.equal(plan.large.length, expected.get(LARGE_REGION)?.length ?? 0, 'the members beyond 512');
      assert.ok((expected.get(LARGE_REGION)?.length ?? 0) > 0 && plan.launches.length >= 6, 'the case reaches the large class and most classes');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('potrf: the classification kernel on the host: codes, regions, and the host path\'s rows', { skip: GXX_SKIP }, () => {
  const rng = new Rng(21);
  const count = 500;
  let at = 0;
  const a: Operand = { hasCols: false, maxRows: 600, maxCols: 600, members: [], base: 1n << 40n };
  for (let i = 0; i < count; i++) {
    const n = size(rng), ld = Math.max(1, n + rng.int(0, 3));
    a.members.push({ rows: n, cols: n, ld, offset: at });
    at += ld * Math.max(n, 1) + rng.int(0, 5);
  }
  const want = new Array<number>(count).fill(0);
  a.members[4]!.rows = 601; want[4] = -2;
  a.members[5]!.rows = -3; want[5] = -2;
  a.members[6]!.rows = 40; a.members[6]!.ld = 39; want[6] = -4;
  a.members[7]!.rows = 1; a.members[7]!.ld = 0; want[7] = -4;
  const { regions } = deviceRegions(600);
  const input = `${count} ${regions}\n${operandText(a)}`;
  const dir = mkdtempSync(join(tmpdir(), 'myriad-vdevice-'));
  try {
    const got = runClassify(dir, generatePotrfClassify(), false, input, count, regions, 1, 3);
    // Scratch: entry 0 (the sink) untouched by the kernel, member i's code at i + 1 where invalid.
    assert.equal(got.codes[0], 7777);
    want.forEach((code, i) => assert.equal(got.codes[i + 1], code === 0 ? 7777 : code, `member ${i}`));
    const addr = (i: number): bigint => a.base + BigInt(a.members[i]!.offset * BYTES);
    const expected = new Map<number, string[]>();
    const valid: number[] = [];
    for (let i = 0; i < count; i++) {
      if (want[i] !== 0) continue;
      valid.push(i);
      const g = regionOf(a.members[i]!.rows);
      expected.set(g, [...(expected.get(g) ?? []), `${addr(i)} ${a.members[i]!.rows} ${a.members[i]!.ld} ${i + 1}`]);
    }
    checkRegions(got, expected, regions, 1, 3);
    const data = fakeArray(a.base);
    const f = memberFields(variable(valid.map((i) => ({ data, rows: a.members[i]!.rows, ld: a.members[i]!.ld, offset: a.members[i]!.offset })), {}, 'host'));
    const plan = planVbatchedPotrf({ dtype: 'float64', uplo: 'lower', orders: f.rows, sharedLimit: 227 * 1024 }, tuningFor('sm_90', 'potrf'));
    const tables = potrfMemberTables(plan, f, BYTES);
    let first = 0;
    for (const l of plan.launches) {
      // The host rows' batch index is the member's place among the valid ones; the device's, its own index + 1.
      const hostRows = Array.from({ length: l.members.length }, (_, q) =>
        `${tables.pointers[first + q]} ${tables.ints[3 * (first + q)]} ${tables.ints[3 * (first + q) + 1]} ${valid[tables.ints[3 * (first + q) + 2]!]! + 1}`);
      first += l.members.length;
      const g = VBATCH_CLASSES.indexOf(l.bound);
      assert.deepEqual(sorted(got.rows[g]!.slice(0, got.counters[g])), sorted(hostRows), `class ${l.bound}: the host path's rows`);
    }
    assert.equal(plan.large.length, expected.get(LARGE_REGION)?.length ?? 0, 'the members beyond 512');
    assert.equal(plan.launches.length, VBATCH_CLASSES.length, 'every class is reached');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('getrf: the classification kernel on the host: codes, regions, and the host path\'s rows', { skip: GXX_SKIP }, () => {
  const rng = new Rng(31);
  const count = 500;
  let at = 0;
  const a: Operand = { hasCols: true, maxRows: 600, maxCols: 600, members: [], base: 1n << 40n };
  for (let i = 0; i < count; i++) {
    // Square, tall and wide members, and empty ones (min(m, n) = 0: class 8, info 0).
    const s = size(rng), kind = i % 3;
    const m = kind === 2 ? Math.ceil(s / 2) : s, n = kind === 1 ? Math.ceil(s / 2) : s;
    const ld = Math.max(1, m + rng.int(0, 3));
    a.members.push({ rows: m, cols: n, ld, offset: at });
    at += ld * Math.max(n, 1) + rng.int(0, 5);
  }
  const want = new Array<number>(count).fill(0);
  a.members[4]!.rows = 601; want[4] = -1;
  a.members[5]!.rows = -3; want[5] = -1;
  a.members[6]!.cols = 700; want[6] = -2;
  a.members[7]!.rows = 40; a.members[7]!.ld = 39; want[7] = -4;
  a.members[8]!.rows = 0; a.members[8]!.ld = 0; want[8] = -4;
  const { regions } = deviceRegions(600);
  const dir = mkdtempSync(join(tmpdir(), 'myriad-vdevice-'));
  try {
    const got = runClassify(dir, generateGetrfClassify(), false, `${count} ${regions}\n${operandText(a)}`, count, regions, 1, 4);
    assert.equal(got.codes[0], 7777);
    want.forEach((code, i) => assert.equal(got.codes[i + 1], code === 0 ? 7777 : code, `member ${i}`));
    const addr = (i: number): bigint => a.base + BigInt(a.members[i]!.offset * BYTES);
    const expected = new Map<number, string[]>();
    const valid: number[] = [];
    for (let i = 0; i < count; i++) {
      if (want[i] !== 0) continue;
      valid.push(i);
      const m = a.members[i]!;
      const g = regionOf(getrfMemberSize(m.rows, m.cols));
      expected.set(g, [...(expected.get(g) ?? []), `${addr(i)} ${m.rows} ${m.cols} ${m.ld} ${i + 1}`]);
    }
    checkRegions(got, expected, regions, 1, 4);
    // The host path's rows (getrfVbatchedCuda's: address, m, n, ld, batch index), class by class.
    const plan = planVbatchedGetrf({ dtype: 'float64', shapes: valid.map((i) => a.members[i]!), sharedLimit: 227 * 1024 }, tuningFor('sm_90', 'getrf'));
    for (const l of plan.launches) {
      const hostRows = Array.from(l.members, (j) => { const i = valid[j]!, m = a.members[i]!; return `${addr(i)} ${m.rows} ${m.cols} ${m.ld} ${i + 1}`; });
      const g = VBATCH_CLASSES.indexOf(l.bound);
      assert.deepEqual(sorted(got.rows[g]!.slice(0, got.counters[g])), sorted(hostRows), `class ${l.bound}: the host path's rows`);
    }
    assert.equal(plan.large.length, expected.get(LARGE_REGION)?.length ?? 0, 'the members beyond 512');
    assert.equal(plan.launches.length, VBATCH_CLASSES.length, 'every class is reached');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the classification kernels compile for sm_90 without spills', { skip: NVCC_SKIP }, async () => {
  const sources = [generateGemmClassify({ transA: 'N', transB: 'T' }), generateGemmClassify({ transA: 'T', transB: 'N' }), generatePotrfClassify(), generateGetrfClassify()];
  const failures = compileFailures(await compileForSm90(sources), (r) => (r.spillStores > 0 || r.registers > 40 ? `${r.registers} registers, ${r.spillStores} bytes spilled` : undefined));
  assert.deepEqual(failures, []);
});


test('reused tables: zero(r) clears regions below r and every counter, and leaves the regions above as they were; counted tables zero the counters only', () => {
  const dev = new FakeDevice(0, []);
  const regions = 4, count = 5, ps = 3, is = 2;
  const ws = Workspace.of(dev);
  // The workspace's bytes from an earlier call: 0x55 in every byte.
  inDeviceFrame(dev, (frame) => dev.fill(frame.take('int32', 4096, 'an earlier call'), 0x55));
  inDeviceFrame(dev, (frame) => {
    const t = takeDeviceTables(dev, frame, regions, count, ps, is, 'zeroed');
    const p = (t.pointers as unknown as { host: BigInt64Array }).host, i = (t.ints as unknown as { host: Int32Array }).host;
    assert.ok(p.every((x) => x === 0n) && i.every((x) => x === 0), 'taken zeroed');
    assert.equal(t.counter(2), t.counters + 8n);
    p.fill(7n);
    i.fill(9);
    t.zero(2);
    const rowsP = count * ps, rowsI = count * is;
    assert.ok(p.subarray(0, 2 * rowsP).every((x) => x === 0n), 'regions 0-1 pointers');
    assert.ok(p.subarray(2 * rowsP).every((x) => x === 7n), 'regions 2-3 pointers kept');
    assert.ok(i.subarray(0, 2 * rowsI).every((x) => x === 0), 'regions 0-1 ints');
    assert.ok(i.subarray(2 * rowsI, regions * rowsI).every((x) => x === 9), 'regions 2-3 ints kept');
    assert.deepEqual([...i.subarray(regions * rowsI)], [0, 0, 0, 0], 'every counter');
    t.zero(regions + 3);
    assert.ok(p.every((x) => x === 0n) && i.every((x) => x === 0), 'all of it, past the last region');
  });
  inDeviceFrame(dev, (frame) => {
    const t = takeDeviceTables(dev, frame, regions, count, ps, is, 'counted');
    const i = (t.ints as unknown as { host: Int32Array }).host;
    assert.deepEqual([...i.subarray(regions * count * is)], [0, 0, 0, 0], 'the counters zeroed');
    i.fill(3);
    t.zeroCounters();
    assert.ok(i.subarray(0, regions * count * is).every((x) => x === 3), 'the rows left as they were');
    assert.deepEqual([...i.subarray(regions * count * is)], [0, 0, 0, 0], 'the counters zeroed again');
  });
  assert.equal(ws.buffers, 1, 'one workspace buffer');
});
