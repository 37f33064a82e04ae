/**
 * How many threads the fast CPU backend uses per call, the caller's included: MYRIAD_THREADS,
 * else the machine's available parallelism; setCpuThreads() changes it. (Apart from the pool so
 * that the public declarations name no worker types.)
 */
import { availableParallelism } from 'node:os';
import { MyriadError } from '../../core/errors.js';

let threads = defaultThreads();

function defaultThreads(): number {
  const env = process.env.MYRIAD_THREADS;
  if (env !== undefined && env !== '') {
    const n = Number(env);
    if (!Number.isSafeInteger(n) || n < 1) throw new MyriadError('INVALID_ARGUMENT', `expected a positive integer, got '${env}'`, 'MYRIAD_THREADS');
    return n;
  }
  return availableParallelism();
}

/** Threads the CPU backend uses per call, the caller's included. */
export const cpuThreads = (): number => threads;

/** Sets the thread count (1: everything on the caller's thread). */
export function setCpuThreads(n: number): void {
  if (!Number.isSafeInteger(n) || n < 1) throw new MyriadError('INVALID_ARGUMENT', `expected a positive integer, got ${String(n)}`, 'threads');
  threads = n;
}

