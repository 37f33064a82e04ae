/**
 * What the host-emulation tests of generated kernels share: whether they run (opt-in, g++ needed),
 * and a device that runs nothing but records each launch (its kernel source, configuration and
 * arguments) and the pointer tables the launcher uploaded, so that a harness can run the kernel on
 * the host with the same arguments.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import type { DeviceArray, DeviceDType, DeviceInfo, GpuDevice, HostArray, Kernel, KernelArg, KernelSource, LaunchConfig } from '../../src/cuda/runtime/types.js';
import { H100 } from './devices.js';

/** Why the host-emulation tests skip here (undefined: they run): opt-in with MYRIAD_HOST_EMULATION=1, and g++ on PATH. */
export const HOST_EMULATION_SKIP = process.env['MYRIAD_HOST_EMULATION'] === '1'
  ? (spawnSync('g++', ['--version']).status === 0 ? undefined : 'g++ not on PATH')
  : 'opt-in: MYRIAD_HOST_EMULATION=1';

/** What the launcher did on the recording device: the kernel, its launch, and the pointer tables it uploaded. */
export interface Recorded { src: KernelSource; config: LaunchConfig; args: KernelArg[]; tables: Map<bigint, BigInt64Array> }

/** A device that runs nothing: one buffer at BASE holds every matrix; uploads (pointer tables) are kept by address. */
/**
 * The host harnesses have no form of the FP64 tensor-core gemm: a chain that may plan complex gemm
 * (complex128 from 32 runs it on sm_90) records on this card instead, whose table keeps complex gemm
 * on the tiled design.
 */
export const NO_MMA_CARD: DeviceInfo = { ...H100, name: 'Host emulation (sm_80 tables)', arch: 'sm_80', major: 8, minor: 0 };

export function recordingDevice(out: Recorded[], info: DeviceInfo = H100): GpuDevice {
  let next = 0x40000000n;
  const tables = new Map<bigint, BigInt64Array>();
  const fake = (dtype: DeviceDType, length: number, ptr: bigint): DeviceArray => ({ kind: 'device', dtype, length, device: 0, ptr, byteLength: length * 8, disposed: false, dispose() {} });
  return {
    info,
    kernel: (src: KernelSource): Kernel => ({
      name: src.entry, registers: 32, staticSharedBytes: 0, localBytes: 0, maxThreadsPerBlock: 1024,
      launch: (config: LaunchConfig, args: KernelArg[]) => { out.push({ src, config, args, tables }); },
    }),
    alloc: (dtype, length) => fake(dtype, length, (next += 0x100000n)),
    upload: (host: HostArray) => {
      const d = fake('int64', host.length, (next += 0x100000n));
      if (host instanceof BigInt64Array) tables.set(d.ptr, host.slice());
      return d;
    },
    download: () => new Float64Array(0),
    copy() {}, fill() {}, synchronize() {},
    view: (a) => a,
    pin: () => false, uploadRange() {}, awaitUploads() {}, downloadRange() {}, idle: async () => {},
    event: () => { throw new Error('no events'); },
    streamHandle: null,
    dispose() {},
  };
}

const run = promisify(execFile);

/** One case's harness build: its -D defines, the folder of its generated kernel, the executable to write. */
export interface HarnessBuild { readonly defines: readonly string[]; readonly dir: string; readonly exe: string }

/** Compiles `harness` once per build (g++, the generated kernel's folder and test/helpers on the include path), as many at once as there are cores. */
export async function compileHarnesses(harness: string, builds: readonly HarnessBuild[]): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < builds.length) {
      const b = builds[next++]!;
      await run('g++', ['-std=c++20', '-O1', '-pthread', ...b.defines, `-I${b.dir}`, `-I${resolve('test/helpers')}`, harness, '-o', b.exe]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, cpus().length) }, worker));
}

/** The buffer every recorded matrix lies in: its device address on the recording device. */
export const RECORDED_BASE = 0x1000000n;

/**
 * Operand `o` of a recorded launch whose operands come as (pointer, offset, stride, ld) from
 * argument 4 o on, as a harness's input line: "offset stride ld" for a strided operand (its pointer
 * must be the buffer at RECORDED_BASE), followed by each matrix's element offset in the buffer for
 * the pointer form (read from the uploaded table; `elementBytes` a complex element's size).
 */
export function operandLine(r: Recorded, o: number, elementBytes: number): { line: string; pointer: boolean } {
  const num = (x: KernelArg): number => Number(x.value);
  const [p, off, stride, ld] = r.args.slice(4 * o, 4 * o + 4) as [KernelArg, KernelArg, KernelArg, KernelArg];
  const ptr = BigInt(p.value);
  const table = r.tables.get(ptr);
  if (table === undefined) {
    assert.equal(ptr, RECORDED_BASE, 'a strided operand points at the buffer');
    return { line: `${num(off)} ${num(stride)} ${num(ld)}`, pointer: false };
  }
  const elements = [...table].map((addr) => { const d = addr - RECORDED_BASE; assert.equal(d % BigInt(elementBytes), 0n); return Number(d / BigInt(elementBytes)); });
  return { line: `${num(off)} ${num(stride)} ${num(ld)} ${elements.join(' ')}`, pointer: true };
}

/**
 * A number as the host harnesses print it (printf's %g): `inf`, `-inf` and `nan` (any sign or case)
 * as the IEEE values; Number() alone reads `inf` as NaN, so a check for NaN would pass an infinity.
 */
export function parseHarnessNumber(s: string): number {
  const t = s.trim().toLowerCase();
  if (t.includes('nan')) return Number.NaN;
  if (t === 'inf' || t === '+inf' || t === 'infinity') return Number.POSITIVE_INFINITY;
  if (t === '-inf' || t === '-infinity') return Number.NEGATIVE_INFINITY;
  return Number(t);
}
