/**
 * How many threads the fast CPU backend uses per call, the caller's included: MYRIAD_THREADS,
 * else the machine's available parallelism; setCpuThreads() changes it. (Apart from the pool so
 * that the public declarations name no worker types.)
 */
import { availableParallelism } from 'node:os';
import { MyriadError } from '../../core/errors.js';
import { threadsFromProcess } from '../context.js';

let threads: number | undefined;

/** Threads the CPU backend uses per call, the caller's included (MYRIAD_THREADS read on the first call). */
export function cpuThreads(): number {
  threads ??= threadsFromProcess() ?? availableParallelism();
  return threads;
}

/** Sets the thread count (1: everything on the caller's thread). */
export function setCpuThreads(n: number): void {
  if (!Number.isSafeInteger(n) || n < 1) throw new MyriadError('INVALID_ARGUMENT', `expected a positive integer, got ${String(n)}`, 'threads');
  threads = n;
}

