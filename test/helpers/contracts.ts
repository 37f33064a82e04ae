/**
 * The contracts of every LAPACK-level call, as fast-check properties, for any context (the CPU
 * in CI, fake GPUs in CI, CUDA on the GPU machine):
 *
 * - valid calls on random shapes, layouts (ld, stride, offset, order; strided, list, variable
 *   batches), dtypes and enums agree with the CPU reference run on packed column-major copies
 *   (complex calls too: callArb's 'complex' field, pairs compared part by part, column-major),
 *   and leave every element they may not write bit-identical (padding, gaps, the other
 *   triangle, info entries past the count); eigen- and singular vectors (syev, gesvd), defined
 *   up to signs, by their properties instead: orthonormal, A V = V W, A = U S VT;
 * - invalid calls throw a MyriadError naming an argument of the call and change no buffer;
 * - an output sharing a byte with another argument is rejected, and the same placement without
 *   a shared byte is accepted.
 *
 * Calls come from test/helpers/contract-calls.ts; their data from a seeded generator, so a
 * shrunk counterexample is a few numbers to paste into a regular test.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Context } from '../../src/api/context.js';
import { strided, variable, type MatrixView } from '../../src/core/batch.js';
import { allocate, type DType, type FloatArray } from '../../src/core/dtype.js';
import { elementInfo } from '../../src/core/dtype-table.js';
import type { Order } from '../../src/core/enums.js';
import { MyriadError } from '../../src/core/errors.js';
import { isDeviceStorage, type DeviceStorage } from '../../src/core/storage.js';
import {
  HAS_INFO, OPTION_KEYS, READS_IPIV, at, buildCall, bytesOf, elementOf, footprint, partsOf, vectorOutput, writable,
  type BuiltCall, type CallSpec, type ContractOp, type Placed,
} from './contract-calls.js';

export { COMPLEX_CONTRACT_OPS, CONTRACT_OPS, callArb, type CallSpec, type ContractOp } from './contract-calls.js';

/** The real dtype of a call the invalid-call and overlap properties build (they take real calls only). */
function realOnly(spec: CallSpec): DType {
  assert.equal(partsOf(spec), 1, 'the invalid-call and overlap properties take real calls');
  return spec.dtype as DType;
}

// ---------------------------------------------------------------------------------------------
// Running and checking

/** Runs op on ctx with args (the op name travels outside the args object). */
export function runOp(ctx: Context, op: ContractOp, args: Record<string, unknown>): { info?: Int32Array; ipiv?: Int32Array } {
  const r = (ctx[op] as (a: unknown) => { info?: unknown; ipiv?: unknown } | void)(args) ?? {};
  return r as { info?: Int32Array; ipiv?: Int32Array };
}

/**
 * The reference: the same op on packed column-major copies of the logical matrices, one array each.
 * Outputs per matrix, row, column: the element's parts ([re] or [re, im]).
 */
function referenceRun(ref: Context, c: BuiltCall): { outputs: Map<string, number[][][][]>; info?: Int32Array; ipiv?: Int32Array } {
  const args: Record<string, unknown> = { ...c.args };
  const copies = new Map<string, FloatArray[]>();
  const real = elementInfo(c.spec.dtype).real;
  for (const p of c.placed) {
    const parts = p.parts;
    const arrays = p.views.map((v) => {
      const packed = allocate(real, parts * v.rows * v.cols);
      for (let i = 0; i < v.rows; i++) for (let j = 0; j < v.cols; j++)
        for (let q = 0; q < parts; q++) packed[parts * (i + j * v.rows) + q] = v.data[parts * at(v, p.order, i, j) + q]!;
      return packed;
    });
    copies.set(p.name, arrays);
    args[p.name] = variable(arrays.map((data, i) => ({ data, rows: p.views[i]!.rows, cols: p.views[i]!.cols })), parts === 2 ? { dtype: elementOf(c.spec, p.name) } : {});
  }
  delete args['info'];
  if (!READS_IPIV.has(c.spec.op)) delete args['ipiv'];
  else args['ipiv'] = c.ipiv!.slice();
  const r = runOp(ref, c.spec.op, args);
  const outputs = new Map<string, number[][][][]>();
  for (const p of c.placed) {
    const arrays = copies.get(p.name)!;
    const parts = p.parts;
    outputs.set(p.name, p.views.map((v, m) => Array.from({ length: v.rows }, (_, i) => Array.from({ length: v.cols }, (_, j) =>
      Array.from({ length: parts }, (_, q) => arrays[m]![parts * (i + j * v.rows) + q]!)))));
  }
  return { outputs, ...(r.info ? { info: r.info } : {}), ...(r.ipiv ? { ipiv: r.ipiv } : {}) };
}

const EPS: Readonly<Record<DType, number>> = { float64: 2.220446049250313e-16, float32: 1.1920928955078125e-7 };

/**
 * Property 1: a valid call agrees with the reference and touches nothing it may not write.
 * `subject` runs the call (a context, host batches); `reference` is the CPU reference context.
 */
export function checkValidCall(subject: Context, reference: Context, spec: CallSpec, where: 'host' | 'device' = 'host'): void {
  const c = buildCall(where === 'device' ? columnMajorWhereCopied(spec) : spec);
  // The input A as logical matrices, for the checks of eigen- and singular vectors (A may be overwritten).
  const inputA = c.placed.find((p) => p.name === 'a');
  const a0 = inputA ? inputA.views.map((v) => logical(v, inputA.order, inputA.parts)) : [];
  const ref = referenceRun(reference, c);
  const got = where === 'device' ? runOnDevice(subject, c) : runOp(subject, spec.op, c.args);
  const count = spec.dims.length;
  // info and pivots exactly; entries past the count untouched.
  if (HAS_INFO.has(spec.op)) {
    const info = toHostInts(got.info);
    assert.deepEqual([...info.subarray(0, count)], [...ref.info!.subarray(0, count)], 'info');
    if (c.info) assert.deepEqual([...c.info.subarray(count)], [-9, -9], 'info past the count');
  }
  if (spec.op === 'getrf' || spec.op === 'gesv') {
    const ipiv = toHostInts(got.ipiv);
    const stride = ref.ipiv!.length / Math.max(1, count);
    for (let m = 0; m < count; m++) {
      const d = spec.dims[m]!;
      const used: number = spec.op === 'getrf' ? Math.min(d.m, d.n) : d.n;
      const mine = [...ipiv.subarray(m * stride, m * stride + used)];
      assert.deepEqual(mine, [...ref.ipiv!.subarray(m * stride, m * stride + used)], `ipiv of matrix ${m}`);
    }
  }
  // Outputs: writable elements agree; everything else in every buffer is bit-identical.
  const mayWrite = new Map<ArrayBufferView, Set<number>>();
  for (const p of c.placed) {
    if (!p.output) continue;
    const want = ref.outputs.get(p.name)!;
    const parts = p.parts;
    p.views.forEach((v, m) => {
      const scale = 1 + Math.max(0, ...want[m]!.flat(2).map(Math.abs));
      const tol = 64 * Math.max(4, v.rows + v.cols) * EPS[elementInfo(spec.dtype).real] * scale;
      const set = mayWrite.get(v.data) ?? new Set<number>();
      mayWrite.set(v.data, set);
      // getri leaves a singular matrix (info > 0) as it was: none of its elements may change.
      if (spec.op === 'getri' && ref.info![m]! > 0) return;
      for (let i = 0; i < v.rows; i++) for (let j = 0; j < v.cols; j++) {
        if (!writable(spec, p.name, i, j)) continue;
        const e = parts * at(v, p.order, i, j);
        for (let q = 0; q < parts; q++) set.add(e + q);
        if (vectorOutput(spec, p.name)) continue;   // checkVectors below
        for (let q = 0; q < parts; q++) {
          const x = v.data[e + q]!, y = want[m]![i]![j]![q]!;
          if (!(Math.abs(x - y) <= tol)) assert.fail(`${p.name} matrix ${m} (${i}, ${j})${parts === 2 ? (q === 0 ? ' re' : ' im') : ''}: got ${x}, reference ${y} (tol ${tol})`);
        }
      }
    });
  }
  checkVectors(spec, c, a0);
  for (const p of c.placed) for (const buf of p.buffers) {
    const before = c.before.get(buf)!;
    const now = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    const set = mayWrite.get(buf);
    const w = buf.BYTES_PER_ELEMENT;
    for (let e = 0; e < buf.length; e++) {
      if (set?.has(e)) continue;
      for (let q = 0; q < w; q++)
        if (now[e * w + q] !== before[e * w + q]) assert.fail(`${p.name}: element ${e} changed (${buf[e]}), outside what ${spec.op} may write`);
    }
  }
  if (READS_IPIV.has(spec.op) && c.ipiv) assert.deepEqual(bytesOf(c.ipiv), c.before.get(c.ipiv), `${spec.op} changed ipiv`);
}

/** A complex number as [re, im] (a real one with im 0). */
type Z = readonly [number, number];
const zmul = (x: Z, y: Z): Z => [x[0] * y[0] - x[1] * y[1], x[0] * y[1] + x[1] * y[0]];
const zconj = (x: Z): Z => [x[0], -x[1]];
const zabs = (x: Z): number => Math.hypot(x[0], x[1]);

/** A view's logical matrix, rows of [re, im] (im 0 for a real view of one part an element). */
function logical(v: MatrixView<FloatArray>, order: Order, parts = 1): Z[][] {
  return Array.from({ length: v.rows }, (_, i) => Array.from({ length: v.cols }, (_, j) => {
    const e = parts * at(v, order, i, j);
    return [v.data[e]!, parts === 2 ? v.data[e + 1]! : 0] as Z;
  }));
}

/**
 * Eigen- and singular vectors, defined up to signs (and the CPU and GPU Jacobi sweeps may pick
 * either): orthonormal columns (rows of VT), and A V = V diag(w) (syev) or A = U diag(s) VT
 * (gesvd) with the values as computed (those are compared with the reference element by element).
 */
function checkVectors(spec: CallSpec, c: ReturnType<typeof buildCall>, a0: readonly Z[][][]): void {
  if (!((spec.op === 'syev' || spec.op === 'heev') && spec.jobz === 'vectors') && !(spec.op === 'gesvd' && spec.jobz === 'vectors')) return;
  const get = (name: string, m: number): Z[][] => {
    const p = c.placed.find((q) => q.name === name)!;
    return logical(p.views[m]!, p.order, p.parts);
  };
  const eps = EPS[elementInfo(spec.dtype).real];
  spec.dims.forEach((_, m) => {
    const a = a0[m]!;
    const rows = a.length, cols = a[0]?.length ?? 0;
    const tolO = 64 * Math.max(4, rows + cols) * eps;
    const tolR = tolO * (1 + Math.max(0, ...a.flat().map(zabs)));
    // Orthonormal (unitary on complex data): conj(x_i) . x_j = delta_ij.
    const orthonormal = (q: Z[][], byColumns: boolean, what: string): void => {
      const k = byColumns ? (q[0]?.length ?? 0) : q.length;
      const len = byColumns ? q.length : (q[0]?.length ?? 0);
      const x = (i: number, j: number): Z => (byColumns ? q[j]![i]! : q[i]![j]!);   // vector i, entry j
      for (let i = 0; i < k; i++) for (let j = 0; j <= i; j++) {
        let d: Z = [0, 0];
        for (let t = 0; t < len; t++) { const p = zmul(zconj(x(i, t)), x(j, t)); d = [d[0] + p[0], d[1] + p[1]]; }
        const off = zabs([d[0] - (i === j ? 1 : 0), d[1]]);
        assert.ok(off <= tolO, `${what} of matrix ${m}: vectors ${i} and ${j}: dot product ${d[0]}${d[1] !== 0 ? ` + ${d[1]}i` : ''} (tol ${tolO})`);
      }
    };
    if (spec.op === 'syev' || spec.op === 'heev') {
      const v = get('a', m), w = get('w', m).map((r) => r[0]![0]);
      orthonormal(v, true, 'eigenvectors');
      for (let i = 0; i < rows; i++) for (let j = 0; j < rows; j++) {
        let av: Z = [0, 0];
        for (let t = 0; t < rows; t++) { const p = zmul(a[i]![t]!, v[t]![j]!); av = [av[0] + p[0], av[1] + p[1]]; }
        const r = zabs([av[0] - v[i]![j]![0] * w[j]!, av[1] - v[i]![j]![1] * w[j]!]);
        assert.ok(r <= tolR, `${spec.op} matrix ${m}: |(A V - V W)(${i}, ${j})| = ${r} (tol ${tolR})`);
      }
    } else {
      const u = get('u', m), vt = get('vt', m), sv = get('s', m).map((r) => r[0]![0]);
      orthonormal(u, true, 'left singular vectors');
      orthonormal(vt, false, 'right singular vectors');
      for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) {
        let usv: Z = [0, 0];
        for (let t = 0; t < sv.length; t++) { const p = zmul(u[i]![t]!, vt[t]![j]!); usv = [usv[0] + p[0] * sv[t]!, usv[1] + p[1] * sv[t]!]; }
        const r = zabs([a[i]![j]![0] - usv[0], a[i]![j]![1] - usv[1]]);
        assert.ok(r <= tolR, `gesvd matrix ${m}: |(A - U S VT)(${i}, ${j})| = ${r} (tol ${tolR})`);
      }
    }
  });
}

/**
 * Device batches must be column-major where the API would otherwise copy (the LU family's a,
 * the solves' b, the QR family, syev and gesvd): the spec with those layouts turned to 'col'.
 */
function columnMajorWhereCopied(spec: CallSpec): CallSpec {
  const copied = ({
    getrf: ['a'], getrs: ['a', 'b'], gesv: ['a', 'b'], getri: ['a'], potrs: ['b'], posv: ['b'],
    geqrf: ['a', 'tau'], orgqr: ['a', 'tau'], ormqr: ['a', 'tau'], gels: ['a', 'b'], syev: ['a', 'w'], heev: ['a', 'w'], gesvd: ['a', 's', 'u', 'vt'],
  } as Record<string, string[]>)[spec.op] ?? [];
  const layouts = { ...spec.layouts };
  for (const name of copied) layouts[name] = { ...layouts[name]!, order: 'col' };
  return { ...spec, layouts };
}

/**
 * Runs the call on device-resident copies of every buffer (the fast path: `ctx.upload`), then
 * copies each buffer back over its host original, so the host checks see what the device holds.
 * Returns info and pivots on the host.
 */
function runOnDevice(ctx: Context, c: BuiltCall): { info?: Int32Array; ipiv?: Int32Array } {
  const onDevice = new Map<ArrayBufferView, DeviceStorage>();
  const up = <T extends FloatArray | Int32Array>(h: T): DeviceStorage => {
    let d = onDevice.get(h);
    if (!d) { d = ctx.upload(h); onDevice.set(h, d); }
    return d;
  };
  const args: Record<string, unknown> = { ...c.args };
  for (const p of c.placed) {
    const b = p.batch;
    args[p.name] = b.kind === 'strided' ? { ...b, data: up(b.data) } : { ...b, matrices: b.matrices.map((m) => ({ ...m, data: up(m.data) })) };
  }
  if (c.info) args['info'] = up(c.info);
  if (c.ipiv) args['ipiv'] = up(c.ipiv);
  const r = runOp(ctx, c.spec.op, args) as { info?: DeviceStorage | Int32Array; ipiv?: DeviceStorage | Int32Array };
  // Integers live where the batch lives: on the host for a batch with no matrices at all.
  const back = (d: DeviceStorage | Int32Array | undefined): Int32Array | undefined =>
    (d === undefined || d instanceof Int32Array ? d : ctx.download(d) as Int32Array);
  const out = { info: back(r.info), ipiv: back(r.ipiv) };
  for (const [host, d] of onDevice) (host as FloatArray).set(ctx.download(d) as FloatArray);
  for (const d of new Set([...onDevice.values(), r.info, r.ipiv]))
    if (isDeviceStorage(d)) (d as DeviceStorage & { dispose?: () => void }).dispose?.();
  return { ...(out.info ? { info: out.info } : {}), ...(out.ipiv ? { ipiv: out.ipiv } : {}) };
}

function toHostInts(x: unknown): Int32Array {
  assert.ok(x instanceof Int32Array, 'expected host Int32Array results for host batches');
  return x;
}

// ---------------------------------------------------------------------------------------------
// Invalid calls

export type Breakage = 'enum' | 'unknown-key' | 'rows' | 'count' | 'dtype' | 'bounds' | 'ld' | 'info' | 'missing' | 'scalar' | 'ipiv';
export const BREAKAGES: readonly Breakage[] = ['enum', 'unknown-key', 'rows', 'count', 'dtype', 'bounds', 'ld', 'info', 'missing', 'scalar', 'ipiv'];

/** Breaks one thing about a valid call; undefined where this breakage does not apply to it. */
function breakCall(c: BuiltCall, how: Breakage, pick: number): Record<string, unknown> | undefined {
  const args = { ...c.args };
  const batches = c.placed;
  const target = batches[pick % batches.length]!;
  const b = target.batch;
  switch (how) {
    case 'enum': {
      const keys = OPTION_KEYS[c.spec.op].filter((k) => k !== 'alpha' && k !== 'beta');
      if (keys.length === 0) return undefined;
      args[keys[pick % keys.length]!] = ['Lower', 'X', 'n', 'both'][pick % 4];
      return args;
    }
    case 'unknown-key':
      args[['Uplo', 'trans_a', 'lda', 'B'][pick % 4]!] = 1;
      return args;
    case 'scalar': {
      const keys = OPTION_KEYS[c.spec.op].filter((k) => k === 'alpha' || k === 'beta');
      if (keys.length === 0) return undefined;
      args[keys[pick % keys.length]!] = ['1', NaN, 1n, null][pick % 4];
      return args;
    }
    case 'missing':
      if (c.spec.op === 'gesvd' && (target.name === 'u' || target.name === 'vt')) return undefined;   // optional (with jobu/jobvt 'none')
      delete args[target.name];
      return args;
    case 'rows': {
      // A shape the call cannot take, in a buffer big enough (so the error is SHAPE): one more
      // row (a single square batch), or one more row and column (against the other batches).
      // getrf takes any m x n, orgqr any a with one more row and column (m >= n >= k still holds).
      if (c.spec.op === 'getrf' || (c.spec.op === 'orgqr' && target.name === 'a') || b.kind === 'variable' || target.views.length === 0) return undefined;
      const rows = b.rows + 1;
      const cols = batches.length > 1 ? b.cols + 1 : b.cols;
      const big = allocate(realOnly(c.spec), (rows + 2) * (cols + 2) * target.views.length + 8);
      args[target.name] = strided(big, { rows, cols, count: target.views.length, order: b.order });
      return args;
    }
    case 'count': {
      if (batches.length < 2 || target.views.length === 0) return undefined;
      const v = target.views;
      args[target.name] = variable(v.slice(1).map((m) => ({ data: m.data, rows: m.rows, cols: m.cols, ld: m.ld, offset: m.offset })), { order: target.order });
      return args;
    }
    case 'dtype': {
      if (batches.length < 2 || target.views.length === 0 || pick % batches.length === 0) return undefined;
      const other = c.spec.dtype === 'float64' ? 'float32' : 'float64';
      args[target.name] = variable(target.views.map((m) => ({ data: allocate(other, m.data.length), rows: m.rows, cols: m.cols, ld: m.ld, offset: m.offset })), { order: target.order });
      return args;
    }
    case 'bounds': {
      if (b.kind !== 'strided' || b.rows === 0 || b.cols === 0 || target.views.length === 0) return undefined;
      args[target.name] = { ...b, offset: b.data.length };
      return args;
    }
    case 'ld': {
      if (b.kind !== 'list') return undefined;
      args[target.name] = { ...b, ld: 0 };
      return args;
    }
    case 'info': {
      if (!HAS_INFO.has(c.spec.op) || c.spec.dims.length === 0) return undefined;
      args['info'] = pick % 2 === 0 ? new Int32Array(c.spec.dims.length - 1) : new Float64Array(c.spec.dims.length);
      return args;
    }
    case 'ipiv': {
      // The pivots an op reads (getrs, getri): missing, one entry short, or one outside [j, n).
      if (!READS_IPIV.has(c.spec.op) || !c.ipiv) return undefined;
      const need = c.ipiv.length - (c.spec.giveInts ? 2 : 0);
      switch (pick % 3) {
        case 0:
          delete args['ipiv'];
          return args;
        case 1:
          if (need === 0) return undefined;
          args['ipiv'] = c.ipiv.slice(0, need - 1);
          return args;
        default: {
          const m = c.spec.dims.findIndex((d) => d.n > 0);
          if (m < 0) return undefined;
          const n = c.spec.dims[m]!.n;
          const j = Math.floor(pick / 3) % n;
          const ipiv = c.ipiv.slice();
          ipiv[m * (need / c.spec.dims.length) + j] = pick % 2 === 0 ? n : j - 1;
          args['ipiv'] = ipiv;
          return args;
        }
      }
    }
  }
}

/**
 * Property 2: an invalid call throws a MyriadError whose argument names one of the call's
 * arguments (or 'args'), and changes no buffer. Returns false where the breakage does not apply.
 */
export function checkInvalidCall(subject: Context, spec: CallSpec, how: Breakage, pick: number): boolean {
  const c = buildCall(spec);
  const args = breakCall(c, how, pick);
  if (!args) return false;
  const names = new Set([...Object.keys(args), ...Object.keys(c.args), 'args']);
  assert.throws(() => runOp(subject, spec.op, args), (e: unknown) => {
    assert.ok(e instanceof MyriadError, `${how}: expected a MyriadError, got ${String(e)}`);
    assert.ok(e.argument !== undefined, `${how}: the error names no argument: ${e.message}`);
    const head = e.argument.split(/[.[]/)[0]!;
    assert.ok(names.has(head), `${how}: '${e.argument}' is not an argument of the call (${e.message})`);
    if (how === 'ipiv') assert.equal(head, 'ipiv', `ipiv: the error names ${e.argument} (${e.message})`);
    return true;
  });
  for (const [buf, before] of c.before) assert.deepEqual(bytesOf(buf), before, `${how}: a buffer changed`);
  return true;
}

// ---------------------------------------------------------------------------------------------
// Overlap

/** The bytes [start, end) of every element of a view, as "buffer-identity:byte" keys. */
function bytesTouched(v: MatrixView<FloatArray>, order: Order, into: Set<string>, ids: Map<ArrayBufferLike, number>): void {
  const id = ids.get(v.data.buffer) ?? ids.size;
  ids.set(v.data.buffer, id);
  const w = v.data.BYTES_PER_ELEMENT;
  for (let i = 0; i < v.rows; i++) for (let j = 0; j < v.cols; j++) {
    const e = v.data.byteOffset + at(v, order, i, j) * w;
    for (let q = 0; q < w; q++) into.add(`${id}:${e + q}`);
  }
}

/**
 * Property 3: an output sharing memory with another argument is rejected (LAYOUT, naming one of
 * the two and mentioning the other) with no buffer changed; the same placement without a shared
 * byte is accepted. The output's first matrix and the other argument's first matrix (or its
 * info/ipiv array) are moved into one buffer, `shift` elements apart.
 */
export function checkOverlapCall(subject: Context, spec: CallSpec, pick: number, shift: number): boolean {
  const c = buildCall(spec);
  const outputs = c.placed.filter((p) => p.output && p.views.length > 0 && p.views[0]!.rows * p.views[0]!.cols > 0);
  if (outputs.length === 0) return false;
  const x = outputs[pick % outputs.length]!;
  const others: { name: string; kind: 'batch' | 'ints'; p?: Placed }[] = [
    ...c.placed.filter((q) => q !== x && q.views.length > 0 && q.views[0]!.rows * q.views[0]!.cols > 0).map((q): { name: string; kind: 'batch'; p: Placed } => ({ name: q.name, kind: 'batch', p: q })),
    ...(HAS_INFO.has(spec.op) ? [{ name: 'info', kind: 'ints' as const }] : []),
  ];
  if (others.length === 0) return false;
  const y = others[Math.floor(pick / outputs.length) % others.length]!;
  const x0 = x.views[0]!;
  const xFoot = footprint(x0.rows, x0.cols, x0.ld, x.order);
  const yLen = y.p ? footprint(y.p.views[0]!.rows, y.p.views[0]!.cols, y.p.views[0]!.ld, y.p.order) : spec.dims.length;
  const d = shift % (xFoot + 2);
  const joint = allocate(realOnly(spec), Math.max(xFoot, d + yLen) + 4);
  const args = { ...c.args };
  // X's first matrix at 0 in the joint buffer (its values copied), the rest where they were.
  const xViews = x.views.map((v, i) => (i === 0 ? { ...v, data: joint, offset: 0 } : v));
  for (let i = 0; i < x0.rows; i++) for (let j = 0; j < x0.cols; j++) joint[at(xViews[0]!, x.order, i, j)] = x0.data[at(x0, x.order, i, j)]!;
  args[x.name] = variable(xViews.map((v) => ({ data: v.data, rows: v.rows, cols: v.cols, ld: v.ld, offset: v.offset })), { order: x.order });
  const ids = new Map<ArrayBufferLike, number>();
  const xBytes = new Set<string>();
  bytesTouched(xViews[0]!, x.order, xBytes, ids);
  const yBytes = new Set<string>();
  if (y.p) {
    const y0 = y.p.views[0]!;
    const yViews = y.p.views.map((v, i) => (i === 0 ? { ...v, data: joint, offset: d } : v));
    for (let i = 0; i < y0.rows; i++) for (let j = 0; j < y0.cols; j++) joint[at(yViews[0]!, y.p.order, i, j)] = y0.data[at(y0, y.p.order, i, j)]!;
    args[y.name] = variable(yViews.map((v) => ({ data: v.data, rows: v.rows, cols: v.cols, ld: v.ld, offset: v.offset })), { order: y.p.order });
    bytesTouched(yViews[0]!, y.p.order, yBytes, ids);
  } else {
    const byteOffset = d * joint.BYTES_PER_ELEMENT;
    const info = new Int32Array(joint.buffer, byteOffset, spec.dims.length);
    args['info'] = info;
    const id = ids.get(joint.buffer) ?? ids.size;
    ids.set(joint.buffer, id);
    for (let q = 0; q < info.byteLength; q++) yBytes.add(`${id}:${byteOffset + q}`);
  }
  const shared = [...xBytes].some((b) => yBytes.has(b));
  const snapshot = [joint, ...c.placed.flatMap((p) => p.buffers)].map((b) => [b, bytesOf(b)] as const);
  if (shared) {
    assert.throws(() => runOp(subject, spec.op, args), (e: unknown) => {
      assert.ok(e instanceof MyriadError && e.code === 'LAYOUT', `expected LAYOUT for ${x.name} over ${y.name}, got ${String(e)}`);
      const head = e.argument?.split(/[.[]/)[0];
      assert.ok(head === x.name || head === y.name, `the error names ${e.argument}, not ${x.name} or ${y.name}`);
      assert.match(e.message, new RegExp(`\\b${head === x.name ? y.name : x.name}\\b`), 'the message names the other argument');
      return true;
    });
    for (const [b, before] of snapshot) assert.deepEqual(bytesOf(b), before, 'a buffer changed');
  } else {
    try {
      runOp(subject, spec.op, args);
    } catch (e) {
      assert.ok(!(e instanceof MyriadError && e.code === 'LAYOUT'), `no byte is shared, yet: ${String(e)}`);
    }
  }
  return true;
}

/** Options for fc.assert: a fixed seed and a bounded number of runs (reproducible, bounded time). */
export const runs = (numRuns: number, seed: number): fc.Parameters<unknown> => ({ numRuns, seed });
