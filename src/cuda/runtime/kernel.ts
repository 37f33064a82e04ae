/**
 * A loaded kernel: its attributes (cuFuncGetAttribute) and a checked cuLaunchKernel.
 *
 * Where the driver reports the parameter layout (cuFuncGetParamInfo, CUDA 12.4+), arguments are
 * checked against it (a wrong count or size would make the driver read garbage) and written
 * into one native block allocated once per kernel, whose void*[] of parameter addresses is
 * passed as a single pointer: koffi then marshals no array per launch, which measured about
 * 5 us less host time per launch than the array-of-typed-arrays form (kept as the fallback
 * for older drivers). cuLaunchKernel copies the parameters before it returns, so the block can
 * be rewritten by the next launch at once.
 */
import koffi from 'koffi';
import { MyriadError } from '../../core/errors.js';
import type { DeviceContext } from './context.js';
import { CU_FUNC_ATTRIBUTE as F, type CUfunction } from './ffi-cuda.js';
import type { Kernel, LaunchArg, LaunchConfig } from './types.js';

const ARG_BYTES: Readonly<Record<Exclude<LaunchArg['type'], 'bytes'>, number>> = { ptr: 8, i32: 4, i64: 8, f32: 4, f64: 8 };
const argBytes = (a: LaunchArg): number => (a.type === 'bytes' ? a.value.length : ARG_BYTES[a.type]);
/** The packed block's base alignment: a by-value struct of 64-byte alignment (a TMA map) sits at a multiple of 64. */
const PACKED_ALIGN = 64;

interface ParamLayout {
  readonly offsets: readonly number[];
  readonly sizes: readonly number[];
}

/** The native parameter block of one kernel (koffi.alloc'ed, so it never moves). */
interface PackedParams {
  readonly block: unknown;
  readonly pointers: unknown;
  readonly view: DataView;
}

export class CudaKernel implements Kernel {
  readonly registers: number;
  readonly staticSharedBytes: number;
  readonly localBytes: number;
  readonly maxThreadsPerBlock: number;
  /** Parameter sizes in bytes, in order; undefined where the driver cannot report them. */
  readonly paramSizes: readonly number[] | undefined;
  private readonly layout: ParamLayout | undefined;
  private packed: PackedParams | undefined;
  private dynamicSharedLimit: number;

  constructor(
    private readonly context: DeviceContext,
    readonly name: string,
    private readonly fn: CUfunction,
    private readonly sharedOptinLimit: number,
  ) {
    const attr = (attrib: number, what: string): number => {
      const out: [number] = [0];
      context.check(context.api.cuFuncGetAttribute(out, attrib, fn), 'cuFuncGetAttribute', `${what} of ${name}`);
      return out[0];
    };
    this.registers = attr(F.NUM_REGS, 'registers');
    this.staticSharedBytes = attr(F.SHARED_SIZE_BYTES, 'static shared bytes');
    this.localBytes = attr(F.LOCAL_SIZE_BYTES, 'local bytes');
    this.maxThreadsPerBlock = attr(F.MAX_THREADS_PER_BLOCK, 'max threads per block');
    this.dynamicSharedLimit = attr(F.MAX_DYNAMIC_SHARED_SIZE_BYTES, 'max dynamic shared bytes');
    // A compile-time cluster above the portable 8 blocks launches only once the kernel opts in
    // (CUDA guide, "Thread Block Clusters"). Drivers or devices without clusters report an error or
    // 0 for the width: nothing to do.
    const clusterWidth: [number] = [0];
    if (context.api.cuFuncGetAttribute(clusterWidth, F.REQUIRED_CLUSTER_WIDTH, fn) === 0 && clusterWidth[0] > 8) {
      context.check(context.api.cuFuncSetAttribute(fn, F.NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1), 'cuFuncSetAttribute', `a cluster of ${clusterWidth[0]} blocks for ${name}`);
    }
    this.layout = readParamLayout(context, fn);
    this.paramSizes = this.layout?.sizes;
    if (this.layout && process.env['MYRIAD_LAUNCH_PARAMS'] !== 'array') this.packed = allocatePacked(this.layout);
  }

  launch(config: LaunchConfig, args: readonly LaunchArg[]): void {
    const [gx, gy, gz] = config.grid;
    const [bx, by, bz] = config.block;
    checkDim(gx, 2 ** 31 - 1, 'grid[0]');
    checkDim(gy, 65535, 'grid[1]');
    checkDim(gz, 65535, 'grid[2]');
    checkDim(bx, 1024, 'block[0]');
    checkDim(by, 1024, 'block[1]');
    checkDim(bz, 64, 'block[2]');
    if (bx * by * bz > this.maxThreadsPerBlock) {
      throw new MyriadError('INVALID_ARGUMENT', `${bx * by * bz} threads per block, ${this.name} allows ${this.maxThreadsPerBlock}`, 'block');
    }
    const shared = config.sharedBytes ?? 0;
    if (!Number.isSafeInteger(shared) || shared < 0 || shared + this.staticSharedBytes > this.sharedOptinLimit) {
      throw new MyriadError(
        'INVALID_ARGUMENT',
        `${shared} dynamic + ${this.staticSharedBytes} static shared bytes exceed the device's ${this.sharedOptinLimit}`,
        'sharedBytes',
      );
    }
    this.checkSignature(args);
    this.context.activate(); // throws DISPOSED after the device's dispose (the packed block is gone then)
    if (shared > this.dynamicSharedLimit) {
      // Above 48 KiB a kernel must opt in to its dynamic shared memory (CUDA guide, "Shared memory").
      this.context.check(
        this.context.api.cuFuncSetAttribute(this.fn, F.MAX_DYNAMIC_SHARED_SIZE_BYTES, shared),
        'cuFuncSetAttribute',
        `max dynamic shared ${shared} bytes for ${this.name}`,
      );
      this.dynamicSharedLimit = shared;
    }
    const api = this.context.api;
    const stream = this.context.stream;
    let rc: number;
    if (this.packed && this.layout) {
      const { view, pointers } = this.packed;
      const offsets = this.layout.offsets;
      for (let i = 0; i < args.length; i++) writeArg(view, offsets[i] as number, args[i] as LaunchArg, i);
      rc = api.cuLaunchKernelPacked(this.fn, gx, gy, gz, bx, by, bz, shared, stream, pointers, null);
    } else {
      const params = args.map((a, i) => {
        const bytes = new Uint8Array(Math.max(8, argBytes(a)));
        writeArg(new DataView(bytes.buffer), 0, a, i);
        return bytes;
      });
      rc = api.cuLaunchKernel(this.fn, gx, gy, gz, bx, by, bz, shared, stream, params, null);
    }
    this.context.check(rc, 'cuLaunchKernel', `${this.name} grid [${gx},${gy},${gz}] block [${bx},${by},${bz}] shared ${shared}`);
  }

  /** Frees the native parameter block (the device's dispose). */
  release(): void {
    if (!this.packed) return;
    koffi.free(this.packed.block);
    koffi.free(this.packed.pointers);
    this.packed = undefined;
  }

  private checkSignature(args: readonly LaunchArg[]): void {
    const sizes = this.paramSizes;
    if (!sizes) return;
    if (sizes.length !== args.length) {
      throw new MyriadError('INVALID_ARGUMENT', `${this.name} takes ${sizes.length} parameters, got ${args.length}`, 'args');
    }
    for (let i = 0; i < sizes.length; i++) {
      const a = args[i] as LaunchArg;
      if (argBytes(a) !== sizes[i]) {
        throw new MyriadError('INVALID_ARGUMENT', `parameter ${i} of ${this.name} is ${sizes[i]} bytes, got ${a.type}`, `args[${i}]`);
      }
    }
  }
}

function checkDim(v: number, max: number, argument: string): void {
  if (!Number.isInteger(v) || v < 1 || v > max) throw new MyriadError('INVALID_ARGUMENT', `must be an integer in 1..${max}, got ${v}`, argument);
}

const U64_END = 2n ** 64n;
const I64_MIN = -(2n ** 63n);
const I64_END = 2n ** 63n;
const TWO_32 = 2 ** 32;

/** Writes one kernel argument, little-endian as the device reads it, after checking its range. */
function writeArg(view: DataView, offset: number, a: LaunchArg, i: number): void {
  const where = (): string => `args[${i}]`;
  switch (a.type) {
    case 'ptr':
      if (typeof a.value !== 'bigint' || a.value < 0n || a.value >= U64_END) throw new MyriadError('INVALID_ARGUMENT', 'pointer must be a bigint in [0, 2^64)', where());
      view.setBigUint64(offset, a.value, true);
      return;
    case 'i32':
      if (!Number.isInteger(a.value) || a.value < -(2 ** 31) || a.value >= 2 ** 31) throw new MyriadError('INVALID_ARGUMENT', `not an int32: ${a.value}`, where());
      view.setInt32(offset, a.value, true);
      return;
    case 'i64': {
      if (typeof a.value === 'number') {
        // A safe integer as two 32-bit halves: no BigInt per launch (offsets and strides are numbers).
        if (!Number.isSafeInteger(a.value)) throw new MyriadError('INVALID_ARGUMENT', `not an int64: ${String(a.value)}`, where());
        const hi = Math.floor(a.value / TWO_32);
        view.setUint32(offset, a.value - hi * TWO_32, true);
        view.setInt32(offset + 4, hi, true);
        return;
      }
      const v = a.value;
      if (typeof v !== 'bigint' || v < I64_MIN || v >= I64_END) throw new MyriadError('INVALID_ARGUMENT', `not an int64: ${String(a.value)}`, where());
      view.setBigInt64(offset, v, true);
      return;
    }
    case 'f32':
      if (typeof a.value !== 'number') throw new MyriadError('INVALID_ARGUMENT', 'f32 must be a number', where());
      view.setFloat32(offset, a.value, true);
      return;
    case 'f64':
      if (typeof a.value !== 'number') throw new MyriadError('INVALID_ARGUMENT', 'f64 must be a number', where());
      view.setFloat64(offset, a.value, true);
      return;
    case 'bytes':
      if (!(a.value instanceof Uint8Array)) throw new MyriadError('INVALID_ARGUMENT', 'bytes must be a Uint8Array', where());
      new Uint8Array(view.buffer, view.byteOffset + offset, a.value.length).set(a.value);
      return;
    default:
      throw new MyriadError('INVALID_ARGUMENT', `unknown argument type ${(a as { type: string }).type}`, where());
  }
}

/** Parameter offsets and sizes from cuFuncGetParamInfo: indices until the driver says there are no more. */
function readParamLayout(context: DeviceContext, fn: CUfunction): ParamLayout | undefined {
  const info = context.api.cuFuncGetParamInfo;
  if (!info) return undefined;
  const offsets: number[] = [];
  const sizes: number[] = [];
  for (let i = 0; i < 4096; i++) {
    const offset: [number | bigint] = [0];
    const size: [number | bigint] = [0];
    const rc = info(fn, i, offset, size);
    if (rc !== 0) return i === 0 && rc !== 1 ? undefined : { offsets, sizes }; // 1 = CUDA_ERROR_INVALID_VALUE: past the last
    offsets.push(Number(offset[0]));
    sizes.push(Number(size[0]));
  }
  return { offsets, sizes };
}

function allocatePacked(layout: ParamLayout): PackedParams {
  const n = layout.sizes.length;
  const bytes = Math.max(8, ...layout.offsets.map((o, i) => o + (layout.sizes[i] as number)));
  // The parameters from the first multiple of PACKED_ALIGN in the block (the driver copies each
  // from its address; the offsets keep the kernel's own alignment relative to that base).
  const block: unknown = koffi.alloc('uint8_t', bytes + PACKED_ALIGN);
  const pointers: unknown = koffi.alloc('uint64_t', Math.max(1, n));
  const skip = (BigInt(PACKED_ALIGN) - (koffi.address(block) % BigInt(PACKED_ALIGN))) % BigInt(PACKED_ALIGN);
  const base = koffi.address(block) + skip;
  const table = new BigUint64Array(koffi.view(pointers, Math.max(1, n) * 8));
  layout.offsets.forEach((o, i) => (table[i] = base + BigInt(o)));
  return { block, pointers, view: new DataView(koffi.view(block, bytes + PACKED_ALIGN), Number(skip), bytes) };
}
