/**
 * syrk's and trtri's device-sized table kernels (syrk/ and trtri/generate-vdevice.ts) compiled as C++
 * for the host (test/helpers/vdevice-syrk-trtri-host-harness.cpp, needs g++), on members of orders
 * 0-600 in random order, ragged ld, and members with invalid device sizes.
 * Opt-in, as the other host emulations: MYRIAD_HOST_EMULATION=1 runs every uplo with every trans
 * (syrk) and diag (trtri); each g++ compile takes seconds of the fast suite, whose budget does not hold
 * them (test/cuda/vdevice-syrk-trtri.test.ts checks the kernels' plans and compiles them where nvcc
 * is; test/gpu/vdevice-syrk-trtri.test.ts runs them).
 * - syrk (op(A) N with the lower triangle, T with the upper; k 0-70 and 300; alpha 2 with beta 1,
 *   alpha 0 with beta 0.5): every member's code (dsyrk's argument numbers); every region holds
 *   exactly the members with work of its class (as rows, in any order) and zeros past them; the rows
 *   of the classes up to 512 are the rows syrkVbatchedCuda uploads for the same members; and the GEMM
 *   rows the off-diagonal rows kernel cuts from the regions' rows, over every off-diagonal step of
 *   every class (the host plan's steps), are, as a set, the rows the host launcher uploads for its one
 *   variable-size GEMM of the off-diagonal blocks, each in the region of its GEMM size class.
 * - trtri (float64; lower non-unit, upper unit; members planted singular, some in classes within one leaf,
 *   some above): every member's code (dtrtri's numbers), the scan's info for members above one leaf
 *   (the first zero diagonal element, 0 where unit) and nothing written for the others (their leaf
 *   writes it); every region holds exactly its class's members (a singular member above one leaf in
 *   none) and zeros past them; and for every step of every class above one leaf (both triangles),
 *   the left and right solves' rows are the blocks of memberOffDiagonal (the host path's rule) of
 *   every row of the region, each in the region of its triangle's class.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { variable, type VariableBatch } from '../../src/core/batch.js';
import type { Diag, Uplo } from '../../src/core/enums.js';
import type { Op } from '../../src/core/ops.js';
import { VBATCH_CLASSES, VBATCH_MAX, sizeClass } from '../../src/cuda/kernels/common/vbatch.js';
import { LARGE_REGION, deviceRegions } from '../../src/cuda/kernels/common/vdevice.js';
import { generateSyrkClassify, generateSyrkOffdiagRows, syrkVbatchedCuda, type VbatchedSyrkPlan } from '../../src/cuda/kernels/syrk/index.js';
import { generateTrtriClassify, generateTrtriSolveRows, memberOffDiagonal, trtriDeviceClasses } from '../../src/cuda/kernels/trtri/index.js';
import { tuningFor } from '../../src/cuda/model/tuning/index.js';
import type { DeviceArray, KernelSource } from '../../src/cuda/runtime/types.js';
import { H100 } from '../helpers/devices.js';
import { Rng } from '../helpers/random.js';
import { BYTES, fakeArray, operandText, Recording, type Operand, type Stored } from '../helpers/vdevice-host-tables.js';

const FULL = process.env['MYRIAD_HOST_EMULATION'] === '1';
const GXX_SKIP = !FULL ? 'host emulation is opt-in (MYRIAD_HOST_EMULATION=1)' : spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH';
const HARNESS = resolve('test/helpers/vdevice-syrk-trtri-host-harness.cpp');

type Mode = 'SYRK_CLASSIFY' | 'SYRK_ROWS' | 'TRTRI_CLASSIFY' | 'TRTRI_ROWS';

function build(dir: string, src: KernelSource, mode: Mode): string {
  writeFileSync(join(dir, 'kernel.cu'), src.source);
  const exe = join(dir, `h-${src.entry}`);
  execFileSync('g++', ['-std=c++20', '-O1', `-DENTRY=${src.entry}`, `-D${mode}`, `-I${dir}`, HARNESS, '-o', exe]);
  return exe;
}

interface Tables { counters: number[]; rows: string[][] }

/** Runs a harness; `tables` sets of counters and rows (`fields` a row) of `regions` x `count`, then the rest of its lines as numbers. */
function run(exe: string, input: string, regions: number, count: number, fields: number, tables = 1): { tables: Tables[]; rest: number[] } {
  const r = spawnSync(exe, { input, maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, `${exe}: status ${r.status} ${r.stderr.toString()}`);
  const lines = r.stdout.toString().trim().split('\n');
  const out: Tables[] = [];
  let at = 0;
  for (let t = 0; t < tables; t++) {
    const counters = lines.slice(at, at + regions).map(Number);
    const rowLines = lines.slice(at + regions, at + regions + regions * count).map((l) => l.trim());
    for (const line of rowLines) assert.equal(line.split(' ').length, fields);
    out.push({ counters, rows: Array.from({ length: regions }, (_, g) => rowLines.slice(g * count, (g + 1) * count)) });
    at += regions + regions * count;
  }
  return { tables: out, rest: lines.slice(at).map(Number) };
}

const regionOf = (size: number): number => (size > VBATCH_MAX ? LARGE_REGION : VBATCH_CLASSES.indexOf(sizeClass(size)!));
const sorted = (rows: readonly string[]): string[] => [...rows].sort();
const zeroRow = (fields: number): string => Array(fields).fill('0').join(' ');
/** The rows of a host table (`p` pointers and `i` ints a row) as the harness prints them. */
function tableRows(pointers: BigInt64Array, ints: Int32Array, p: number, i: number): string[] {
  return Array.from({ length: ints.length / i }, (_, q) => `${[...pointers.subarray(p * q, p * q + p)].join(' ')} ${[...ints.subarray(i * q, i * q + i)].join(' ')}`);
}

/** Checks one table set against the expected rows per region: the members (any order), then zero rows. */
function checkRegions(got: Tables, want: ReadonlyMap<number, readonly string[]>, regions: number, zero: string, what: string): void {
  for (let g = 0; g < regions; g++) {
    const rows = want.get(g) ?? [];
    assert.equal(got.counters[g], rows.length, `${what}: region ${g} members`);
    assert.deepEqual(sorted(got.rows[g]!.slice(0, rows.length)), sorted(rows), `${what}: region ${g} rows`);
    for (const r of got.rows[g]!.slice(rows.length)) assert.equal(r, zero, `${what}: region ${g}: a row past its members is not zero`);
  }
}

const push = (m: Map<number, string[]>, g: number, row: string): void => { m.set(g, [...(m.get(g) ?? []), row]); };

/** Members of orders 0-600 (most up to 128). */
function orderOf(rng: Rng): number {
  const pick = rng.next();
  if (pick < 0.08) return 0;
  if (pick < 0.5) return rng.int(1, 32);
  if (pick < 0.8) return rng.int(33, 128);
  if (pick < 0.95) return rng.int(129, 512);
  return rng.int(513, 600);
}

const SYRK_VARIANTS: readonly (readonly [Uplo, Op])[] = FULL ? [['lower', 'N'], ['upper', 'T'], ['upper', 'N'], ['lower', 'T']] : [['upper', 'T']];
const TRTRI_VARIANTS: readonly (readonly [Uplo, Diag])[] = FULL ? [['lower', 'nonunit'], ['upper', 'unit'], ['upper', 'nonunit'], ['lower', 'unit']] : [['lower', 'nonunit']];

for (const [uplo, trans] of SYRK_VARIANTS) {
  test(`syrk ${uplo} ${trans}: the device classification and off-diagonal rows on the host, against the host launcher's tables`, { skip: GXX_SKIP }, () => {
    const plain = trans === 'N';
    const rng = new Rng(plain ? 31 : 32);
    const count = 300;
    const next = { a: 0, c: 0 };
    const stored = (key: 'a' | 'c', rows: number, cols: number): Stored => {
      const ld = Math.max(1, rows + rng.int(0, 3));
      const m = { rows, cols, ld, offset: next[key] };
      next[key] += ld * Math.max(cols, 1) + rng.int(0, 5);
      return m;
    };
    const a: Operand = { maxRows: plain ? 600 : 300, maxCols: plain ? 300 : 600, members: [], base: 1n << 40n };
    const c: Operand = { maxRows: 600, maxCols: 600, members: [], base: 2n << 40n };
    for (let i = 0; i < count; i++) {
      const n = orderOf(rng);
      const k = i % 13 === 0 ? 300 : i % 11 === 0 ? 0 : rng.int(1, 70);
      a.members.push(plain ? stored('a', n, k) : stored('a', k, n));
      c.members.push(stored('c', n, n));
    }
    // Invalid members (the kernel reports the first argument at fault).
    c.members[3]!.rows = c.maxRows + 1;
    if (plain) a.members[7]!.rows += 1; else a.members[7]!.cols += 1;
    if (plain) a.members[9]!.cols = a.maxCols + 1; else a.members[9]!.rows = a.maxRows + 1;
    a.members[21]!.ld = 0;
    c.members[22]!.ld = 0;
    const within = (x: number, max: number): boolean => x >= 0 && x <= max;
    const nOf = (i: number): number => c.members[i]!.rows;
    const kOf = (i: number): number => (plain ? a.members[i]!.cols : a.members[i]!.rows);
    const codeOf = (i: number): number => {
      const A = a.members[i]!, C = c.members[i]!;
      const an = plain ? A.rows : A.cols;
      if (!(within(C.rows, c.maxRows) && within(C.cols, c.maxCols) && C.cols === C.rows && within(an, plain ? a.maxRows : a.maxCols) && an === C.rows)) return -3;
      if (!within(kOf(i), plain ? a.maxCols : a.maxRows)) return -4;
      if (A.ld < Math.max(1, A.rows)) return -7;
      if (C.ld < Math.max(1, C.rows)) return -10;
      return 0;
    };
    const codes = Array.from({ length: count }, (_, i) => codeOf(i));
    assert.deepEqual([3, 7, 9, 21, 22].map((i) => codes[i]), [-3, -3, -4, -7, -10], 'the spoiled members are invalid');
    const addr = (o: Operand, i: number): bigint => o.base + BigInt(o.members[i]!.offset * BYTES);

    const { regions } = deviceRegions(600);
    const dir = mkdtempSync(join(tmpdir(), 'myriad-vdevice-syrk-'));
    try {
      const classify = build(dir, generateSyrkClassify({ trans }), 'SYRK_CLASSIFY');
      const input = (alpha: number, beta: number): string => `${count} ${regions} ${alpha === 0 ? 1 : 0} ${beta === 1 ? 1 : 0}\n${operandText(a)}${operandText(c)}`;
      for (const [alpha, beta] of [[2, 1], [0, 0.5]] as const) {
        const got = run(classify, input(alpha, beta), regions, count, 6);
        assert.deepEqual(got.rest, codes, 'codes');
        const want = new Map<number, string[]>();
        for (let i = 0; i < count; i++) {
          const k = alpha === 0 ? 0 : kOf(i);
          if (codes[i] !== 0 || nOf(i) === 0 || (k === 0 && beta === 1)) continue;
          push(want, regionOf(nOf(i)), `${addr(a, i)} ${addr(c, i)} ${nOf(i)} ${k} ${a.members[i]!.ld} ${c.members[i]!.ld}`);
        }
        checkRegions(got.tables[0]!, want, regions, zeroRow(6), `alpha ${alpha} beta ${beta}`);
      }
      const got = run(classify, input(2, 1), regions, count, 6).tables[0]!;

      // The host launcher over the valid members up to 512: its tables.
      const valid = Array.from({ length: count }, (_, i) => i).filter((i) => codes[i] === 0 && nOf(i) <= VBATCH_MAX);
      const batch = (o: Operand): VariableBatch<DeviceArray> => {
        const data = fakeArray(o.base);
        return variable(valid.map((i) => ({ data, rows: o.members[i]!.rows, cols: o.members[i]!.cols, ld: o.members[i]!.ld, offset: o.members[i]!.offset })), {}, 'host');
      };
      const dev = new Recording(H100);
      let plan: VbatchedSyrkPlan | undefined;
      syrkVbatchedCuda(dev, { uplo, trans, alpha: 2, beta: 1, a: batch(a), c: batch(c) }, { onPlan: (p) => { plan = p; } });
      assert.ok(plan !== undefined && plan.large.length === 0 && plan.launches.length >= 8, 'the host plan covers most classes');
      const uploads = [...dev.uploads];
      const takeTables = (p: number, ints: number): string[] => {
        const pt = uploads.shift(), it = uploads.shift();
        assert.ok(pt instanceof BigInt64Array && it instanceof Int32Array, 'an upload of two tables');
        return tableRows(pt, it, p, ints);
      };
      const hostSyrk = takeTables(2, 4);
      let first = 0;
      for (const l of plan.launches) {
        const g = VBATCH_CLASSES.indexOf(l.bound);
        assert.deepEqual(sorted(got.rows[g]!.slice(0, got.counters[g])), sorted(hostSyrk.slice(first, first + l.members.length)), `class ${l.bound}: the host launcher's syrk rows`);
        first += l.members.length;
      }
      // Every off-diagonal step of every class: the device's GEMM rows, together, are the host launcher's one GEMM's.
      const rowsKernel = build(dir, generateSyrkOffdiagRows({ trans }), 'SYRK_ROWS');
      const gemmRegions = deviceRegions(600).regions;
      const device: string[] = [];
      let steps = 0;
      for (const l of plan.launches) {
        const regionRows = got.rows[VBATCH_CLASSES.indexOf(l.bound)]!.join('\n');
        for (const step of l.steps) {
          if (step.kind !== 'offdiag') continue;
          steps++;
          const text = `${count} ${gemmRegions} ${step.rows.off} ${step.rows.size} ${step.cols.off} ${step.cols.size} 1 ${BYTES}\n${regionRows}\n`;
          const out = run(rowsKernel, text, gemmRegions, count, 9).tables[0]!;
          out.rows.forEach((rows, r) => {
            const members = rows.slice(0, out.counters[r]);
            for (const row of members) {
              const [m, n, k] = row.split(' ').slice(3, 6).map(Number);
              if (regionOf(Math.max(m!, n!, k!)) !== r) assert.equal(regionOf(Math.max(m!, n!, k!)), r, `class ${l.bound} step ${JSON.stringify(step)}: row ${row} in GEMM region ${r}`);
            }
            device.push(...members);
            for (const z of rows.slice(out.counters[r])) assert.equal(z, zeroRow(9));
          });
        }
      }
      const host: string[] = [];
      while (uploads.length > 0) host.push(...takeTables(3, 6));
      assert.ok(steps >= 10 && device.length >= 50, `${steps} steps, ${device.length} GEMM rows compared`);
      assert.deepEqual(sorted(device), sorted(host), 'the host launcher\'s GEMM rows of the off-diagonal blocks');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

for (const [uplo, diag] of TRTRI_VARIANTS) {
  test(`trtri ${uplo} ${diag}: the device classification (the scan included) and the solves' rows on the host`, { skip: GXX_SKIP }, () => {
    const rng = new Rng(uplo === 'lower' ? 41 : 42);
    const count = 300;
    let at = 0;
    const members: Stored[] = [];
    for (let i = 0; i < count; i++) {
      const n = orderOf(rng);
      const ld = Math.max(1, n + rng.int(0, 3));
      members.push({ rows: n, cols: n, ld, offset: at });
      at += ld * Math.max(n, 1) + rng.int(0, 5);
    }
    // The buffer is ones but for an exact zero on the diagonal of the singular members (some within one leaf, some above).
    const length = at + 1;
    const zeros: number[] = [];
    members.forEach((m, i) => { if (m.rows > 1 && i % 9 === 4) zeros.push(m.offset + ((i * 7) % m.rows) * (1 + m.ld)); });
    const zero = new Set(zeros);
    const maxN = 600;
    members[3]!.rows = maxN + 1; members[3]!.cols = maxN + 1;
    members[7]!.cols = members[7]!.rows + 1;
    members[21]!.ld = 0;
    const codeOf = (i: number): number => {
      const m = members[i]!;
      if (!(m.rows >= 0 && m.rows <= maxN && m.cols === m.rows)) return -3;
      return m.ld < Math.max(1, m.rows) ? -5 : 0;
    };
    const codes = Array.from({ length: count }, (_, i) => codeOf(i));
    assert.deepEqual([3, 7, 21].map((i) => codes[i]), [-3, -3, -5]);
    const leafMax = tuningFor(H100.arch, 'trtri').leafMax.float64;
    const design = trtriDeviceClasses({ dtype: 'float64', uplo, diag }, maxN, leafMax);
    const { regions, scanAbove } = design;
    const unit = diag === 'unit';
    // The first zero on the diagonal (1-based), as dtrtri's scan.
    const bad = (i: number): number => {
      if (unit) return 0;
      const m = members[i]!;
      for (let j = 0; j < m.rows; j++) if (zero.has(m.offset + j * (1 + m.ld))) return j + 1;
      return 0;
    };
    const dir = mkdtempSync(join(tmpdir(), 'myriad-vdevice-trtri-'));
    try {
      const classify = build(dir, generateTrtriClassify({ dtype: 'float64' }), 'TRTRI_CLASSIFY');
      const input = `${count} ${regions} ${scanAbove} ${unit ? 1 : 0} ${maxN} ${maxN} 1 ${length}\n`
        + `${members.map((m) => `${m.rows} ${m.cols} ${m.ld} ${m.offset}`).join('\n')}\n${zeros.length} ${zeros.join(' ')}\n`;
      const out = run(classify, input, regions, count, 4);
      const got = out.tables[0]!;
      const work = out.rest;
      assert.equal(work[0], 7777, 'work[0] (the sink) is not the classification\'s');
      const want = new Map<number, string[]>();
      let scannedSingular = 0;
      for (let i = 0; i < count; i++) {
        const n = members[i]!.rows;
        if (codes[i] !== 0) { assert.equal(work[i + 1], codes[i], `member ${i}: code`); continue; }
        if (n > scanAbove) {
          const b = bad(i);
          assert.equal(work[i + 1], b, `member ${i} (n = ${n}): the scan's info`);
          if (b !== 0) { scannedSingular++; continue; }
        } else {
          assert.equal(work[i + 1], 7777, `member ${i} (n = ${n}): its leaf writes info, not the classification`);
        }
        push(want, regionOf(n), `${members[i]!.offset} ${n} ${members[i]!.ld} ${i + 1}`);
      }
      if (!unit) assert.ok(scannedSingular >= 5, `${scannedSingular} singular members above one leaf`);
      checkRegions(got, want, regions, '-1 0 0 0', 'trtri classes');

      // Every step of every class above one leaf: the two solves' rows.
      const rowsKernel = build(dir, generateTrtriSolveRows({ uplo }), 'TRTRI_ROWS');
      const base = 1n << 40n;
      const address = (offset: number): bigint => base + BigInt(offset * BYTES);
      let steps = 0;
      for (const cls of design.classes) {
        const regionRows = got.rows[cls.region]!.map((row) => {
          const [off, n, ld, idx] = row.split(' ').map(Number);
          return `${off! < 0 ? 0n : address(off!)} ${n} ${ld} ${idx}`;
        });
        for (const step of cls.depths.flat()) {
          const text = `${count} ${regions} ${step.lo.off} ${step.lo.size} ${step.hi.off} ${step.hi.size} ${BYTES}\n${regionRows.join('\n')}\n`;
          const res = run(rowsKernel, text, regions, count, 6, 2);
          const left = new Map<number, string[]>(), right = new Map<number, string[]>();
          for (const row of got.rows[cls.region]!.slice(0, got.counters[cls.region])) {
            const [off, n, ld] = row.split(' ').map(Number);
            const blk = memberOffDiagonal(uplo, n!, step);
            if (blk === undefined) continue;
            const b = address(off! + blk.b.r0 + blk.b.c0 * ld!);
            const tri = (s: { off: number }): bigint => address(off! + s.off * (1 + ld!));
            push(left, regionOf(blk.left.size), `${tri(blk.left)} ${b} ${blk.left.size} ${blk.b.cols} ${ld} ${ld}`);
            push(right, regionOf(blk.right.size), `${tri(blk.right)} ${b} ${blk.right.size} ${blk.b.rows} ${ld} ${ld}`);
          }
          checkRegions(res.tables[0]!, left, regions, zeroRow(6), `class ${cls.bound} step ${JSON.stringify(step)}: left`);
          checkRegions(res.tables[1]!, right, regions, zeroRow(6), `class ${cls.bound} step ${JSON.stringify(step)}: right`);
          if (left.size > 0) steps++;
        }
      }
      assert.ok(steps >= 15, `${steps} steps with rows compared`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
