/**
 * Running the complex QR family's launchers on the host (test/cuda/zqr-host-emulation.test.ts): a
 * recording device whose workspace lies in the matrices' buffer (after them) and whose int32
 * uploads (index maps) are kept, then every recorded launch in order on that buffer: the family's
 * own kernels (the shared kernel, zunm2r, the WY factor) compiled as C++ for the host with
 * zqr-host-harness.cpp, the complex GEMMs with the zgemm harness through zchain.ts, and zlaset and
 * info_zero applied here as their sources say.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DeviceArray, DeviceDType, GpuDevice, HostArray, KernelArg } from '../../src/cuda/runtime/types.js';
import { compileHarnesses, NO_MMA_CARD, operandLine, parseHarnessNumber, RECORDED_BASE, recordingDevice, type HarnessBuild, type Recorded } from './recording-device.js';
import { HARNESSES, runChain, stepsOf, type Step } from './zchain.js';

export const INFO_BASE = 0x2000000n;

/** The recording device with its allocations in the buffer from `base` on; `top()`: the last byte any view reaches. */
export function bufferDevice(recorded: Recorded[], base: bigint, ints: Map<bigint, Int32Array>): { dev: GpuDevice; top: () => bigint } {
  const inner = recordingDevice(recorded, NO_MMA_CARD);
  let next = base;
  let top = base;
  const partBytes = (d: DeviceDType): number => (d === 'float32' || d === 'int32' ? 4 : 8);
  const fake = (dtype: DeviceDType, length: number, ptr: bigint): DeviceArray =>
    ({ kind: 'device', dtype, length, device: 0, ptr, byteLength: length * partBytes(dtype), disposed: false, dispose() {} });
  const dev: GpuDevice = {
    ...inner,
    alloc: (dtype, length) => {
      const a = fake(dtype, length, next);
      next += BigInt(Math.ceil((length * 8 + 256) / 256) * 256);
      return a;
    },
    upload: (host: HostArray) => {
      const d = inner.upload(host);
      if (host instanceof Int32Array) ints.set(d.ptr, host.slice());
      return d;
    },
    view: (a, offset, length, dtype) => {
      const v = fake(dtype ?? a.dtype, length ?? a.length, a.ptr + BigInt(offset * partBytes(a.dtype)));
      const end = v.ptr + BigInt(v.length * partBytes(v.dtype));
      if (end > top) top = end;
      return v;
    },
  };
  return { dev, top: () => top };
}

const num = (x: KernelArg): number => Number(x.value);

/** Strided operands (4 arguments each from argument 0) pointing into the buffer past its base, rebased onto it. */
function folded(r: Recorded, operands: number, bytes: number): Recorded {
  const args: KernelArg[] = [...r.args];
  for (let o = 0; o < operands; o++) {
    const ptr = BigInt(num(args[4 * o]!));
    if (ptr === RECORDED_BASE || r.tables.has(ptr)) continue;
    const d = ptr - RECORDED_BASE;
    assert.ok(d > 0n && d % BigInt(bytes) === 0n, `operand ${o} of ${r.src.entry} in the buffer`);
    args[4 * o] = { type: 'ptr', value: RECORDED_BASE };
    args[4 * o + 1] = { type: 'i64', value: num(args[4 * o + 1]!) + Number(d / BigInt(bytes)) };
  }
  return { ...r, args };
}

type Mine = 'geqrf' | 'orgqr' | 'wy' | 'ormqr' | 'laset' | 'gcheck' | 'gfinish' | 'gmove';
interface MyStep { r: Recorded; mine?: Mine; build?: HarnessBuild; chain?: Step }

function mineOf(entry: string): Mine | undefined {
  if (entry.startsWith('zqr_geqrf_')) return 'geqrf';
  if (entry.startsWith('zqr_orgqr_')) return 'orgqr';
  if (entry.startsWith('zwy_factor_')) return 'wy';
  if (entry.startsWith('zormqr_')) return 'ormqr';
  if (entry.startsWith('zlaset_')) return 'laset';
  if (entry.startsWith('zgels_check_')) return 'gcheck';
  if (entry.startsWith('zgels_finish_')) return 'gfinish';
  if (entry.startsWith('zconj_transpose_')) return 'gmove';
  return undefined;
}

/** Every recorded launch in order on `buf` (len pairs); the int32 arrays by address in `ints` (info written there). */
export async function runRecorded(recorded: readonly Recorded[], buf: Float64Array, len: number, bytes: number, root: string,
  ints: Map<bigint, Int32Array>): Promise<Set<string>> {
  const builds = new Map<string, HarnessBuild>();
  const chainBuilds = new Map<string, HarnessBuild & { key: string }>();
  const entries = new Set<string>();
  const steps: MyStep[] = recorded.map((raw) => {
    entries.add(raw.src.entry);
    const mine = mineOf(raw.src.entry);
    if (mine === undefined) {
      if (raw.src.entry === 'info_zero') return { r: raw };
      return { r: raw, chain: stepsOf([raw], bytes, root, chainBuilds, true)[0]! };
    }
    const operands = mine === 'ormqr' ? 3 : mine === 'laset' ? 1 : mine === 'gcheck' ? 4 : 2;
    const r = folded(raw, operands, bytes);
    if (mine === 'laset') return { r, mine };
    const pointer = r.tables.has(BigInt(num(r.args[0]!)));
    const mode = { geqrf: 'GEQRF', orgqr: 'ORGQR', wy: 'WY', ormqr: 'ORMQR', gcheck: 'GCHECK', gfinish: 'GFINISH', gmove: 'GMOVE' }[mine];
    const own = mine === 'gcheck' || mine === 'gfinish' || mine === 'gmove';
    const forms = own ? Array.from({ length: operands }, (_, o) => (r.tables.has(BigInt(num(r.args[4 * o]!))) ? [`-DP${o}`] : [])).flat() : pointer ? ['-DPA'] : [];
    const defines = [`-DENTRY=${r.src.entry}`, `-D${mode}`, ...forms];
    const key = defines.join(' ') + '/' + r.src.source.length;
    let build = builds.get(key);
    if (build === undefined) {
      const dir = join(root, `z${builds.size}`);
      mkdirSync(dir, { recursive: true });
      const source = mine === 'ormqr'
        ? r.src.source.replace('extern __shared__ __align__(16) unsigned char smemBytes[];', 'unsigned char* smemBytes = g_shared;')
        : r.src.source;
      writeFileSync(join(dir, 'kernel.cu'), source);
      build = { defines, dir, exe: join(dir, 'h') };
      builds.set(key, build);
    }
    return { r, mine, build };
  });
  await compileHarnesses(resolve('test/helpers/zqr-host-harness.cpp'), [...builds.values()]);
  const gemm = [...chainBuilds.values()].filter((b) => b.key.startsWith('zgemm/'));
  if (gemm.length > 0) await compileHarnesses(resolve(`test/helpers/${HARNESSES.zgemm}`), gemm);
  const trsm = [...chainBuilds.values()].filter((b) => b.key.startsWith('ztrsm/'));
  if (trsm.length > 0) await compileHarnesses(resolve(`test/helpers/${HARNESSES.ztrsm}`), trsm);
  assert.equal(gemm.length + trsm.length, chainBuilds.size, 'only complex GEMMs and triangular solves besides the family\'s kernels');

  const pairs = (): string => Array.from({ length: len }, (_, e) => `${buf[2 * e]} ${buf[2 * e + 1]}`).join('\n');
  const elementOf = (ptr: bigint): number => {
    const d = ptr - RECORDED_BASE;
    assert.ok(d >= 0n && d % BigInt(bytes) === 0n, 'a workspace pointer in the buffer');
    return Number(d / BigInt(bytes));
  };
  for (const s of steps) {
    const { r } = s;
    const { args, config } = r;
    if (s.chain !== undefined) {
      runChain([s.chain], buf, len, bytes, ints);
      continue;
    }
    if (s.mine === undefined) {
      // info_zero(info, index, count): info[index ? index[q] : q] = 0.
      const info = ints.get(BigInt(num(args[0]!)));
      assert.ok(info !== undefined, 'info_zero: the info array given');
      const index = BigInt(num(args[1]!)) === 0n ? null : ints.get(BigInt(num(args[1]!)))!;
      for (let q = 0; q < num(args[2]!); q++) info[index === null ? q : index[q]!] = 0;
      continue;
    }
    if (s.mine === 'laset') {
      // zlaset(A, count, rows, cols, diagonal), as its source says.
      const [count, rows, cols, diagonal] = [num(args[4]!), num(args[5]!), num(args[6]!), num(args[7]!)];
      const table = r.tables.get(BigInt(num(args[0]!)));
      const [off, stride, ld] = [num(args[1]!), num(args[2]!), num(args[3]!)];
      for (let q = 0; q < count; q++) {
        const start = (table === undefined ? q * stride : elementOf(table[q]!)) + off;
        for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) {
          const e = start + i + j * ld;
          buf[2 * e] = i === j ? diagonal : 0;
          buf[2 * e + 1] = 0;
        }
      }
      continue;
    }
    const lines = (n: number): string[] => Array.from({ length: n }, (_, o) => operandLine(r, o, bytes).line);
    const intsAt = (ptr: bigint, count: number): Int32Array => {
      let x = ints.get(ptr);
      if (x === undefined || x.length < count) ints.set(ptr, (x = new Int32Array(count).fill(-99)));
      return x;
    };
    const run = (input: string[], extra: number): number[] => {
      const out = spawnSync(s.build!.exe, { input: [...input, pairs()].join('\n') + '\n', maxBuffer: 1 << 28, timeout: 600_000 });
      assert.equal(out.status, 0, `${r.src.entry}: harness exit ${out.status} ${out.stderr?.toString()}`);
      const nums = out.stdout.toString().trim().split(/\s+/).map(parseHarnessNumber);
      assert.equal(nums.length, 2 * len + extra, `${r.src.entry}: the buffer back`);
      buf.set(nums.slice(0, 2 * len));
      return nums.slice(2 * len);
    };
    if (s.mine === 'gcheck') {
      // (F, T, B, W, info, index, count, status, k, nrhs)
      const count = num(args[18]!);
      const info = intsAt(BigInt(num(args[16]!)), count);
      const indexPtr = BigInt(num(args[17]!));
      const index = indexPtr === 0n ? null : ints.get(indexPtr)!;
      const statusPtr = BigInt(num(args[19]!));
      const back = run([`${config.grid[0]} 1 ${config.block[0]} ${count} ${len}`, ...lines(4), `${num(args[20]!)} ${num(args[21]!)} ${index === null ? 0 : 1} ${info.length}`,
        ...(index === null ? [] : [Array.from(index, String).join(' ')]), Array.from(info, String).join(' ')], info.length + count);
      info.set(back.slice(0, info.length));
      ints.set(statusPtr, Int32Array.from(back.slice(info.length)));
      continue;
    }
    if (s.mine === 'gfinish') {
      // (B, W, status, count, rows, nrhs, edge)
      const count = num(args[9]!);
      const status = ints.get(BigInt(num(args[8]!)));
      assert.ok(status !== undefined, 'gels finish: the states the check wrote');
      run([`${config.grid[0]} 1 ${config.block[0]} ${count} ${len}`, ...lines(2), `${num(args[10]!)} ${num(args[11]!)} ${num(args[12]!)}`, Array.from(status.subarray(0, count), String).join(' ')], 0);
      continue;
    }
    if (s.mine === 'gmove') {
      // (A, B, count, rows, cols)
      run([`${config.grid[0]} 1 ${config.block[0]} ${num(args[8]!)} ${len}`, ...lines(2), `${num(args[9]!)} ${num(args[10]!)}`], 0);
      continue;
    }
    let input: string[];
    let infoPtr: bigint | undefined;
    if (s.mine === 'ormqr') {
      const count = num(args[12]!);
      input = [`${config.grid[0]} ${config.block[1]} ${config.block[0]} ${count} ${len}`, ...lines(3),
        `${num(args[13]!)} ${num(args[14]!)} ${num(args[15]!)} ${num(args[16]!)} ${config.sharedBytes ?? 0}`];
    } else if (s.mine === 'wy') {
      const count = num(args[11]!);
      input = [`${config.grid[0]} 1 ${config.block[0]} ${count} ${len}`, ...lines(2),
        `${elementOf(BigInt(num(args[8]!)))} ${elementOf(BigInt(num(args[9]!)))} ${num(args[10]!)} ${num(args[12]!)} ${num(args[13]!)}`];
    } else {
      const geqrf = s.mine === 'geqrf';
      const count = num(args[geqrf ? 10 : 9]!);
      const indexPtr = BigInt(num(args[geqrf ? 9 : 8]!));
      const index = indexPtr === 0n ? null : ints.get(indexPtr);
      assert.ok(index !== undefined, 'the index map uploaded');
      let info: Int32Array = new Int32Array(0);
      if (geqrf) {
        infoPtr = BigInt(num(args[8]!));
        info = intsAt(infoPtr, index === null ? count : Math.max(...index) + 1);
      }
      input = [`${config.grid[0]} 1 ${config.block[0]} ${count} ${len}`, ...lines(2),
        `${index === null ? 0 : 1} ${info.length}`, ...(index === null ? [] : [Array.from(index, String).join(' ')]), Array.from(info, String).join(' ')];
    }
    const out = spawnSync(s.build!.exe, { input: [...input, pairs()].join('\n') + '\n', maxBuffer: 1 << 28, timeout: 600_000 });
    assert.equal(out.status, 0, `${r.src.entry}: harness exit ${out.status} ${out.stderr?.toString()}`);
    const nums = out.stdout.toString().trim().split(/\s+/).map(parseHarnessNumber);
    const info = infoPtr === undefined ? undefined : ints.get(infoPtr)!;
    assert.equal(nums.length, 2 * len + (info?.length ?? 0), `${r.src.entry}: the buffer back`);
    buf.set(nums.slice(0, 2 * len));
    if (info !== undefined) info.set(nums.slice(2 * len));
  }
  return entries;
}
