/**
 * The complex heev host emulation (test/cuda/zheev-host-emulation.test.ts: the launcher's choices;
 * test/cuda/zheev-rows-host-emulation.test.ts: the rows design forced): a case's batch (strided or
 * list, A and W in one buffer, random, clustered, repeated, diagonal, zero, graded and positive
 * definite Hermitian matrices and one with NaN in its triangle; NaN in every diagonal's imaginary part
 * and in the triangle not referenced) as the launcher plans and launches it on a recording device,
 * compiled for the host (test/helpers/zheev-host-harness.cpp) and run a thread per CUDA thread, then
 * checked against the complex reference (cpu/complex/zheev.ts): info exactly; every element outside
 * the outputs bitwise unchanged; the eigenvalues within n eps ||A||_F of the reference's, ascending;
 * with vectors ||A V - V diag(w)||_F / (n ||A||_F eps) and ||V^H V - I||_F / (n eps) below 30.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { list, strided, type Batch } from '../../src/core/batch.js';
import { DTYPE_EPS, type DType } from '../../src/core/dtype.js';
import type { Uplo } from '../../src/core/enums.js';
import type { Storage } from '../../src/core/storage.js';
import { cpuHeevComplex } from '../../src/cpu/complex/zheev.js';
import { complexHeevCuda, type ZjacobiForce } from '../../src/cuda/kernels/zjacobi/index.js';
import type { DeviceArray } from '../../src/cuda/runtime/types.js';
import { get, hermitianFrom, set, zeros, type Z } from './complex.js';
import { HERMITIAN_KINDS, hermitianCase, heevResidual, unitaryResidual } from './zjacobi-cases.js';
import { compileHarnesses, HOST_EMULATION_SKIP, operandLine, parseHarnessNumber, RECORDED_BASE, recordingDevice, type Recorded } from './recording-device.js';
import { Rng } from './random.js';

const skip = HOST_EMULATION_SKIP;
const HARNESS = resolve('test/helpers/zheev-host-harness.cpp');
const SENTINEL = 12345.5;
const LIMIT = 30;

export interface Case { dtype: DType; n: number; uplo: Uplo; vectors: boolean; form: 'strided' | 'list'; force?: ZjacobiForce }

const round = (dtype: DType, x: number): number => (dtype === 'float32' ? Math.fround(x) : x);
const inTriangle = (uplo: Uplo, i: number, j: number): boolean => (uplo === 'lower' ? i >= j : i <= j);

interface Prepared {
  c: Case; dir: string; exe: string; defines: string[]; input: string; entry: string; count: number;
  buf: Float64Array; mats: Z[]; aOff: number[]; ld: number; wOff: number[]; refW: Float64Array; refInfo: Int32Array;
}

function prepare(c: Case, index: number, root: string): Prepared {
  const rng = new Rng(7000 + index);
  const recorded: Recorded[] = [];
  const dev = recordingDevice(recorded);
  const n = c.n;
  const ld = n + 1 + (index % 2);
  // A matrices at pair offsets from 3, a gap of 1 or 2 pairs between them (list) or a fixed stride.
  const count0 = 9;
  const aOff: number[] = [];
  let next = 3;
  const stride = ld * n + 2;
  for (let q = 0; q < count0; q++) { aOff.push(next); next += c.form === 'strided' ? stride : ld * n + 1 + (q % 2); }
  // W at real offsets after A's last pair.
  const wStart = 2 * next + 5;
  const wOff = Array.from({ length: count0 }, (_, q) => wStart + q * (n + 3));
  const len = wStart + count0 * (n + 3) + 4;
  const buf = new Float64Array(len).fill(SENTINEL);
  const mats: Z[] = [];
  for (let q = 0; q < count0; q++) {
    const kind = q === 1 ? 'random' : HERMITIAN_KINDS[q % HERMITIAN_KINDS.length]!;
    const h = hermitianCase(rng, kind, n);
    const m = zeros(n, n);
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
      const [re, im] = get(h, i, j);
      set(m, i, j, round(c.dtype, re), round(c.dtype, im));
    }
    mats.push(hermitianFrom(m, c.uplo));
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
      const e = 2 * (aOff[q]! + i + j * ld);
      if (!inTriangle(c.uplo, i, j)) { buf[e] = NaN; buf[e + 1] = NaN; continue; }
      buf[e] = get(m, i, j)[0];
      buf[e + 1] = i === j ? NaN : get(m, i, j)[1];
    }
    if (q === 1) buf[2 * (aOff[q]! + (c.uplo === 'lower' ? n - 1 : 0) + (c.uplo === 'lower' ? 0 : n - 1) * ld)] = NaN;
  }

  const elementBytes = c.dtype === 'float64' ? 8 : 4;
  const data: DeviceArray = { kind: 'device', dtype: c.dtype, length: len, device: 0, ptr: RECORDED_BASE, byteLength: len * elementBytes, disposed: false, dispose() {} };
  const info: DeviceArray = { kind: 'device', dtype: 'int32', length: count0, device: 0, ptr: 0x2000000n, byteLength: 4 * count0, disposed: false, dispose() {} };
  const type = c.dtype === 'float64' ? 'complex128' : 'complex64';
  const batches = <S extends Storage>(s: S, dtype: 'complex128' | 'complex64'): { a: Batch<S>; w: Batch<S> } => c.form === 'list'
    ? { a: list(aOff.map((offset) => ({ data: s, offset })), { rows: n, cols: n, ld, dtype }), w: list(wOff.map((offset) => ({ data: s, offset })), { rows: n, cols: 1, ld: n }) }
    : { a: strided(s, { rows: n, cols: n, ld, stride, offset: aOff[0]!, count: count0, dtype }), w: strided(s, { rows: n, cols: 1, ld: n, stride: n + 3, offset: wStart, count: count0 }) };
  const dv = batches(data, type);
  complexHeevCuda(dev, { jobz: c.vectors ? 'vectors' : 'values', uplo: c.uplo, a: dv.a, w: dv.w, info }, c.force === undefined ? {} : { force: c.force });
  assert.equal(recorded.length, 1, 'one launch');
  const r = recorded[0]!;
  if (c.force?.design !== undefined) assert.match(r.src.entry, new RegExp(`^heev_${c.force.design}_`), 'the forced design');
  const opA = operandLine(r, 0, 2 * elementBytes);
  const opW = operandLine(r, 1, elementBytes);
  assert.equal(opA.pointer, c.form === 'list');
  const input = [`${r.config.grid[0]} ${r.config.block[0]} ${count0} ${len}`, opA.line, opW.line, ...Array.from(buf, String)].join('\n') + '\n';

  // The reference, values only, on a copy.
  const refBuf = buf.slice();
  const refInfo = new Int32Array(count0);
  const rb = batches(refBuf, 'complex128');
  cpuHeevComplex({ jobz: 'values', uplo: c.uplo, a: rb.a, w: rb.w, info: refInfo });
  const refW = new Float64Array(count0 * n);
  for (let q = 0; q < count0; q++) for (let j = 0; j < n; j++) refW[q * n + j] = refBuf[wOff[q]! + j]!;

  const dir = join(root, `case${index}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'kernel.cu'), r.src.source);
  return {
    c, dir, exe: join(dir, 'h'), defines: [`-DENTRY=${r.src.entry}`, ...(opA.pointer ? ['-DPA'] : [])], input, entry: r.src.entry, count: count0,
    buf, mats, aOff, ld, wOff, refW, refInfo,
  };
}

function check(p: Prepared, out: string): void {
  const { c, buf, count, ld } = p;
  const n = c.n;
  const nums = out.trim().split(/\s+/).map(parseHarnessNumber);
  assert.equal(nums.length, buf.length + count, `${p.entry}: the buffer and info back`);
  const info = nums.slice(buf.length);
  assert.deepEqual(info, [...p.refInfo], `${p.entry}: info`);
  assert.equal(info[1], n + 2, `${p.entry}: the NaN member`);
  const eps = DTYPE_EPS[c.dtype];
  // Which reals the kernel may write: W's, and with vectors A's n x n.
  const written = new Set<number>();
  for (let q = 0; q < count; q++) {
    for (let j = 0; j < n; j++) written.add(p.wOff[q]! + j);
    if (c.vectors) for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) { written.add(2 * (p.aOff[q]! + i + j * ld)); written.add(2 * (p.aOff[q]! + i + j * ld) + 1); }
  }
  for (let e = 0; e < buf.length; e++) if (!written.has(e)) assert.ok(Object.is(nums[e], buf[e]), `${p.entry}: real ${e} changed: ${nums[e]}, was ${buf[e]}`);
  for (let q = 0; q < count; q++) {
    const at = `${p.entry} #${q}`;
    const w = nums.slice(p.wOff[q]!, p.wOff[q]! + n);
    const v = zeros(n, n);
    if (c.vectors) for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) set(v, i, j, nums[2 * (p.aOff[q]! + i + j * ld)]!, nums[2 * (p.aOff[q]! + i + j * ld) + 1]!);
    if (q === 1) {
      assert.ok(w.every(Number.isNaN), `${at}: W NaN`);
      if (c.vectors) assert.ok(v.d.every(Number.isNaN), `${at}: A NaN`);
      continue;
    }
    const a = p.mats[q]!;
    let anorm = 0;
    for (const x of a.d) anorm += x * x;
    anorm = Math.sqrt(anorm);
    for (let j = 0; j < n; j++) {
      assert.ok(Math.abs(w[j]! - p.refW[q * n + j]!) <= n * eps * anorm, `${at}: w[${j}] ${w[j]} vs ${p.refW[q * n + j]} (||A|| ${anorm})`);
      if (j > 0) assert.ok(w[j - 1]! <= w[j]!, `${at}: ascending`);
    }
    if (!c.vectors) continue;
    const res = heevResidual(a, v, w, eps);
    const orth = unitaryResidual(v, eps);
    assert.ok(res < LIMIT, `${at}: ||AV - VW|| ratio ${res}`);
    assert.ok(orth < LIMIT, `${at}: ||V^H V - I|| ratio ${orth}`);
  }
}

/** One test a case, under `title`: the harnesses compiled before the first. */
export function describeHeevHostEmulation(title: string, all: readonly Case[], seed: number): void {
  describe(title, { skip, timeout: 1_800_000 }, () => {
    const root = skip === undefined ? mkdtempSync(join(tmpdir(), 'myriad-zheev-')) : '';
    const prepared = skip === undefined ? all.map((c, i) => prepare(c, seed + i, root)) : [];
    before(() => compileHarnesses(HARNESS, prepared));
    after(() => { if (root !== '') rmSync(root, { recursive: true, force: true }); });
    for (const [i, c] of all.entries()) {
      it(`heev ${c.dtype === 'float64' ? 'complex128' : 'complex64'} ${c.uplo} n = ${c.n} ${c.vectors ? 'vectors' : 'values'}, ${c.form}${c.force === undefined ? '' : ` ${JSON.stringify(c.force)}`}`, () => {
        const p = prepared[i]!;
        const r = spawnSync(p.exe, { input: p.input, maxBuffer: 1 << 28, timeout: 300_000 });
        assert.equal(r.status, 0, `${p.entry}: status ${r.status} ${r.signal ?? ''} ${r.stderr.toString()}`);
        check(p, r.stdout.toString());
      });
    }
  });
}
