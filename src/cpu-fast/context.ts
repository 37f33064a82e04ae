/**
 * What the backend's operations share in a thread: the tuning table with the environment's
 * overrides, read from process.env once, on the first call that asks (never at import time, so a
 * test or tool may set a switch before its first call), the engine's features, and the scratch
 * arrays the ops lend their kernels.
 */
import { printSourceFromEnvironment, threadsFromEnvironment, tuningFromEnvironment } from './environment.js';
import { DEFAULT_CPU_TUNING, fmaDecision, type CpuTuning, type FmaKernel } from './tuning.js';
import { Scratch } from './scratch.js';
import { relaxedSimdSupported } from './wasm/features.js';

let tuning: CpuTuning | undefined;
let scratch: Scratch | undefined;

/** The tuning in force in this thread: the table with the MYRIAD_CPU_* overrides. */
export function cpuTuning(): CpuTuning {
  tuning ??= tuningFromEnvironment(DEFAULT_CPU_TUNING, process.env);
  return tuning;
}

/** This thread's scratch arrays. */
export function cpuScratch(): Scratch {
  scratch ??= new Scratch();
  return scratch;
}

/**
 * Matrices of `bytes` each per chunk of the wasm memory (gemmWasmChunkBytes): at least one, at most
 * `count`; rounded down to a multiple of `multiple` where at least that many fit, for the kernels
 * that take matrices two or four at a time (else each chunk's last few take a slower path: an
 * odd chunk's last matrix of a pair kernel goes to a one-matrix kernel, or is paired with itself).
 */
export function wasmChunk(count: number, bytes: number, multiple = 1): number {
  const fit = Math.max(1, Math.min(count, Math.floor(cpuTuning().gemmWasmChunkBytes / bytes)));
  return fit >= multiple && fit < count ? fit - (fit % multiple) : fit;
}

/** Whether kernels of this family for size n use the fused multiply-add here. */
export const fmaFor = (kernel: FmaKernel, n: number): boolean => fmaDecision(relaxedSimdSupported(), cpuTuning(), kernel, n);

let printSource: boolean | undefined;
/** Whether each new generated JavaScript kernel is printed to stderr (MYRIAD_PRINT_SOURCE=1). */
export function printSourceOn(): boolean {
  printSource ??= printSourceFromEnvironment(process.env);
  return printSource;
}

/** Threads per call from MYRIAD_THREADS; undefined when it is not set. */
export const threadsFromProcess = (): number | undefined => threadsFromEnvironment(process.env);
/** Tests only: MYRIAD_TEST_WORKER_DONE_DELAY_MS, the workers' pause between raising a job's flag and counting it done (threads/worker.ts). */
export const workerDoneDelayFromProcess = (): number => Math.max(0, Number(process.env['MYRIAD_TEST_WORKER_DONE_DELAY_MS']) || 0);
