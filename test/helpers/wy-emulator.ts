/**
 * A device for the blocked QR drivers without a GPU: memory is host arrays at distinct fake
 * addresses (views share them, pointer arrays hold those addresses), and each kernel the drivers
 * launch is emulated in TypeScript from its entry name and arguments, with the CUDA kernels'
 * semantics: the shared-memory QR kernels (qr_geqrf_*, qr_orgqr_*: the CPU reference's geqr2 and
 * org2r on the view, sizes from the name), common/wy.ts's wy_factor_* (V and Y = V op(T), the
 * dlarft recurrence) and wy_laset_*, and the gemm family's kernels (gemm_*: transposes, operand
 * forms and, for the small design, sizes from the name). So the drivers' views, offsets, orders,
 * chunking and GEMM operands are checked for real; the CUDA text of each kernel is checked by nvcc
 * and by its own tests.
 */
import { geqr2, org2r } from '../../src/cpu/lapack/qr.js';
import type { DeviceArray, DeviceDType, DeviceInfo, GpuDevice, GpuEvent, HostArray, Kernel, KernelArg, KernelSource, LaunchConfig } from '../../src/cuda/runtime/types.js';

type Typed = Float64Array | Float32Array | Int32Array | BigInt64Array;

class EmuArray implements DeviceArray {
  readonly kind = 'device' as const;
  disposed = false;
  readonly device = 0;
  constructor(readonly dtype: DeviceDType, readonly length: number, readonly ptr: bigint, readonly host: Typed) {}
  get byteLength(): number { return this.host.byteLength; }
  dispose(): void { this.disposed = true; }
}

const make = (dtype: DeviceDType, n: number): Typed =>
  dtype === 'float64' ? new Float64Array(n) : dtype === 'float32' ? new Float32Array(n) : dtype === 'int32' ? new Int32Array(n) : new BigInt64Array(n);
const dtypeOf = (h: HostArray): DeviceDType =>
  h instanceof Float64Array ? 'float64' : h instanceof Float32Array ? 'float32' : h instanceof Int32Array ? 'int32' : 'int64';

/** A float operand of a kernel: element `e` of matrix `mat` (already including the view offset). */
interface Operand { at(mat: number): { arr: Float64Array | Float32Array; base: number }; ld: number }

export class EmuDevice implements GpuDevice {
  readonly info: DeviceInfo;
  readonly streamHandle = null;
  /** Entry names of every launch, in order. */
  readonly launches: string[] = [];
  private next = 1n << 20n;
  private readonly blocks: { ptr: bigint; end: bigint; host: Typed }[] = [];
  constructor(sharedPerBlockOptin = 232448) {
    this.info = { ordinal: 0, name: 'Emulated GPU', arch: 'sm_90', major: 9, minor: 0, smCount: 132, warpSize: 32, maxThreadsPerBlock: 1024, maxThreadsPerSM: 2048, maxBlocksPerSM: 32, regsPerBlock: 65536, regsPerSM: 65536, sharedPerBlock: 49152, sharedPerBlockOptin, sharedPerSM: 233472, clockKHz: 1e6, memoryClockKHz: 1e6, memoryBusWidthBits: 1024, l2Bytes: 1 << 20, totalMemoryBytes: 1 << 30 };
  }
  alloc(dtype: DeviceDType, length: number): EmuArray {
    const host = make(dtype, length);
    const ptr = this.next;
    this.next += BigInt(Math.ceil((host.byteLength + 1) / 256) * 256 + 256);
    this.blocks.push({ ptr, end: ptr + BigInt(host.byteLength), host });
    return new EmuArray(dtype, length, ptr, host);
  }
  private own(a: DeviceArray): EmuArray {
    if (!(a instanceof EmuArray) || a.disposed) throw new Error('not a live array of this device');
    return a;
  }
  upload(host: HostArray, dst?: DeviceArray): EmuArray {
    const d = dst ? this.own(dst) : this.alloc(dtypeOf(host), host.length);
    (d.host as Float64Array).set(host as Float64Array);
    return d;
  }
  download(src: DeviceArray, dst?: HostArray): HostArray {
    const s = this.own(src);
    const out = dst ?? make(s.dtype, s.length);
    (out as Float64Array).set((s.host as Float64Array).subarray(0, out.length));
    return out;
  }
  copy(src: DeviceArray, so: number, dst: DeviceArray, d0: number, n: number): void {
    (this.own(dst).host as Float64Array).set((this.own(src).host as Float64Array).subarray(so, so + n), d0);
  }
  fill(dst: DeviceArray, byte: number): void { const h = this.own(dst).host; new Uint8Array(h.buffer, h.byteOffset, h.byteLength).fill(byte); }
  view(array: DeviceArray, start: number, length: number, dtype?: DeviceDType): EmuArray {
    const a = this.own(array);
    const t = dtype ?? a.dtype;
    const ctor = make(t, 0).constructor as new (b: ArrayBufferLike, offset: number, length: number) => Typed;
    const host = new ctor(a.host.buffer, a.host.byteOffset + start * a.host.BYTES_PER_ELEMENT, length);
    return new EmuArray(t, length, a.ptr + BigInt(start * a.host.BYTES_PER_ELEMENT), host);
  }
  pin(): boolean { return false; }
  uploadRange(): void { throw new Error('not emulated'); }
  awaitUploads(): void {}
  downloadRange(): void { throw new Error('not emulated'); }
  async idle(): Promise<void> {}
  event(): GpuEvent { throw new Error('not emulated'); }
  synchronize(): void {}
  record(): never { throw new Error('not emulated'); }
  dispose(): void {}

  /**
   * The typed array and element index an address points into, read as `as` (a kernel sees its
   * pointer's type, whatever the allocation's: the device workspace is float64 and is cut into
   * views of every dtype); the allocation's own type by default.
   */
  private resolve(ptr: bigint, as?: DeviceDType): { host: Typed; index: number } {
    for (const b of this.blocks) {
      if (ptr >= b.ptr && ptr < b.end) {
        const bytes = Number(ptr - b.ptr);
        const host = as === undefined || as === dtypeOf(b.host) ? b.host
          : (() => { const ctor = make(as, 0).constructor as new (x: ArrayBufferLike, o: number, l: number) => Typed;
            const size = make(as, 0).BYTES_PER_ELEMENT;
            return new ctor(b.host.buffer, b.host.byteOffset, Math.floor(b.host.byteLength / size)); })();
        return { host, index: bytes / host.BYTES_PER_ELEMENT };
      }
    }
    throw new Error(`address ${ptr} outside every array`);
  }

  kernel(src: KernelSource): Kernel {
    const dev = this;
    return {
      name: src.entry, registers: 32, staticSharedBytes: 0, localBytes: 0, maxThreadsPerBlock: 1024,
      launch(config: LaunchConfig, args: readonly KernelArg[]): void {
        dev.launches.push(src.entry);
        dev.run(src.entry, config, args);
      },
    } as Kernel;
  }

  private operand(args: readonly KernelArg[], at: number, pointerForm: boolean, bytes: number): Operand {
    const p = BigInt(args[at]!.value);
    const offset = Number(args[at + 1]!.value);
    const stride = Number(args[at + 2]!.value);
    const ld = Number(args[at + 3]!.value);
    return {
      ld,
      at: (mat: number) => {
        let base: bigint;
        if (pointerForm) {
          const r = this.resolve(p + BigInt(mat * 8), 'int64');
          base = (r.host as BigInt64Array)[r.index]! + BigInt(offset * bytes);
        } else {
          base = p + BigInt((offset + mat * stride) * bytes);
        }
        const r = this.resolve(base, bytes === 4 ? 'float32' : 'float64');
        return { arr: r.host as Float64Array, base: r.index };
      },
    };
  }

  private run(entry: string, config: LaunchConfig, args: readonly KernelArg[]): void {
    const f32 = /^(qr_\w+?_s_|wy_\w+?_s_|gemm_(small|tiled)_s|gemm_mma_s)/.test(entry);
    const bytes = f32 ? 4 : 8;
    const round = (x: number): number => (f32 ? Math.fround(x) : x);
    let m: RegExpExecArray | null;
    if ((m = /^qr_(geqrf|orgqr)_[ds]_(st|pa)_(\d+)x(\d+)k(\d+)_/.exec(entry)) !== null) {
      const [op, form, M, N, K] = [m[1]!, m[2]!, Number(m[3]), Number(m[4]), Number(m[5])];
      const A = this.operand(args, 0, form === 'pa', bytes);
      const T = this.operand(args, 4, form === 'pa', bytes);
      const geqrf = op === 'geqrf';
      const info = geqrf ? BigInt(args[8]!.value) : 0n;
      const index = BigInt(args[geqrf ? 9 : 8]!.value);
      const count = Number(args[geqrf ? 10 : 9]!.value);
      for (let mat = 0; mat < count; mat++) {
        const a = A.at(mat), t = T.at(mat);
        const x = new Float64Array(M * N);
        for (let j = 0; j < (geqrf ? N : K); j++) for (let i = 0; i < M; i++) x[i + j * M] = a.arr[a.base + i + j * A.ld]!;
        const tau = new Float64Array(Math.max(K, 1));
        if (geqrf) geqr2(x, tau, M, N);
        else { for (let j = 0; j < K; j++) tau[j] = t.arr[t.base + j]!; org2r(x, tau, M, N, K); }
        for (let j = 0; j < N; j++) for (let i = 0; i < M; i++) a.arr[a.base + i + j * A.ld] = round(x[i + j * M]!);
        if (geqrf) {
          for (let j = 0; j < K; j++) t.arr[t.base + j] = round(tau[j]!);
          let slot = mat;
          if (index !== 0n) { const r = this.resolve(index + BigInt(mat * 4), 'int32'); slot = (r.host as Int32Array)[r.index]!; }
          const r = this.resolve(info + BigInt(slot * 4), 'int32');
          (r.host as Int32Array)[r.index] = 0;
        }
      }
      return;
    }
    if ((m = /^wy_factor_[ds]_(st|pa)_nb(\d+)(_tt)?$/.exec(entry)) !== null) {
      const form = m[1]!, transT = m[3] !== undefined;
      const A = this.operand(args, 0, form === 'pa', bytes);
      const T = this.operand(args, 4, form === 'pa', bytes);
      const floats = bytes === 4 ? 'float32' : 'float64';
      const V = this.resolve(BigInt(args[8]!.value), floats), Y = this.resolve(BigInt(args[9]!.value), floats);
      const strideW = Number(args[10]!.value), count = Number(args[11]!.value), r = Number(args[12]!.value), ib = Number(args[13]!.value);
      if (config.grid[0] !== count) throw new Error('wy_factor: a block per matrix');
      for (let mat = 0; mat < count; mat++) {
        const a = A.at(mat), t = T.at(mat);
        const v = (i: number, l: number): number => (i > l ? a.arr[a.base + i + l * A.ld]! : i === l ? 1 : 0);
        const G = new Float64Array(ib * ib);
        for (let j = 0; j < ib; j++) for (let l = 0; l < j; l++) {
          let g = 0;
          for (let i = 0; i < r; i++) g += v(i, l) * v(i, j);
          G[l + j * ib] = g;
        }
        const Tm = new Float64Array(ib * ib);
        for (let j = 0; j < ib; j++) {
          const tj = t.arr[t.base + j]!;
          for (let row = 0; row < j; row++) {
            let s = 0;
            for (let l = row; l < j; l++) s += Tm[row + l * ib]! * G[l + j * ib]!;
            Tm[row + j * ib] = round(-tj * s);
          }
          Tm[j + j * ib] = tj;
        }
        for (let j = 0; j < ib; j++) for (let i = 0; i < r; i++) {
          let s = 0;
          for (let l = 0; l < ib; l++) s += v(i, l) * (transT ? Tm[j + l * ib]! : Tm[l + j * ib]!);
          (V.host as Float64Array)[V.index + mat * strideW + i + j * r] = v(i, j);
          (Y.host as Float64Array)[Y.index + mat * strideW + i + j * r] = round(s);
        }
      }
      return;
    }
    if ((m = /^wy_laset_[ds]_(st|pa)$/.exec(entry)) !== null) {
      const A = this.operand(args, 0, m[1] === 'pa', bytes);
      const count = Number(args[4]!.value), rows = Number(args[5]!.value), cols = Number(args[6]!.value), d = Number(args[7]!.value);
      for (let mat = 0; mat < count; mat++) {
        const a = A.at(mat);
        for (let c = 0; c < cols; c++) for (let i = 0; i < rows; i++) a.arr[a.base + i + c * A.ld] = i === c ? d : 0;
      }
      return;
    }
    if ((m = /^gemm_(small|tiled|mma)_[ds]?([NT])([NT])_(?:(\d+)x(\d+)x(\d+)_)?.*_([pds])([pds])([pds])(_b0)?$/.exec(entry)) !== null) {
      const [design, ta, tb] = [m[1]!, m[2]!, m[3]!];
      const forms = [m[7]!, m[8]!, m[9]!];
      const A = this.operand(args, 0, forms[0] === 'p', bytes);
      const B = this.operand(args, 4, forms[1] === 'p', bytes);
      const C = this.operand(args, 8, forms[2] === 'p', bytes);
      const count = Number(args[12]!.value), alpha = Number(args[13]!.value), beta = Number(args[14]!.value);
      const [M, N, K] = design === 'small' ? [Number(m[4]), Number(m[5]), Number(m[6])] : [Number(args[15]!.value), Number(args[16]!.value), Number(args[17]!.value)];
      for (let mat = 0; mat < count; mat++) {
        const a = A.at(mat), b = B.at(mat), c = C.at(mat);
        const av = (i: number, p: number): number => (ta === 'N' ? a.arr[a.base + i + p * A.ld]! : a.arr[a.base + p + i * A.ld]!);
        const bv = (p: number, j: number): number => (tb === 'N' ? b.arr[b.base + p + j * B.ld]! : b.arr[b.base + j + p * B.ld]!);
        const out = new Float64Array(M * N);
        for (let j = 0; j < N; j++) for (let i = 0; i < M; i++) {
          let s = 0;
          for (let p = 0; p < K; p++) s += av(i, p) * bv(p, j);
          out[i + j * M] = alpha * s + (beta === 0 ? 0 : beta * c.arr[c.base + i + j * C.ld]!);
        }
        for (let j = 0; j < N; j++) for (let i = 0; i < M; i++) c.arr[c.base + i + j * C.ld] = round(out[i + j * M]!);
      }
      return;
    }
    throw new Error(`no emulation of kernel ${entry}`);
  }
}
