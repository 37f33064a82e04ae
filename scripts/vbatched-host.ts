/**
 * The host cost of one variable-batch call, without a GPU: the workloads of `myriad bench
 * --vbatched` on a planning device with an H200's attributes, where the launchers run as on a GPU
 * (planning, tables, uploads, launches) and nothing runs. Two levels:
 * - router: `runRouted` on the request the bench times (the bench's ms column pays this, plus the
 *   kernels), route 'vbatched' (the class kernels) and the family's (the per-size path);
 * - api (gemm and potrf): `ctx.gemm` / `ctx.potrf` through a Context over CudaBackend on the planning
 *   device: the validation of every member, the overlap check, the router and the launcher.
 * Each is called `--calls` times (default 10) after one untimed call: min and median wall ms, and the
 * median of the process's CPU ms per call (user + system, all threads: steadier than wall time on a
 * shared machine).
 *
 * Usage: node dist/scripts/vbatched-host.js [--workloads a,b] [--ops gemm,potrf,getrf,trsm,posv] [--dtypes float64,float32] [--calls N] [--json file]
 */
import { writeFileSync } from 'node:fs';
import { Context } from '../src/api/context.js';
import { logUniformSizes, vbatchedRequest, VBATCHED_OPERANDS, VBATCHED_WORKLOADS, type VbatchedOp, type VbatchedWorkload } from '../src/bench/vbatched.js';
import type { VariableBatch } from '../src/core/batch.js';
import type { DType } from '../src/core/dtype.js';
import { CudaBackend } from '../src/cuda/backend.js';
import { runRouted } from '../src/cuda/router.js';
import { PlanningDevice } from '../src/cuda/runtime/planning-device.js';
import type { DeviceArray } from '../src/cuda/runtime/types.js';
import { H200 } from './compile-times.js';

export interface HostRow {
  workload: string; op: string; dtype: DType; level: 'router' | 'api'; route: string; minMs: number; medianMs: number; cpuMs: number;
}

const median = (xs: number[]): number => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;

function timed(calls: number, fn: () => void): { minMs: number; medianMs: number; cpuMs: number } {
  fn();
  const ms: number[] = [], cpu: number[] = [];
  for (let i = 0; i < calls; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    fn();
    ms.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  return { minMs: Math.min(...ms), medianMs: median(ms), cpuMs: median(cpu) };
}

export function measureHost(workload: VbatchedWorkload, op: VbatchedOp, dtype: DType, calls: number): HostRow[] {
  const { count, max } = VBATCHED_WORKLOADS[workload];
  const sizes = logUniformSizes(count, max, workload === 'a' ? 1 : 2);
  const dev = new PlanningDevice(H200);
  const elements = sizes.reduce((s, n) => s + n * n, 0);
  const data = Array.from({ length: VBATCHED_OPERANDS[op] }, () => dev.alloc(dtype, elements));
  const info = dev.alloc('int32', count);
  const ipiv = op === 'getrf' || op === 'gesv' ? dev.alloc('int32', count * sizes.reduce((x, n) => Math.max(x, n), 1)) : undefined;
  const request = vbatchedRequest(op, sizes, data, info, ipiv);
  const rows: HostRow[] = [];
  for (const route of ['vbatched', op]) {
    rows.push({ workload, op, dtype, level: 'router', route, ...timed(calls, () => { runRouted(op, dev, request, route); }) });
  }
  // The API level: gemm and potrf (the others' router level is what the bench's ms column pays too).
  if (op !== 'gemm' && op !== 'potrf') return rows;
  const backend = new CudaBackend(dev, 'planning');
  const ctx = new Context('cuda', backend, backend, () => {});
  const batch = (key: string): VariableBatch<DeviceArray> => request[key] as VariableBatch<DeviceArray>;
  const call = op === 'gemm'
    ? (): void => { ctx.gemm({ a: batch('a'), b: batch('b'), c: batch('c'), alpha: 1, beta: 1 }); }
    : (): void => { ctx.potrf({ a: batch('a'), info }); };
  for (const route of ['vbatched', op]) {
    backend.force = { [op]: route };
    rows.push({ workload, op, dtype, level: 'api', route, ...timed(calls, call) });
  }
  return rows;
}

function main(argv: readonly string[]): void {
  const flag = (name: string): string | undefined => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
  const list = (name: string, fallback: string): string[] => (flag(name) ?? fallback).split(',');
  const calls = Number(flag('--calls') ?? 10);
  const rows: HostRow[] = [];
  for (const w of list('--workloads', 'a,b')) for (const op of list('--ops', 'gemm,potrf')) for (const dtype of list('--dtypes', 'float64,float32')) {
    for (const r of measureHost(w as VbatchedWorkload, op as VbatchedOp, dtype as DType, calls)) {
      rows.push(r);
      console.log(`${r.workload} ${r.op.padEnd(5)} ${r.dtype} ${r.level.padEnd(6)} ${r.route.padEnd(8)} min ${r.minMs.toFixed(1).padStart(7)} ms  median ${r.medianMs.toFixed(1).padStart(7)} ms  cpu ${r.cpuMs.toFixed(1).padStart(7)} ms`);
    }
  }
  const json = flag('--json');
  if (json) writeFileSync(json, JSON.stringify(rows, null, 1));
}

if (process.argv[1]?.endsWith('vbatched-host.js')) main(process.argv.slice(2));
