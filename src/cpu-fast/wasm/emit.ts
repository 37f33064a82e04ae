/**
 * A small WebAssembly binary emitter: enough of the format for our generated kernels (one
 * imported memory, functions of numbers, structured control flow, scalar and 128-bit SIMD
 * arithmetic), so that kernels are emitted per size from TypeScript with no toolchain at the
 * user's end. Opcodes and encodings from the WebAssembly core spec 2.0 (sections 5.3-5.5).
 */

import { OP, SIMD } from './opcodes.js';

export type ValType = 'i32' | 'f32' | 'f64' | 'v128';
const VALTYPE: Readonly<Record<ValType, number>> = { i32: 0x7f, f32: 0x7d, f64: 0x7c, v128: 0x7b };

export function uleb(n: number, out: number[] = []): number[] {
  // One byte for 0-127 (nearly every local index and opcode): the common case without the loop.
  if (n >= 0 && n < 0x80) {
    out.push(n);
    return out;
  }
  do {
    let byte = n & 0x7f;
    n = Math.floor(n / 128);
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

export function sleb(n: number, out: number[] = []): number[] {
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}

const SCRATCH_F64 = new Float64Array(2);
const SCRATCH_I64 = new BigInt64Array(SCRATCH_F64.buffer);
const SCRATCH_BYTES = new Uint8Array(SCRATCH_F64.buffer);

/**
 * The parts laid end to end in one byte array: each part copied by one native `set`, never byte
 * by byte (a first call runs this in V8's interpreter, where pushing the few thousand bytes of a
 * kernel through four nested sections one at a time cost 5-15 ms per module, measured on the
 * 2-core EPYC: most of a first posv 8 x 100,000's generation time).
 */
function concat(parts: readonly (readonly number[] | Uint8Array)[]): Uint8Array<ArrayBuffer> {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The body of one function: locals are declared as they are asked for. */
export class Code {
  readonly bytes: number[] = [];
  private readonly localTypes: ValType[] = [];
  constructor(private readonly params: readonly ValType[]) {}

  /** A new local of this type; returns its index. */
  local(type: ValType): number {
    this.localTypes.push(type);
    return this.params.length + this.localTypes.length - 1;
  }
  // Bytes are appended one by one, never by spreading into push, and no method takes a rest
  // parameter: in V8's interpreter, where a first call's generator runs, each spread or rest
  // array cost 0.5-2 microseconds, and a kernel of a few thousand instructions took 15-30 ms to
  // emit (most of a first call's overhead at small n on the 2-core EPYC, 2026-11-26: docs/cpu-backend.md).
  /** One to three bytes (opcodes and their small immediates). */
  op(b0: number, b1?: number, b2?: number): this {
    this.bytes.push(b0);
    if (b1 !== undefined) this.bytes.push(b1);
    if (b2 !== undefined) this.bytes.push(b2);
    return this;
  }
  get(i: number): this { this.bytes.push(OP.localGet); uleb(i, this.bytes); return this; }
  set(i: number): this { this.bytes.push(OP.localSet); uleb(i, this.bytes); return this; }
  tee(i: number): this { this.bytes.push(OP.localTee); uleb(i, this.bytes); return this; }
  i32(v: number): this { this.bytes.push(OP.i32Const); sleb(v | 0, this.bytes); return this; }
  f64(v: number): this {
    SCRATCH_F64[0] = v;
    this.bytes.push(OP.f64Const);
    for (let k = 0; k < 8; k++) this.bytes.push(SCRATCH_BYTES[k]!);
    return this;
  }
  /** v128.const of two float64 lanes (`hi` defaults to `lo`). */
  f64x2(lo: number, hi = lo): this {
    SCRATCH_F64[0] = lo;
    SCRATCH_F64[1] = hi;
    this.simd(SIMD.v128Const);
    for (let k = 0; k < 16; k++) this.bytes.push(SCRATCH_BYTES[k]!);
    return this;
  }
  /** v128.const of two int64 lanes holding small integers (`hi` defaults to `lo`). */
  i64x2(lo: number, hi = lo): this {
    SCRATCH_I64[0] = BigInt(lo);
    SCRATCH_I64[1] = BigInt(hi);
    this.simd(SIMD.v128Const);
    for (let k = 0; k < 16; k++) this.bytes.push(SCRATCH_BYTES[k]!);
    return this;
  }
  /** SIMD instruction (prefix 0xfd, LEB opcode), with its immediate bytes (a lane index, or a shuffle's 16 lanes). */
  simd(opcode: number, imm?: number | readonly number[]): this {
    this.bytes.push(OP.simdPrefix);
    uleb(opcode, this.bytes);
    if (typeof imm === 'number') this.bytes.push(imm);
    else if (imm) for (let k = 0; k < imm.length; k++) this.bytes.push(imm[k]!);
    return this;
  }
  /** memarg: alignment exponent, byte offset. */
  mem(opcode: number, align: number, offset: number): this {
    this.bytes.push(opcode);
    uleb(align, this.bytes);
    uleb(offset, this.bytes);
    return this;
  }
  simdMem(opcode: number, align: number, offset: number): this {
    this.simd(opcode);
    uleb(align, this.bytes);
    uleb(offset, this.bytes);
    return this;
  }
  /** A SIMD lane load or store: memarg, then the lane index. */
  simdMemLane(opcode: number, align: number, offset: number, lane: number): this {
    this.simdMem(opcode, align, offset);
    this.bytes.push(lane);
    return this;
  }

  /** if / else / end around two emitters (the condition is on the stack). */
  if_(then: () => void, otherwise?: () => void): this {
    this.op(OP.if, OP.void);
    then();
    if (otherwise) {
      this.op(OP.else);
      otherwise();
    }
    return this.op(OP.end);
  }
  /** A do-while loop: `body` leaves an i32 on the stack, non-zero to go round again. */
  loop_(body: () => void): this {
    this.op(OP.loop, OP.void);
    body();
    return this.op(OP.brIf, 0, OP.end);
  }

  /** Encoded body: its size, local declarations (runs of one type), code, end. */
  encode(): Uint8Array<ArrayBuffer> {
    const groups: [number, ValType][] = [];
    for (const t of this.localTypes) {
      const last = groups[groups.length - 1];
      if (last && last[1] === t) last[0]++;
      else groups.push([1, t]);
    }
    const locals = uleb(groups.length);
    for (const [count, t] of groups) {
      uleb(count, locals);
      locals.push(VALTYPE[t]);
    }
    return concat([uleb(locals.length + this.bytes.length + 1), locals, this.bytes, [OP.end]]);
  }
}

export interface FunctionDef { name: string; params: readonly ValType[]; results: readonly ValType[]; code: Code }

function section(id: number, content: readonly (readonly number[] | Uint8Array)[]): Uint8Array<ArrayBuffer> {
  let length = 0;
  for (const p of content) length += p.length;
  return concat([uleb(length, [id]), ...content]);
}
function name(s: string): number[] {
  const b = [...new TextEncoder().encode(s)];
  return [...uleb(b.length), ...b];
}

/** A module importing memory "env"."mem" and exporting the functions by name. */
export function encodeModule(functions: readonly FunctionDef[]): Uint8Array<ArrayBuffer> {
  const types: number[] = [...uleb(functions.length)];
  for (const f of functions) {
    types.push(0x60, ...uleb(f.params.length), ...f.params.map((t) => VALTYPE[t]), ...uleb(f.results.length), ...f.results.map((t) => VALTYPE[t]));
  }
  const imports = [...uleb(1), ...name('env'), ...name('mem'), 0x02, 0x00, ...uleb(1)];
  const funcs = [...uleb(functions.length), ...functions.flatMap((_, i) => uleb(i))];
  const exports = [...uleb(functions.length), ...functions.flatMap((f, i) => [...name(f.name), 0x00, ...uleb(i)])];
  const code = [uleb(functions.length), ...functions.map((f) => f.code.encode())];
  return concat([
    [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    section(1, [types]), section(2, [imports]), section(3, [funcs]), section(7, [exports]), section(10, code),
  ]);
}
