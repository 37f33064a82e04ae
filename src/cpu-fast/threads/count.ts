/**
 * How many threads the fast CPU backend uses per call, the caller's included: MYRIAD_THREADS,
 * else the machine's available parallelism; setCpuThreads() changes it. (Apart from the pool so
 * that the public declarations name no worker types.)
 */
import { availableParallelism } from 'node:os';
import { threadsFromProcess } from '../context.js';
import { checkThreadCount, MAX_CPU_THREADS } from '../environment.js';

let threads: number | undefined;

/** Threads the CPU backend uses per call, the caller's included (MYRIAD_THREADS read on the first call). */
export function cpuThreads(): number {
  threads ??= threadsFromProcess() ?? Math.min(availableParallelism(), MAX_CPU_THREADS);
  return threads;
}

/** Sets the thread count, 1 ... MAX_CPU_THREADS (1: everything on the caller's thread). */
export function setCpuThreads(n: number): void {
  threads = checkThreadCount(n, String(n), 'threads');
}

