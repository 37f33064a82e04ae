/**
 * trsm's device-sized table kernels (trsm/generate-vdevice.ts) compiled as C++ for the host
 * (test/helpers/vdevice-trsm-host-harness.cpp, needs g++), against the host-sized launcher's own
 * tables: members of orders 0-600 in random order, B's other dimension 0-70 and 300, ragged ld, and
 * members with invalid device sizes. Checked: every member's code (dtrsm's argument numbers); every
 * region holds exactly its class's members (as rows, in any order) and zeros past them, the skipped
 * members in none; the rows of the classes up to 512 are the rows trsmVbatchedCuda uploads for the
 * same members; and for every update step of every class (the host plan's steps), the GEMM rows the
 * update kernel cuts from the region's rows are, as a set, the rows the host launcher uploads for
 * that step's variable-size GEMM (the same members, blocks and addresses), each in the region of its
 * GEMM size class. So the device form's leaves and GEMMs see the host form's work. One variant by
 * default (side right, upper, op T: a classification and an update kernel; each g++ compile takes
 * seconds of the fast suite); all eight side, uplo and op under MYRIAD_HOST_EMULATION=1. Where nvcc is on PATH, the table kernels of trsm,
 * potrs and posv on device sizes (and the alpha = 0 kernel) compile for sm_90 with no spills.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { variable, type VariableBatch } from '../../src/core/batch.js';
import type { Side, Uplo } from '../../src/core/enums.js';
import type { Op } from '../../src/core/ops.js';
import { VBATCH_CLASSES, VBATCH_MAX, sizeClass } from '../../src/cuda/kernels/common/vbatch.js';
import { LARGE_REGION, deviceRegions } from '../../src/cuda/kernels/common/vdevice.js';
import { generateTrsmClassify, generateTrsmUpdateRows, generateTrsmZeroDevice, trsmVbatchedCuda, type VbatchedTrsmPlan } from '../../src/cuda/kernels/trsm/index.js';
import { generateSolveCheck } from '../../src/cuda/kernels/solve/index.js';
import { compileFailures, compileForSm90, NVCC_SKIP } from '../helpers/nvcc.js';
import type { DeviceArray, KernelSource } from '../../src/cuda/runtime/types.js';
import { H100 } from '../helpers/devices.js';
import { Rng } from '../helpers/random.js';
import { BYTES, fakeArray, operandText, Recording, type Operand, type Stored } from '../helpers/vdevice-host-tables.js';

const GXX_SKIP = spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH';
const FULL = process.env['MYRIAD_HOST_EMULATION'] === '1';
const HARNESS = resolve('test/helpers/vdevice-trsm-host-harness.cpp');

function build(dir: string, src: KernelSource, mode: 'CLASSIFY' | 'ROWS'): string {
  writeFileSync(join(dir, 'kernel.cu'), src.source);
  const exe = join(dir, `h-${src.entry}`);
  execFileSync('g++', ['-std=c++20', '-O1', `-DENTRY=${src.entry}`, `-D${mode}`, `-I${dir}`, HARNESS, '-o', exe]);
  return exe;
}

/** Runs a harness: the counters, the rows per region (as strings), and what follows (codes). */
function run(exe: string, input: string, regions: number, count: number, fields: number): { counters: number[]; rows: string[][]; rest: number[] } {
  const r = spawnSync(exe, { input, maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, `${exe}: status ${r.status} ${r.stderr.toString()}`);
  const lines = r.stdout.toString().trim().split('\n');
  const counters = lines.slice(0, regions).map(Number);
  const rowLines = lines.slice(regions, regions + regions * count).map((l) => l.trim());
  for (const line of rowLines) assert.equal(line.split(' ').length, fields);
  const rows = Array.from({ length: regions }, (_, g) => rowLines.slice(g * count, (g + 1) * count));
  return { counters, rows, rest: lines.slice(regions + regions * count).map(Number) };
}

const regionOf = (size: number): number => (size > VBATCH_MAX ? LARGE_REGION : VBATCH_CLASSES.indexOf(sizeClass(size)!));
const sorted = (rows: readonly string[]): string[] => [...rows].sort();
const zeroRow = (fields: number): string => Array(fields).fill('0').join(' ');
/** The rows of a host table (`p` pointers and `i` ints a row) as the harness prints them. */
function tableRows(pointers: BigInt64Array, ints: Int32Array, p: number, i: number): string[] {
  return Array.from({ length: ints.length / i }, (_, q) => `${[...pointers.subarray(p * q, p * q + p)].join(' ')} ${[...ints.subarray(i * q, i * q + i)].join(' ')}`);
}

const VARIANTS: readonly { side: Side; uplo: Uplo; transA: Op }[] = FULL
  ? (['left', 'right'] as const).flatMap((side) => (['lower', 'upper'] as const).flatMap((uplo) => (['N', 'T'] as const).map((transA) => ({ side, uplo, transA }))))
  : [{ side: 'right', uplo: 'upper', transA: 'T' }];

for (const v of VARIANTS) {
  test(`trsm ${v.side} ${v.uplo} ${v.transA}: the device classification and update rows on the host, against the host launcher's tables`, { skip: GXX_SKIP }, () => {
    const left = v.side === 'left';
    const rng = new Rng(left ? 21 : 22);
    const count = 300;
    const next = { a: 0, b: 0 };
    const stored = (key: 'a' | 'b', rows: number, cols: number): Stored => {
      const ld = Math.max(1, rows + rng.int(0, 3));
      const m = { rows, cols, ld, offset: next[key] };
      next[key] += ld * Math.max(cols, 1) + rng.int(0, 5);
      return m;
    };
    const order = (): number => {
      const pick = rng.next();
      if (pick < 0.08) return 0;
      if (pick < 0.5) return rng.int(1, 32);
      if (pick < 0.8) return rng.int(33, 128);
      if (pick < 0.95) return rng.int(129, 512);
      return rng.int(513, 600);
    };
    const a: Operand = { maxRows: 600, maxCols: 600, members: [], base: 1n << 40n };
    const b: Operand = { maxRows: left ? 600 : 300, maxCols: left ? 300 : 600, members: [], base: 2n << 40n };
    for (let i = 0; i < count; i++) {
      const t = order();
      const nvec = i % 13 === 0 ? 300 : i % 11 === 0 ? 0 : rng.int(1, 70);
      a.members.push(stored('a', t, t));
      b.members.push(left ? stored('b', t, nvec) : stored('b', nvec, t));
    }
    // Invalid members (the kernel reports the first argument at fault).
    b.members[3]!.rows = b.maxRows + 1;
    a.members[7]!.rows += 1; a.members[7]!.ld += 1;
    b.members[9]!.cols = -1;
    a.members[21]!.ld = 0;
    b.members[22]!.ld = 0;
    const within = (x: number, max: number): boolean => x >= 0 && x <= max;
    const codeOf = (i: number): number => {
      const A = a.members[i]!, B = b.members[i]!;
      const t = left ? B.rows : B.cols;
      const triangle = within(A.rows, a.maxRows) && within(A.cols, a.maxCols) && A.rows === t && A.cols === t;
      if (!(within(B.rows, b.maxRows) && (!left || triangle))) return -5;
      if (!(within(B.cols, b.maxCols) && (left || triangle))) return -6;
      if (A.ld < Math.max(1, t)) return -9;
      if (B.ld < Math.max(1, B.rows)) return -11;
      return 0;
    };
    const codes = Array.from({ length: count }, (_, i) => codeOf(i));
    assert.ok(codes.filter((x) => x !== 0).length >= 5, 'the spoiled members are invalid');
    const tOf = (i: number): number => (left ? b.members[i]!.rows : b.members[i]!.cols);
    const nvecOf = (i: number): number => (left ? b.members[i]!.cols : b.members[i]!.rows);
    const addr = (o: Operand, i: number): bigint => o.base + BigInt(o.members[i]!.offset * BYTES);
    const trsmRow = (i: number): string => `${addr(a, i)} ${addr(b, i)} ${tOf(i)} ${nvecOf(i)} ${a.members[i]!.ld} ${b.members[i]!.ld}`;

    const { regions } = deviceRegions(600);
    const dir = mkdtempSync(join(tmpdir(), 'myriad-vdevice-trsm-'));
    try {
      const classify = build(dir, generateTrsmClassify({ side: v.side }), 'CLASSIFY');
      const skip = Array.from({ length: count }, (_, i) => (i % 5 === 2 ? 1 : 0));
      for (const skipping of [false, true]) {
        const input = `${count} ${regions} ${skipping ? 1 : 0}\n${operandText(a)}${operandText(b)}${skipping ? `${skip.join(' ')}\n` : ''}`;
        const got = run(classify, input, regions, count, 6);
        assert.deepEqual(got.rest, codes, 'codes');
        const want = new Map<number, string[]>();
        for (let i = 0; i < count; i++) {
          if (codes[i] !== 0 || (skipping && skip[i] !== 0) || tOf(i) === 0 || nvecOf(i) === 0) continue;
          const g = regionOf(tOf(i));
          want.set(g, [...(want.get(g) ?? []), trsmRow(i)]);
        }
        for (let g = 0; g < regions; g++) {
          const rows = want.get(g) ?? [];
          assert.equal(got.counters[g], rows.length, `region ${g}: members`);
          assert.deepEqual(sorted(got.rows[g]!.slice(0, rows.length)), sorted(rows), `region ${g}: rows`);
          for (const r of got.rows[g]!.slice(rows.length)) assert.equal(r, zeroRow(6), `region ${g}: a row past its members is not zero`);
        }
      }
      const got = run(classify, `${count} ${regions} 0\n${operandText(a)}${operandText(b)}`, regions, count, 6);

      // The host launcher over the valid members up to 512: its tables.
      const valid = Array.from({ length: count }, (_, i) => i).filter((i) => codes[i] === 0 && tOf(i) <= VBATCH_MAX);
      const batch = (o: Operand): VariableBatch<DeviceArray> => {
        const data = fakeArray(o.base);
        return variable(valid.map((i) => ({ data, rows: o.members[i]!.rows, cols: o.members[i]!.cols, ld: o.members[i]!.ld, offset: o.members[i]!.offset })), {}, 'host');
      };
      const dev = new Recording(H100);
      let plan: VbatchedTrsmPlan | undefined;
      trsmVbatchedCuda(dev, { ...v, diag: 'nonunit', alpha: 2, a: batch(a), b: batch(b) }, { onPlan: (p) => { plan = p; } });
      assert.ok(plan !== undefined && plan.large.length === 0 && plan.launches.length >= 8, 'the host plan covers most classes');
      const uploads = [...dev.uploads];
      const takeTables = (p: number, ints: number): string[] => {
        const pt = uploads.shift(), it = uploads.shift();
        assert.ok(pt instanceof BigInt64Array && it instanceof Int32Array, 'an upload of two tables');
        return tableRows(pt, it, p, ints);
      };
      // The trsm tables: class by class, the device regions' rows.
      const hostTrsm = takeTables(2, 4);
      let first = 0;
      for (const l of plan.launches) {
        const g = VBATCH_CLASSES.indexOf(l.bound);
        assert.deepEqual(sorted(got.rows[g]!.slice(0, got.counters[g])), sorted(hostTrsm.slice(first, first + l.members.length)), `class ${l.bound}: the host launcher's trsm rows`);
        first += l.members.length;
      }
      // Every update step of every class: the device's GEMM rows are the host launcher's GEMM tables.
      const rowsKernel = build(dir, generateTrsmUpdateRows({ side: v.side, transA: v.transA }), 'ROWS');
      const gemmRegions = deviceRegions(600).regions;
      let steps = 0;
      for (const l of plan.launches) {
        const g = VBATCH_CLASSES.indexOf(l.bound);
        const regionRows = got.rows[g]!.join('\n');
        for (const step of l.steps) {
          if (step.kind !== 'update') continue;
          const beta = step.scaled ? 2 : 1;
          const input = `${count} ${gemmRegions} ${step.target.off} ${step.target.size} ${step.source.off} ${step.source.size} ${beta === 1 ? 1 : 0} ${BYTES}\n${regionRows}\n`;
          const out = run(rowsKernel, input, gemmRegions, count, 9);
          const device: string[] = [];
          out.rows.forEach((rows, r) => {
            const members = rows.slice(0, out.counters[r]);
            for (const row of members) {
              const [m, n, k] = row.split(' ').slice(3, 6).map(Number);
              if (regionOf(Math.max(m!, n!, k!)) !== r) assert.equal(regionOf(Math.max(m!, n!, k!)), r, `class ${l.bound} update ${JSON.stringify(step)}: row ${row} in GEMM region ${r}`);
            }
            device.push(...members);
            for (const z of rows.slice(out.counters[r])) assert.equal(z, zeroRow(9));
          });
          if (device.length === 0) continue;
          steps++;
          assert.deepEqual(sorted(device), sorted(takeTables(3, 6)), `class ${l.bound} update ${JSON.stringify(step)}: the host launcher's GEMM rows`);
        }
      }
      assert.equal(uploads.length, 0, 'every table the host launcher uploaded was matched');
      assert.ok(steps >= 20, `${steps} update steps compared`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('the table kernels of trsm, potrs and posv on device sizes compile for sm_90 without spills', { skip: NVCC_SKIP }, async () => {
  const sources = [
    generateTrsmClassify({ side: 'left' }), generateTrsmClassify({ side: 'right' }), generateSolveCheck(),
    ...(['left', 'right'] as const).flatMap((side) => (['N', 'T'] as const).map((transA) => generateTrsmUpdateRows({ side, transA }))),
    generateTrsmZeroDevice({ dtype: 'float64' }), generateTrsmZeroDevice({ dtype: 'float32' }),
  ];
  const failures = compileFailures(await compileForSm90(sources), (r) => (r.spillStores > 0 || r.registers > 40 ? `${r.registers} registers, ${r.spillStores} bytes spilled` : undefined));
  assert.deepEqual(failures, []);
});
