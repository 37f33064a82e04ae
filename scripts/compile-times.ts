/**
 * The kernels a call compiles, and what each costs to compile, without a GPU: each shape's call is
 * planned as `ctx.warm` plans it (a backend over a device that runs nothing, api/warm.ts), on an
 * H200's attributes, and each source is compiled by nvcc for sm_90 as the proxy of NVRTC (the
 * same front end and ptxas), one at a time, with ptxas's register and spill report.
 *
 *   node dist/scripts/compile-times.js getrf:512 getrf:10240:float32 syev:32 posv:256 [--keep DIR] [--json FILE] [--plan-only]
 *   node dist/scripts/compile-times.js --nvrtc getrf:10240:float32 [--files DIR]   (on a machine with NVRTC: its compile
 *     time per kernel, one at a time on this thread; --files: also every .cu file of DIR, e.g. the sources before a change)
 *   --extra OPTION (repeatable): one more compile option for every kernel, in nvcc's spelling or NVRTC's as the mode
 *     is (e.g. --extra --Ofast-compile=mid; with --nvrtc, --extra -minimal).
 *
 * A shape is op:n[:dtype[:count]] (dtype default float64, count default the bench's).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { compileOptions, openNvrtc, targetOption } from '../src/cuda/runtime/compiler.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Buffer } from 'node:buffer';
import { Context } from '../src/api/context.js';
import { parseWarmOp, planWarmCalls, warmShapes, type WarmOp, type WarmOptions } from '../src/api/warm.js';
import type { DType } from '../src/core/dtype.js';
import { CudaBackend } from '../src/cuda/backend.js';
import { PlanningDevice } from '../src/cuda/runtime/planning-device.js';
import type { DeviceInfo, KernelSource } from '../src/cuda/runtime/types.js';

/** An H200 (141 GB HBM3e) as cuDeviceGetAttribute reports it. */
export const H200: DeviceInfo = {
  ordinal: 0, name: 'NVIDIA H200', arch: 'sm_90', major: 9, minor: 0, smCount: 132, warpSize: 32,
  maxThreadsPerBlock: 1024, maxThreadsPerSM: 2048, maxBlocksPerSM: 32, regsPerBlock: 65536, regsPerSM: 65536,
  sharedPerBlock: 49152, sharedPerBlockOptin: 232448, sharedPerSM: 233472, clockKHz: 1980000,
  memoryClockKHz: 3201000, memoryBusWidthBits: 6144, l2Bytes: 52428800, totalMemoryBytes: 150e9,
};

/** A shape `op:n[:dtype[:count]]` (dtype default float64, count default the bench's) as `ctx.warm`'s op and options. */
export function parseShape(shape: string): { op: WarmOp; options: WarmOptions } {
  const [opText, nText, dtypeText, countText] = shape.split(':');
  return { op: parseWarmOp(opText), options: { sizes: [Number(nText)], dtype: (dtypeText ?? 'float64') as DType, ...(countText ? { count: Number(countText) } : {}) } };
}

/** The distinct kernels of one shape's call (`op:n[:dtype[:count]]`), in the order the call asks for them. */
export function planShape(shape: string, info: DeviceInfo = H200): KernelSource[] {
  const { op, options } = parseShape(shape);
  const { dtype, shapes } = warmShapes(op, options);
  const device = new PlanningDevice(info);
  const backend = new CudaBackend(device, 'planning');
  planWarmCalls(new Context('cuda', backend, backend, () => {}), op, dtype, shapes, options);
  return device.sources;
}

export interface NvccTime {
  shape: string; name: string; entry: string; bytes: number;
  /** Wall milliseconds (noisy on a shared machine) and CPU milliseconds of nvcc and its children (cicc, ptxas): the proxy. */
  ms: number; cpuMs: number;
  registers: number; spillStores: number; spillLoads: number; stackFrame: number;
  /** SASS instructions in the CUBIN (its .text sections, 16 bytes an instruction on sm_70 and later). */
  instructions: number;
}

/** The SASS instructions of an ELF64 CUBIN: the sizes of its .text.* sections over 16 bytes. */
export function cubinInstructions(elf: Buffer): number {
  const shoff = Number(elf.readBigUInt64LE(0x28));
  const shentsize = elf.readUInt16LE(0x3a), shnum = elf.readUInt16LE(0x3c), shstrndx = elf.readUInt16LE(0x3e);
  const section = (i: number): { name: number; offset: number; size: number } => {
    const at = shoff + i * shentsize;
    return { name: elf.readUInt32LE(at), offset: Number(elf.readBigUInt64LE(at + 0x18)), size: Number(elf.readBigUInt64LE(at + 0x20)) };
  };
  const names = section(shstrndx);
  let bytes = 0;
  for (let i = 0; i < shnum; i++) {
    const s = section(i);
    const start = names.offset + s.name;
    const name = elf.toString('latin1', start, elf.indexOf(0, start));
    if (name.startsWith('.text.')) bytes += s.size;
  }
  return bytes / 16;
}

/** nvcc -arch=sm_90 -cubin -Xptxas -v on one source: its time (wall and CPU, children included) and ptxas's figures. */
export function nvccTime(src: KernelSource, dir: string, shape = '', extra: readonly string[] = []): NvccTime {
  const file = join(dir, src.name.endsWith('.cu') ? src.name : `${src.name}.cu`);
  writeFileSync(file, src.source);
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', 'CPU %U %S', 'nvcc', '-arch=sm_90', '-std=c++17', '-cubin', '-Xptxas', '-v', ...(src.options ?? []), ...extra, '-o', `${file}.cubin`, file], { encoding: 'utf8' });
  const ms = performance.now() - t0;
  const log = `${r.stdout}${r.stderr}`;
  if (r.status !== 0) throw new Error(`nvcc failed on ${src.name}:\n${log}`);
  const num = (re: RegExp): number => Number(re.exec(log)?.[1] ?? NaN);
  const cpu = /CPU ([\d.]+) ([\d.]+)/.exec(log);
  return {
    shape, name: src.name, entry: src.entry, bytes: src.source.length, ms, cpuMs: cpu ? 1000 * (Number(cpu[1]) + Number(cpu[2])) : NaN,
    registers: num(/Used (\d+) registers/), spillStores: num(/(\d+) bytes spill stores/), spillLoads: num(/(\d+) bytes spill loads/), stackFrame: num(/(\d+) bytes stack frame/),
    instructions: cubinInstructions(readFileSync(`${file}.cubin`)),
  };
}

/** NVRTC (sm_90 CUBIN, the runtime's options) on each source, one at a time: milliseconds each. */
function nvrtcTimes(sources: readonly KernelSource[], label: string, extra: readonly string[]): { label: string; name: string; ms: number }[] {
  const compiler = openNvrtc();
  const target = targetOption('sm_90', compiler.supportedArchs);
  return sources.map((src) => {
    const t0 = performance.now();
    compiler.compile({ name: src.name, source: src.source, options: compileOptions(target, [...(src.options ?? []), ...extra]) });
    const ms = performance.now() - t0;
    console.log(`  nvrtc ${ms.toFixed(0).padStart(6)} ms  ${label}  ${src.name}`);
    return { label, name: src.name, ms };
  });
}

function main(argv: readonly string[]): void {
  const extra = argv.flatMap((a, i) => (argv[i - 1] === '--extra' ? [a] : []));
  const valueOf = (i: number): boolean => ['--files', '--json', '--keep', '--extra'].includes(argv[i - 1] ?? '');
  if (argv.includes('--nvrtc')) {
    const files = argv.indexOf('--files') >= 0 ? argv[argv.indexOf('--files') + 1] : undefined;
    const shapes = argv.filter((a, i) => !a.startsWith('--') && !valueOf(i));
    const rows = [
      ...shapes.flatMap((shape) => nvrtcTimes(planShape(shape), shape, extra)),
      ...(files ? nvrtcTimes(readdirSync(files).filter((f) => f.endsWith('.cu')).sort().map((f) => ({ name: f, entry: f, source: readFileSync(join(files, f), 'utf8') })), files, extra) : []),
    ];
    const json = argv.indexOf('--json') >= 0 ? argv[argv.indexOf('--json') + 1] : undefined;
    if (json) writeFileSync(json, JSON.stringify(rows, null, 1));
    return;
  }
  const shapes = argv.filter((a, i) => !a.startsWith('--') && !valueOf(i));
  const flag = (name: string): string | undefined => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
  const keep = flag('--keep');
  const dir = keep ?? mkdtempSync(join(tmpdir(), 'myriad-compile-'));
  mkdirSync(dir, { recursive: true });
  const planOnly = argv.includes('--plan-only');
  const rows: NvccTime[] = [];
  for (const shape of shapes) {
    const sources = planShape(shape);
    console.log(`${shape}: ${sources.length} kernels`);
    for (const src of sources) {
      if (planOnly) {
        writeFileSync(join(dir, src.name.endsWith('.cu') ? src.name : `${src.name}.cu`), src.source);
        console.log(`  ${src.name}  ${src.source.length} bytes`);
        continue;
      }
      const r = nvccTime(src, dir, shape, extra);
      rows.push(r);
      console.log(`  cpu ${r.cpuMs.toFixed(0).padStart(6)} ms  wall ${r.ms.toFixed(0).padStart(6)} ms  ${String(r.registers).padStart(3)} regs  spill ${r.spillStores}/${r.spillLoads}  stack ${r.stackFrame}  ${String(r.instructions).padStart(6)} SASS  ${r.name}`);
    }
  }
  const json = flag('--json');
  if (json) writeFileSync(json, JSON.stringify(rows, null, 1));
}

if (process.argv[1]?.endsWith('compile-times.js')) main(process.argv.slice(2));
