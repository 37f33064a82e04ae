/**
 * The complex chains of the host-emulation tests (test/cuda/zcholesky-chain-host-emulation.test.ts,
 * zvariable-host-emulation.test.ts, zinverse-host-emulation.test.ts, ztrmm-host-emulation.test.ts): a launcher's recorded launches
 * run in order on one buffer, each generated kernel compiled as C++ for the host with its family's
 * harness (ztrsm, zherk, zpotrf, zgemm, zlu and zinverse-host-harness.cpp), the small integer and copy
 * kernels (info_zero, the combine, the copy of common/matrix-copy.ts, the integer move of
 * common/int-move.ts) applied here as their sources say.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { list, strided, type Batch } from '../../src/core/batch.js';
import type { Storage } from '../../src/core/storage.js';
import type { KernelArg } from '../../src/cuda/runtime/types.js';
import type { Rng } from './random.js';
import { operandLine, parseHarnessNumber, RECORDED_BASE, type HarnessBuild, type Recorded } from './recording-device.js';

export interface Step {
  r: Recorded;
  family: 'ztrsm' | 'ztrmm' | 'zherk' | 'zsyrk' | 'zpotrf' | 'zgemm' | 'zlu' | 'zinv-scan' | 'zinv-move' | 'zinv-columns' | 'info_zero' | 'combine' | 'copy' | 'int_move' | 'upload';
  build?: HarnessBuild & { key: string };
  /** An upload's int32 contents (a recording device that records uploads as steps: entry INT32_UPLOAD, args[0] the target). */
  ints?: Int32Array;
}

/** The entry of a recorded int32 upload into device memory (stream-ordered, as the device's uploads are). */
export const INT32_UPLOAD = 'int32_upload';

export const HARNESSES = {
  ztrsm: 'ztrsm-host-harness.cpp', zherk: 'zherk-host-harness.cpp',
  // The complex trmm kernels take the trsm kernels' arguments; zsyrk's are zherk's with complex alpha and beta (-DSYRK).
  ztrmm: 'ztrsm-host-harness.cpp', zsyrk: 'zherk-host-harness.cpp', zpotrf: 'zpotrf-host-harness.cpp', zgemm: 'zgemm-host-harness.cpp', zlu: 'zlu-host-harness.cpp',
  'zinv-scan': 'zinverse-host-harness.cpp', 'zinv-move': 'zinverse-host-harness.cpp', 'zinv-columns': 'zinverse-host-harness.cpp',
} as const;

/** Operands (4 arguments each) of the launches a harness runs. */
const ZINV_OPERANDS = { 'zinv-scan': 1, 'zinv-move': 2, 'zinv-columns': 2 } as const;

function familyOf(entry: string): Step['family'] {
  if (entry === 'info_zero') return 'info_zero';
  if (entry === 'int_move') return 'int_move';
  if (entry === INT32_UPLOAD) return 'upload';
  if (entry === 'potrf_info_combine') return 'combine';
  if (entry.startsWith('copy_all_') || entry.startsWith('copy_failed_')) return 'copy';
  // The complex inverses' own kernels (zinverse/generate-move.ts).
  if (entry.startsWith('zinv_scan_')) return 'zinv-scan';
  if (entry.startsWith('zinv_columns_')) return 'zinv-columns';
  if (entry.startsWith('zinv_')) return 'zinv-move';
  if (entry.startsWith('ztrsm_')) return 'ztrsm';
  if (entry.startsWith('zherk_')) return 'zherk';
  if (entry.startsWith('ztrmm_')) return 'ztrmm';
  if (entry.startsWith('zsyrk_')) return 'zsyrk';
  if (entry.startsWith('zpotrf_')) return 'zpotrf';
  // The complex LU's register designs (complex-lu/: getrf, getrs, gesv to order 32).
  if (/^(getrf|trs|gesv)_[zc]_/.test(entry)) return 'zlu';
  if (entry.includes('gemm')) return 'zgemm';
  throw new Error(`no host harness for ${entry}`);
}

const num = (x: { value: unknown }): number => Number(x.value);

/**
 * Operand `o` of a launch with its strided pointer, if it lies in the buffer past its base, folded into
 * the offset (the harnesses take one base): for a recording device whose allocations (the workspace)
 * are placed in the matrices' buffer.
 */
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

/**
 * The harness builds of a chain's kernels, one per entry and operand forms (compiled once each, in
 * parallel). `fold`: operands allocated in the buffer are rebased onto it (`folded`).
 */
export function stepsOf(recorded: readonly Recorded[], bytes: number, root: string, builds: Map<string, HarnessBuild & { key: string }>, fold = false): Step[] {
  return recorded.map((raw): Step => {
    const family = familyOf(raw.src.entry);
    if (family === 'info_zero' || family === 'combine' || family === 'copy' || family === 'int_move' || family === 'upload') return { r: raw, family };
    const operands = family === 'zgemm' ? 3 : family === 'zpotrf' || (family === 'zlu' && raw.src.entry.startsWith('getrf_')) ? 1
      : family in ZINV_OPERANDS ? ZINV_OPERANDS[family as keyof typeof ZINV_OPERANDS] : 2;
    const r = fold ? folded(raw, operands, bytes) : raw;
    const letters = family === 'zgemm' ? 'ABC' : family === 'zherk' || family === 'zsyrk' ? 'AC' : 'AB';
    const pointer = Array.from({ length: operands }, (_, o) => operandLine(r, o, bytes).pointer);
    const tiled = family === 'zgemm' && /gemm_tiled_/.test(r.src.entry);
    const modes = family === 'zlu' && operands === 2 ? ['-DSOLVE'] : family === 'zsyrk' ? ['-DSYRK'] : family === 'zinv-scan' ? ['-DSCAN'] : family === 'zinv-columns' ? ['-DCOLUMNS'] : [];
    const defines = [`-DENTRY=${r.src.entry}`, ...(tiled ? ['-DTILED'] : []), ...modes, ...pointer.flatMap((p, i) => (p ? [`-DP${letters[i]}`] : []))];
    const key = `${family}/${defines.join(' ')}`;
    let build = builds.get(key);
    if (build === undefined) {
      const dir = join(root, `k${builds.size}`);
      mkdirSync(dir, { recursive: true });
      // zgemm on the host: dynamic shared memory from the harness's buffer, and no L2 prefetch of C (gemm/prefetch-c.ts:
      // PTX the host cannot assemble, and a hint that changes no value).
      const source = family === 'zgemm'
        ? r.src.source.replace(/extern __shared__ __align__\(16\) unsigned char (\w+)\[\];/, 'unsigned char* $1 = g_smem;')
          .replaceAll(/asm volatile\("prefetch\.global\.L2 \[%0\];" :: "l"\((.*?)\)\);/g, '(void)($1);')
        : r.src.source;
      writeFileSync(join(dir, 'kernel.cu'), source);
      build = { key, defines, dir, exe: join(dir, 'h') };
      builds.set(key, build);
    }
    return { r, family, build };
  });
}

/**
 * The copy kernel of common/matrix-copy.ts (posv's B kept aside and copied back), as its source
 * says: block `mid` copies matrix mid of A into B (real elements, the pairs seen as the real batch
 * of their parts), skipped where `copy_failed_` and info is 0. Memory: the buffer at RECORDED_BASE
 * and, for any other base address (the workspace), a region of its own.
 */
function runCopy(r: Recorded, buf: Float64Array, realBytes: number, infos: Map<bigint, Int32Array>, regions: Map<bigint, Float64Array>): void {
  const { args } = r;
  const region = (base: bigint): Float64Array => {
    if (base === RECORDED_BASE) return buf;
    let x = regions.get(base);
    if (x === undefined) regions.set(base, (x = new Float64Array(1 << 22).fill(NaN)));
    return x;
  };
  /** Region and element index of a byte address (a pointer table's entry). */
  const resolveAddress = (addr: bigint): [Float64Array, number] => {
    for (const base of [RECORDED_BASE, ...regions.keys()]) {
      const x = region(base), d = addr - base;
      if (d >= 0n && d < BigInt(x.length * realBytes)) return [x, Number(d / BigInt(realBytes))];
    }
    // First seen through a pointer table: the recording device's allocations start 1 MiB apart (from
    // 0x40000000), and the workspace's views here are small, so the allocation is the MiB below.
    const base = addr - ((addr - 0x40000000n) % 0x100000n);
    assert.ok(addr >= 0x40000000n && !regions.has(base), `address ${addr} in no region`);
    return [region(base), Number((addr - base) / BigInt(realBytes))];
  };
  const operand = (o: number): (mid: number) => [Float64Array, number, number] => {
    const [p, off, stride, ld] = [BigInt(num(args[4 * o]!)), num(args[4 * o + 1]!), num(args[4 * o + 2]!), num(args[4 * o + 3]!)];
    const table = r.tables.get(p);
    if (table !== undefined) return (mid) => { const [x, e] = resolveAddress(table[mid]!); return [x, e + off, ld]; };
    return (mid) => [region(p), off + mid * stride, ld];
  };
  const [from, to] = [operand(0), operand(1)];
  const failedOnly = r.src.entry.startsWith('copy_failed_');
  const info = infos.get(BigInt(num(args[8]!)));
  assert.equal(num(args[9]!), 0, 'no index table');
  const [count, rows, cols] = [num(args[10]!), num(args[11]!), num(args[12]!)];
  for (let mid = 0; mid < count; mid++) {
    if (failedOnly && info![mid] === 0) continue;
    const [xa, ea, lda] = from(mid), [xb, eb, ldb] = to(mid);
    for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) xb[eb + i + j * ldb] = xa[ea + i + j * lda]!;
  }
}

/**
 * Runs the steps on `buf` (2 len numbers), `infos` the int arrays by device address (an array the
 * chain only reads, or writes in part, given by the caller: the batch's info and pivots, the
 * uploaded batch places of shape groups).
 */
export function runChain(steps: readonly Step[], buf: Float64Array, len: number, bytes: number, infos: Map<bigint, Int32Array>): void {
  const regions = new Map<bigint, Float64Array>();
  /** The int32 uploads by their first address (an upload's bytes are only read after it). */
  const uploaded = new Map<bigint, Int32Array>();
  const infoAt = (ptr: bigint, count: number): Int32Array => {
    let a = infos.get(ptr);
    // Workspace bytes are reused by later takes: an array first seen shorter grows.
    if (a === undefined || a.length < count) {
      const grown = new Int32Array(count).fill(-99);
      if (a !== undefined) grown.set(a);
      infos.set(ptr, (a = grown));
    }
    return a;
  };
  /** `count` int32 from `ptr` inside one uploaded array (the shape groups upload every group's places at once). */
  const uploadedAt = (ptr: bigint, count: number): Int32Array | undefined => {
    for (const [base, a] of uploaded) {
      const at = Number(ptr - base) / 4;
      if (ptr >= base && at + count <= a.length) return a.subarray(at, at + count);
    }
    return undefined;
  };
  const pairs = (): string[] => Array.from({ length: len }, (_, e) => `${buf[2 * e]} ${buf[2 * e + 1]}`);
  for (const { r, family, build, ints } of steps) {
    const { args, config } = r;
    if (family === 'upload') {
      infos.set(BigInt(num(args[0]!)), ints!.slice());
      uploaded.set(BigInt(num(args[0]!)), ints!.slice());
      continue;
    }
    if (family === 'info_zero') {
      assert.equal(BigInt(num(args[1]!)), 0n, 'info_zero over the whole batch');
      infoAt(BigInt(num(args[0]!)), num(args[2]!)).fill(0, 0, num(args[2]!));
      continue;
    }
    if (family === 'copy') {
      runCopy(r, buf, bytes / 2, infos, regions);
      continue;
    }
    if (family === 'int_move') {
      // common/int-move.ts, as its source says: between a batch's places and a group's compact array.
      const [count, width, batchStride, groupStride, gather] = args.slice(3).map(num) as [number, number, number, number, number];
      const index = uploadedAt(BigInt(num(args[2]!)), count);
      assert.ok(index !== undefined, 'int_move: its batch places uploaded');
      const batch = infos.get(BigInt(num(args[0]!)));
      assert.ok(batch !== undefined, "int_move: the batch's array given");
      const group = infoAt(BigInt(num(args[1]!)), Math.max(1, count * width));
      for (let q = 0; q < count; q++) for (let j = 0; j < width; j++) {
        const b = index[q]! * batchStride + j, g = q * groupStride + j;
        if (gather) group[g] = batch[b]!; else batch[b] = group[g]!;
      }
      continue;
    }
    if (family === 'combine') {
      const [info, scratch, count, offset] = [infoAt(BigInt(num(args[0]!)), num(args[2]!)), infoAt(BigInt(num(args[1]!)), num(args[2]!)), num(args[2]!), num(args[3]!)];
      for (let i = 0; i < count; i++) if (info[i] === 0 && scratch[i]! > 0) info[i] = offset + scratch[i]!;
      continue;
    }
    const lines = (n: number): string[] => Array.from({ length: n }, (_, o) => operandLine(r, o, bytes).line);
    if (family === 'zlu') {
      // (A[, B], ipiv, pivotStride, info, index, count[, nrhs]); the pivots in and out after the buffer.
      const solve = !r.src.entry.startsWith('getrf_');
      const at = solve ? 8 : 4;
      const [pivPtr, pivotStride, infoAt0, index, count] = [BigInt(num(args[at]!)), num(args[at + 1]!), BigInt(num(args[at + 2]!)), BigInt(num(args[at + 3]!)), num(args[at + 4]!)];
      assert.equal(index, 0n, 'an LU launch over its whole batch (info and pivots at q)');
      const piv = infoAt(pivPtr, Math.max(1, count * pivotStride));
      const input = [`${config.grid[0]} ${config.block[0]} ${count} ${len} ${count * pivotStride} ${pivotStride}`, ...lines(solve ? 2 : 1), ...(solve ? [String(num(args[at + 5]!))] : []),
        ...pairs(), ...Array.from(piv.subarray(0, count * pivotStride), String)];
      const out = spawnSync(build!.exe, { input: input.join('\n') + '\n', maxBuffer: 1 << 28, timeout: 300_000 });
      assert.equal(out.status, 0, `${r.src.entry}: harness exit ${out.status} ${out.stderr?.toString()}`);
      const nums = out.stdout.toString().trim().split(/\s+/).map(parseHarnessNumber);
      assert.equal(nums.length, 2 * len + count * pivotStride + count, `${r.src.entry}: the buffer, pivots and info back`);
      buf.set(nums.slice(0, 2 * len));
      piv.set(nums.slice(2 * len, 2 * len + count * pivotStride));
      infoAt(infoAt0, count).set(nums.slice(2 * len + count * pivotStride));
      continue;
    }
    let input: string[];
    let infoPtr: bigint | undefined;
    let count: number;
    if (family === 'ztrsm' || family === 'ztrmm') {
      count = num(args[9]!);
      input = [`${config.grid[0]} ${config.grid[1]} ${config.block[0]} ${count} ${len}`, ...lines(2), `${num(args[10]!)} ${num(args[11]!)} ${num(args[12]!)}`];
    } else if (family === 'zherk') {
      count = num(args[9]!);
      input = [`${config.grid[0]} ${config.block[0]} ${config.block[1]} ${config.block[2]} ${count} ${len}`, ...lines(2), `${num(args[10]!)} ${num(args[11]!)} ${num(args[12]!)}`];
    } else if (family === 'zsyrk') {
      count = num(args[9]!);
      input = [`${config.grid[0]} ${config.block[0]} ${config.block[1]} ${config.block[2]} ${count} ${len}`, ...lines(2), args.slice(10, 15).map(num).join(' ')];
    } else if (family === 'zpotrf') {
      count = num(args[6]!);
      infoPtr = BigInt(num(args[4]!));
      assert.equal(BigInt(num(args[5]!)), 0n, 'a zpotrf launch over its whole batch (info at q)');
      input = [`${config.grid[0]} ${config.block[0]} ${count} 0 ${len}`, ...lines(1)];
    } else if (family === 'zinv-scan') {
      assert.equal(BigInt(num(args[4]!)), 0n, 'no index table');
      count = num(args[5]!);
      infoPtr = BigInt(num(args[6]!));
      input = [`${config.grid[0]} ${config.block[0]} ${count} ${num(args[7]!)} ${len}`, ...lines(1), ...Array.from(infoAt(infoPtr, count).subarray(0, count), String)];
    } else if (family === 'zinv-columns') {
      // getri's last step: the pivots (an array the caller gives in `infos`) read, W's columns swapped into A.
      assert.equal(BigInt(num(args[11]!)), 0n, 'no index table');
      count = num(args[12]!);
      infoPtr = BigInt(num(args[10]!));
      const pivots = infos.get(BigInt(num(args[8]!)));
      assert.ok(pivots !== undefined, 'zinv_columns: the pivots given');
      input = [`${config.grid[0]} ${config.block[0]} ${count} ${num(args[13]!)} ${len}`, ...lines(2), String(num(args[9]!)), ...Array.from(pivots, String),
        ...Array.from(infoAt(infoPtr, count).subarray(0, count), String)];
    } else if (family === 'zinv-move') {
      assert.equal(BigInt(num(args[9]!)), 0n, 'no index table');
      count = num(args[10]!);
      infoPtr = BigInt(num(args[8]!));
      input = [`${config.grid[0]} ${config.block[0]} ${count} ${num(args[11]!)} ${len}`, ...lines(2), ...Array.from(infoAt(infoPtr, count).subarray(0, count), String)];
    } else {
      count = num(args[12]!);
      const tiled = args.length > 17;
      const [m, n, k] = tiled ? args.slice(17, 20).map(num) : [0, 0, 0];
      input = [`${config.grid[0]} ${config.grid[1]} ${config.grid[2]} ${config.block[0]} ${count} ${m} ${n} ${k} ${len}`, args.slice(13, 17).map(num).join(' '), ...lines(3)];
    }
    const out = spawnSync(build!.exe, { input: [...input, ...pairs()].join('\n') + '\n', maxBuffer: 1 << 28, timeout: 300_000 });
    assert.equal(out.status, 0, `${r.src.entry}: harness exit ${out.status} ${out.stderr?.toString()}`);
    const nums = out.stdout.toString().trim().split(/\s+/).map(parseHarnessNumber);
    assert.equal(nums.length, 2 * len + (infoPtr === undefined ? 0 : count), `${r.src.entry}: the buffer back`);
    buf.set(nums.slice(0, 2 * len));
    if (infoPtr !== undefined) infoAt(infoPtr, count).set(nums.slice(2 * len));
  }
}


/** How a chain test's batch lies in its buffer: strided (a gap of 3 between matrices) or a list (gaps of 1-3). */
export type Form = 'strided' | 'list';
export interface Layout { ld: number; offsets: number[] }

/** `count` rows x cols matrices from `at.next` on (advanced past them), ld rows + 1 or 2. */
export function placeAt(rng: Rng, at: { next: number }, rows: number, cols: number, count: number, form: Form): Layout {
  const ld = rows + (rows % 2 === 0 ? 1 : 2);
  const stride = ld * cols + 3;
  const offsets: number[] = [];
  for (let q = 0; q < count; q++) {
    offsets.push(at.next);
    at.next += form === 'strided' ? stride : ld * cols + rng.int(1, 4);
  }
  return { ld, offsets };
}

/** The complex batch of a layout over `data`. */
export function batchOf<S extends Storage>(data: S, l: Layout, rows: number, cols: number, form: Form, dtype: 'complex128' | 'complex64'): Batch<S> {
  if (form === 'list') return list(l.offsets.map((offset) => ({ data, offset })), { rows, cols, ld: l.ld, dtype });
  const stride = l.offsets.length > 1 ? l.offsets[1]! - l.offsets[0]! : l.ld * cols;
  return strided(data, { rows, cols, ld: l.ld, stride, offset: l.offsets[0]!, count: l.offsets.length, dtype });
}
