/**
 * Opt-in (MYRIAD_HOST_EMULATION=1, needs g++ with C++20): complex potrf on a variable batch through
 * the router's complex candidate (kernels/common/shape-groups.ts: one launcher call per group of
 * members of one shape and ld, as a list batch), every launch in order on the host
 * (test/helpers/zchain.ts): the groups' uploaded batch places, the warp kernels of the small orders,
 * the recursion of a member of order 40 (leaves, complex trsm, herk and gemm), info_zero for the
 * empty members, and the integer move of each group's info to its members' places. Against the
 * complex reference on the same variable batch (a copy of the buffer): info exactly in every
 * member's place, a good member's factor within a backward-error tolerance, a failed member's
 * columns before its failure, and every pair outside the members' triangles unchanged. Orders 0, 1,
 * 3, 5, 8 and 40 in shuffled order, members of one order at two leading dimensions, a member failing
 * (a negative diagonal) and one with NaN. A check of the route's launches without a GPU.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';

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
 * groups' batch places) recorded as steps of the chain, in stream order with the launches (the
 * workspace's bytes are reused: a later group's places may lie where the recursion's scratch was).
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
