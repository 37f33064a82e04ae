/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): complex potrf, getrf, getrs and gesv on a variable batch through
 * the router's complex candidate (kernels/common/shape-groups.ts: one launcher call per group of
 * members of one shape and ld, as a list batch), every launch in order on the host
 * (test/helpers/zchain.ts): the groups' uploaded batch places, the warp kernels of the small orders,
 * the recursion of a member of order 40 (leaves, complex trsm, herk and gemm), info_zero for the
 * empty members, and the integer move of each group's info to its members' places. Against the
 * complex reference on the same variable batch (a copy of the buffer): info exactly in every
 * member's place, a good member's factor within a backward-error tolerance, a failed member's
 * columns before its failure, and every pair outside the members' triangles unchanged. Orders 0, 1,
 * 3, 5, 8 and 40 in shuffled order, members of one order at two leading dimensions, a member failing
 * (a negative diagonal) and one with NaN. The LU family likewise (complex128, orders 0-8 on the register
 * designs, getrf with rectangular members): info and pivots exactly the reference's in every member's
 * place (the pivot slots past a member's min(m, n) as given), getrs's pivots gathered from the
 * batch's, gesv's B of a singular member kept. A check of the route's launches without a GPU.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';

import { newReferenceContext } from '../../src/api/context.js';
import { variable } from '../../src/core/batch.js';
import { DTYPE_EPS, type DType } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import { cpuPotrfComplex } from '../../src/cpu/complex/zpotrf.js';
import { chooseComplex } from '../../src/cuda/router.js';
import { arg, type DeviceArray, type DeviceDType, type GpuDevice, type HostArray } from '../../src/cuda/runtime/types.js';
import { get, randomHpd } from '../helpers/complex.js';
import { compileHarnesses, HOST_EMULATION_SKIP, NO_MMA_CARD, RECORDED_BASE, recordingDevice, type HarnessBuild, type Recorded } from '../helpers/recording-device.js';
import { Rng } from '../helpers/random.js';
import { HARNESSES, INT32_UPLOAD, runChain, stepsOf } from '../helpers/zchain.js';

const skip = HOST_EMULATION_SKIP;
const SENTINEL = 12345.5;
const INFO_BASE = 0x2000000n;

/** The members: order and pad (ld = n + pad), in list order. */
const MEMBERS: readonly (readonly [number, number])[] = [[5, 0], [0, 0], [3, 1], [40, 3], [3, 0], [8, 2], [1, 0], [5, 2], [0, 1], [3, 1], [8, 2]];
/** Member 2 fails at its second step, member 7 holds NaN in its triangle. */
const FAILS = 2, HOLDS_NAN = 7;

const inTriangle = (uplo: Uplo, i: number, j: number): boolean => (uplo === 'lower' ? i >= j : i <= j);

/**
 * recordingDevice with what the shape groups need of device memory: workspace views at their own
 * addresses (the recording device's views alias their buffer), and int32 uploads into a view (the
 * groups' batch places, one upload for every group) recorded as steps of the chain, in stream order
 * with the launches.
 */
function groupsRecordingDevice(recorded: Recorded[], uploads: Map<Recorded, Int32Array>): GpuDevice {
  const dev = recordingDevice(recorded, NO_MMA_CARD);
  const bytes: Record<DeviceDType, number> = { float64: 8, float32: 4, int32: 4, int64: 8 };
  return {
    ...dev,
    view: (a: DeviceArray, start: number, length: number, dtype?: DeviceDType): DeviceArray => {
      const t = dtype ?? a.dtype;
      return { kind: 'device', dtype: t, length, device: 0, ptr: a.ptr + BigInt(start * bytes[a.dtype]), byteLength: length * bytes[t], disposed: false, dispose() {} };
    },
    upload: (host: HostArray, dst?: DeviceArray): DeviceArray => {
      if (dst !== undefined && host instanceof Int32Array) {
        const r: Recorded = { src: { name: `${INT32_UPLOAD}.cu`, entry: INT32_UPLOAD, source: '' }, config: { grid: [1, 1, 1], block: [1, 1, 1] }, args: [arg.ptr(dst.ptr)], tables: new Map() };
        recorded.push(r);
        uploads.set(r, host.slice());
        return dst;
      }
      return dev.upload(host, dst);
    },
  };
}

describe('complex potrf on a variable batch: the shape groups\' launches in order on the host', { skip, timeout: 3_600_000 }, () => {
  const root = skip === undefined ? mkdtempSync(join(tmpdir(), 'myriad-zvariable-')) : '';
  after(() => { if (root !== '') rmSync(root, { recursive: true, force: true }); });
  for (const [dtype, uplo] of [['float64', 'lower'], ['float32', 'upper']] as [DType, Uplo][]) {
    const ctype = dtype === 'float64' ? 'complex128' as const : 'complex64' as const;
    it(`${ctype} ${uplo}: orders 0-8 and 40, two lds an order, a failing and a NaN member`, async () => {
      const rng = new Rng(dtype === 'float64' ? 71 : 72);
      const bytes = dtype === 'float64' ? 16 : 8;
      const round = (x: number): number => (dtype === 'float32' ? Math.fround(x) : x);
      let next = 3;
      const places = MEMBERS.map(([n, pad]) => { const ld = Math.max(1, n + pad), offset = next; next += ld * n + 2; return { rows: n, cols: n, ld, offset }; });
      const len = next + 2;
      const buf = new Float64Array(2 * len).fill(SENTINEL);
      places.forEach((m, p) => {
        const h = randomHpd(rng, m.rows);
        for (let j = 0; j < m.rows; j++) for (let i = 0; i < m.rows; i++) {
          const e = m.offset + i + j * m.ld;
          const [re, im] = inTriangle(uplo, i, j) ? get(h, i, j) : [NaN, NaN];
          buf[2 * e] = round(re);
          buf[2 * e + 1] = i === j ? NaN : round(im);
        }
        if (p === FAILS) buf[2 * (m.offset + 1 + m.ld)] = -1;
        if (p === HOLDS_NAN) buf[2 * (m.offset + (uplo === 'lower' ? m.rows - 1 : (m.rows - 1) * m.ld))] = NaN;
      });
      const before = buf.slice();

      // The router's complex candidate on the recording device, then its launches in order on the host.
      const recorded: Recorded[] = [];
      const uploads = new Map<Recorded, Int32Array>();
      const dev = groupsRecordingDevice(recorded, uploads);
      const buffer: DeviceArray = { kind: 'device', dtype, length: 2 * len, device: 0, ptr: RECORDED_BASE, byteLength: len * bytes, disposed: false, dispose() {} };
      const count = MEMBERS.length;
      const info: DeviceArray = { kind: 'device', dtype: 'int32', length: count, device: 0, ptr: INFO_BASE, byteLength: 4 * count, disposed: false, dispose() {} };
      const request = { uplo, a: variable(places.map((m) => ({ data: buffer, ...m })), { dtype: ctype }), info };
      // The own route runs the groups, the member of order 40 on the recursion.
      const { candidate, taken } = chooseComplex('potrf', request, dev);
      assert.deepEqual(taken, { op: 'potrf', route: 'potrf', gpu: true });
      (candidate.run as unknown as (d: GpuDevice, r: typeof request) => void)(dev, request);
      const entries = recorded.map((r) => r.src.entry);
      assert.equal(entries.filter((e) => e === 'int_move').length, new Set(MEMBERS.map(([n, pad]) => `${n}/${Math.max(1, n + pad)}`)).size, 'one scatter of info per group');
      const builds = new Map<string, HarnessBuild & { key: string }>();
      const steps = stepsOf(recorded, bytes, root, builds);
      for (const s of steps) if (s.family === 'upload') s.ints = uploads.get(s.r)!;
      for (const family of ['ztrsm', 'zherk', 'zpotrf', 'zgemm'] as const) {
        const mine = [...builds.values()].filter((x) => x.key.startsWith(`${family}/`));
        if (mine.length > 0) await compileHarnesses(resolve(`test/helpers/${HARNESSES[family]}`), mine);
      }
      const infos = new Map<bigint, Int32Array>();
      infos.set(INFO_BASE, new Int32Array(count).fill(-99));
      runChain(steps, buf, len, bytes, infos);

      // The reference on a copy of the input, the same variable batch.
      const want = before.slice();
      const wantInfo = new Int32Array(count);
      cpuPotrfComplex({ uplo, a: variable(places.map((m) => ({ data: want, ...m })), { dtype: 'complex128' }), info: wantInfo });
      assert.deepEqual([...infos.get(INFO_BASE)!], [...wantInfo], 'info in every member\'s place');
      assert.equal(wantInfo[FAILS], 2);
      assert.ok(wantInfo[HOLDS_NAN]! > 0);

      const owner = new Map<number, [number, number, number]>();
      places.forEach((m, p) => { for (let j = 0; j < m.rows; j++) for (let i = 0; i < m.rows; i++) owner.set(m.offset + i + j * m.ld, [p, i, j]); });
      const eps = DTYPE_EPS[dtype];
      for (let e = 0; e < len; e++) {
        const [g, w, x] = [[buf[2 * e]!, buf[2 * e + 1]!], [want[2 * e]!, want[2 * e + 1]!], [before[2 * e]!, before[2 * e + 1]!]];
        const o = owner.get(e);
        const where = `pair ${e}${o ? ` (member ${o[0]} (${o[1]}, ${o[2]}))` : ''}`;
        if (o === undefined || !inTriangle(uplo, o[1], o[2])) { assert.ok(Object.is(g[0], x[0]) && Object.is(g[1], x[1]), `${where} changed: ${g}, was ${x}`); continue; }
        const [p, i, j] = o;
        const n = places[p]!.rows;
        if (wantInfo[p] !== 0) {
          const col = uplo === 'lower' ? j : i, k = wantInfo[p]! - 1;
          if (col > k || (col === k && i !== j)) continue;
        }
        if (Number.isNaN(w[0]) || Number.isNaN(w[1])) { assert.ok(Number.isNaN(g[0]) || Number.isNaN(g[1]), `${where}: ${g}, want NaN in ${w}`); continue; }
        let scale = 1;
        for (let f = 0; f < n * n; f++) for (const part of [0, 1]) { const v = Math.abs(want[2 * (places[p]!.offset + (f % n) + Math.floor(f / n) * places[p]!.ld) + part]!); if (Number.isFinite(v)) scale = Math.max(scale, v); }
        for (const part of [0, 1]) assert.ok(Math.abs(g[part]! - w[part]!) <= 64 * Math.max(8, n) * eps * scale, `${where} part ${part}: ${g[part]}, want ${w[part]}`);
      }
    });
  }
});

/** The members of the LU cases: rows, cols and pad (ld = rows + pad); member 3 singular (a zero column), member 5 with NaN. */
const LU_MEMBERS: readonly (readonly [number, number, number])[] = [[5, 5, 0], [0, 0, 0], [3, 3, 1], [8, 8, 2], [3, 3, 0], [6, 6, 1], [1, 1, 0], [5, 5, 2], [3, 3, 1], [4, 2, 0], [2, 4, 1]];
const SINGULAR = 3, LU_NAN = 5;
const PIV_BASE = 0x3000000n;

describe('complex LU on a variable batch: the shape groups\' launches in order on the host', { skip, timeout: 3_600_000 }, () => {
  const root = skip === undefined ? mkdtempSync(join(tmpdir(), 'myriad-zvariable-lu-')) : '';
  after(() => { if (root !== '') rmSync(root, { recursive: true, force: true }); });
  for (const op of ['getrf', 'getrs', 'gesv'] as const) {
    const what = op === 'getrs' ? 'the reference\'s factors, trans C; pivots gathered from the batch\'s places' : `a singular and a NaN member; pivots scattered to the batch's places${op === 'getrf' ? ', 4 x 2 and 2 x 4 members too' : ', a failed member\'s B kept'}`;
    it(`${op} complex128: orders 0-8, two lds an order, ${what}`, async () => {
      const rng = new Rng({ getrf: 81, getrs: 82, gesv: 83 }[op]);
      const shapes = LU_MEMBERS.filter(([m, n]) => op === 'getrf' || m === n);
      const count = shapes.length;
      const stride = Math.max(...shapes.map(([m, n]) => Math.min(m, n)));
      let next = 3;
      const placesA = shapes.map(([m, n, pad]) => { const ld = Math.max(1, m + pad), offset = next; next += ld * n + 1; return { rows: m, cols: n, ld, offset }; });
      const placesB = op === 'getrf' ? [] : shapes.map(([m, , pad], p) => { const ld = Math.max(1, m + pad), cols = 1 + (p % 3), offset = next; next += ld * cols + 2; return { rows: m, cols, ld, offset }; });
      const len = next + 2;
      const buf = new Float64Array(2 * len).fill(SENTINEL);
      for (const m of [...placesA, ...placesB]) for (let j = 0; j < m.cols; j++) for (let i = 0; i < m.rows; i++) {
        const e = m.offset + i + j * m.ld;
        buf[2 * e] = rng.uniform();
        buf[2 * e + 1] = rng.uniform();
      }
      if (op !== 'getrs') {
        const s = placesA[SINGULAR]!;
        for (let i = 0; i < s.rows; i++) buf.fill(0, 2 * (s.offset + i + s.ld), 2 * (s.offset + i + s.ld) + 2);
        buf[2 * (placesA[LU_NAN]!.offset + 2)] = NaN;
      }
      const pivots = new Int32Array(count * stride).fill(-9);
      if (op === 'getrs') {
        // getrs's inputs: the reference's factors and pivots.
        const ref = newReferenceContext();
        ref.getrf({ a: variable(placesA.map((m) => ({ data: buf, ...m })), { dtype: 'complex128' }), ipiv: pivots });
        ref.dispose();
      }
      const before = buf.slice(), pivotsBefore = pivots.slice();

      const recorded: Recorded[] = [];
      const uploads = new Map<Recorded, Int32Array>();
      const dev = groupsRecordingDevice(recorded, uploads);
      const buffer: DeviceArray = { kind: 'device', dtype: 'float64', length: 2 * len, device: 0, ptr: RECORDED_BASE, byteLength: len * 16, disposed: false, dispose() {} };
      const ints = (ptr: bigint, n: number): DeviceArray => ({ kind: 'device', dtype: 'int32', length: n, device: 0, ptr, byteLength: 4 * n, disposed: false, dispose() {} });
      const batch = (places: readonly { rows: number; cols: number; ld: number; offset: number }[]) => variable(places.map((m) => ({ data: buffer, ...m })), { dtype: 'complex128' });
      const request: Record<string, unknown> = { a: batch(placesA), ipiv: ints(PIV_BASE, count * stride), pivotStride: stride, info: ints(INFO_BASE, count), ...(op === 'getrf' ? {} : { trans: op === 'getrs' ? 'C' : 'N', b: batch(placesB) }) };
      const { candidate, taken } = chooseComplex(op, request, dev);
      assert.deepEqual(taken, { op, route: op, gpu: true });
      (candidate.run as unknown as (d: GpuDevice, r: Record<string, unknown>) => void)(dev, request);
      // The groups, and those with pivots (min(m, n) > 0: an empty group moves none).
      const keys = new Map(shapes.map(([m, n, pad], p) => [`${m}x${n}/${Math.max(1, m + pad)}` + (op === 'getrf' ? '' : `/${placesB[p]!.cols}/${placesB[p]!.ld}`), Math.min(m, n)]));
      const [groups, pivoted] = [keys.size, [...keys.values()].filter((k) => k > 0).length];
      const moves = recorded.filter((r) => r.src.entry === 'int_move').map((r) => Number(r.args[7]!.value));
      assert.deepEqual([moves.filter((g) => g === 1).length, moves.filter((g) => g === 0).length], op === 'getrs' ? [pivoted, groups] : [0, groups + pivoted], 'per group: pivots gathered (getrs), info (and pivots) scattered');
      const builds = new Map<string, HarnessBuild & { key: string }>();
      const steps = stepsOf(recorded, 16, root, builds);
      for (const s of steps) if (s.family === 'upload') s.ints = uploads.get(s.r)!;
      await compileHarnesses(resolve(`test/helpers/${HARNESSES.zlu}`), [...builds.values()]);
      const infos = new Map<bigint, Int32Array>([[INFO_BASE, new Int32Array(count).fill(-99)], [PIV_BASE, pivots.slice()]]);
      runChain(steps, buf, len, 16, infos);

      // The reference on a copy of the input, the same variable batches.
      const want = before.slice(), wantPiv = pivotsBefore.slice(), wantInfo = new Int32Array(count).fill(-99);
      const ref = newReferenceContext();
      const refBatch = (places: readonly { rows: number; cols: number; ld: number; offset: number }[]) => variable(places.map((m) => ({ data: want, ...m })), { dtype: 'complex128' });
      if (op === 'getrf') ref.getrf({ a: refBatch(placesA), ipiv: wantPiv, info: wantInfo });
      else if (op === 'getrs') ref.getrs({ trans: 'C', a: refBatch(placesA), ipiv: wantPiv, b: refBatch(placesB), info: wantInfo });
      else ref.gesv({ a: refBatch(placesA), ipiv: wantPiv, b: refBatch(placesB), info: wantInfo });
      ref.dispose();
      assert.deepEqual([...infos.get(INFO_BASE)!], [...wantInfo], 'info in every member\'s place');
      assert.deepEqual([...infos.get(PIV_BASE)!], [...wantPiv], 'pivots in every member\'s place (the slots past its min(m, n) as given)');
      if (op !== 'getrs') assert.ok(wantInfo[SINGULAR]! > 0 && wantInfo[LU_NAN] === 0, 'a singular member; NaN is no LU failure');

      // Each member's elements: its order and the largest finite magnitude of the reference's result.
      const owner = new Map<number, { p: number; n: number; scale: number }>();
      [...placesA, ...placesB].forEach((m, q) => {
        const o = { p: q % count, n: Math.max(m.rows, m.cols, 8), scale: 1 };
        for (let j = 0; j < m.cols; j++) for (let i = 0; i < m.rows; i++) {
          const e = m.offset + i + j * m.ld;
          owner.set(e, o);
          for (const part of [0, 1]) if (Number.isFinite(want[2 * e + part]!)) o.scale = Math.max(o.scale, Math.abs(want[2 * e + part]!));
        }
      });
      for (let e = 0; e < len; e++) for (const part of [0, 1]) {
        const [g, w, x] = [buf[2 * e + part]!, want[2 * e + part]!, before[2 * e + part]!];
        const o = owner.get(e);
        const where = `pair ${e} part ${part}${o ? ` (member ${o.p})` : ''}`;
        if (o === undefined || Object.is(w, x)) { assert.ok(Object.is(g, x), `${where} changed: ${g}, was ${x}`); continue; }
        if (Number.isNaN(w)) { assert.ok(Number.isNaN(g), `${where}: ${g}, want NaN`); continue; }
        assert.ok(Math.abs(g - w) <= 64 * o.n * DTYPE_EPS.float64 * o.scale, `${where}: ${g}, want ${w}`);
      }
    });
  }
});

