/**
 * Host cost of one device-resident call on a context over several GPUs, without a GPU: stub
 * devices (scripts/host-latency.ts: real CudaKernel argument packing over a driver that returns at
 * once), one CudaBackend lane each, the batch scattered over them. The difference between k lanes
 * and one lane, over k - 1, is what each further GPU costs the host per call (planning, slicing,
 * enqueue); the time() rows add the events recorded and waited for on every device.
 *
 *   node dist/scripts/multi-host-latency.js [calls]
 */
import { strided } from '../src/core/batch.js';
import type { Backend } from '../src/core/ops.js';
import type { IntStorage, Storage } from '../src/core/storage.js';
import { CudaBackend } from '../src/cuda/backend.js';
import { MultiDeviceBackend } from '../src/cuda/multi/backend.js';
import type { Lane } from '../src/cuda/multi/lane.js';
import { MultiDeviceContext } from '../src/api/multi-context.js';
import { hasGpuOp } from '../src/cuda/router.js';
import { StubDevice } from './host-latency.js';

/** A context over `lanes` stub GPUs. */
export function stubMultiContext(lanes: number): MultiDeviceContext {
  const list: Lane[] = Array.from({ length: lanes }, (_, i) => {
    const device = new StubDevice(i, []);
    return { device, backend: new CudaBackend(device, 'stub') as unknown as Backend<Storage, IntStorage>, hasKernel: hasGpuOp };
  });
  return new MultiDeviceContext(new MultiDeviceBackend(list, 'stub'));
}

/** Process CPU microseconds per call (user + system: a shared machine's other work does not count), best of 5. */
function measure(calls: number, fn: () => void): number {
  for (let i = 0; i < Math.min(calls, 2000); i++) fn(); // warm the JIT and the memos
  let us = Infinity;
  for (let r = 0; r < 5; r++) {
    const t0 = process.cpuUsage();
    for (let i = 0; i < calls; i++) fn();
    const t = process.cpuUsage(t0);
    us = Math.min(us, (t.user + t.system) / calls);
  }
  return us;
}

/** Microseconds per call for `lanes` stub GPUs: gemm n = 8, potrf n = 16 and getrf n = 16 on `count` matrices, plain and timed. */
export function multiHostLatency(lanes: number, count: number, calls: number): Record<string, number> {
  const ctx = stubMultiContext(lanes);
  const n = 8;
  const m = 16;
  const shard = (len: number, rows: number) => ctx.allocSharded('float64', len, { rows, count });
  const A = strided(shard(n * n * count, n), { rows: n, count });
  const B = strided(shard(n * n * count, n), { rows: n, count });
  const C = strided(shard(n * n * count, n), { rows: n, count });
  const F = strided(shard(m * m * count, m), { rows: m, count });
  const info = ctx.allocSharded('int32', count, { count });
  const ipiv = ctx.allocSharded('int32', count * m, { count });
  const out: Record<string, number> = {
    gemm: measure(calls, () => ctx.gemm({ a: A, b: B, c: C })),
    potrf: measure(calls, () => ctx.potrf({ a: F, info })),
    getrf: measure(calls, () => ctx.getrf({ a: F, ipiv, info })),
    'gemm timed': measure(calls, () => ctx.time(() => ctx.gemm({ a: A, b: B, c: C }))),
  };
  ctx.dispose();
  return out;
}

function main(): void {
  const calls = Number(process.argv[2] ?? 5000);
  const count = 4096;
  const rows = [1, 2, 4, 8].map((k) => ({ k, us: multiHostLatency(k, count, calls) }));
  const names = Object.keys(rows[0]!.us);
  console.log(`host CPU microseconds per device-resident call, ${count} matrices over k stub GPUs (best of 5 x ${calls} calls)`);
  console.log(['call'.padEnd(12), ...rows.map((r) => `k=${r.k}`.padStart(9)), 'per extra GPU'.padStart(15)].join(' '));
  for (const name of names) {
    const one = rows[0]!.us[name]!;
    const last = rows[rows.length - 1]!;
    const perGpu = (last.us[name]! - one) / (last.k - 1);
    console.log([name.padEnd(12), ...rows.map((r) => r.us[name]!.toFixed(2).padStart(9)), perGpu.toFixed(2).padStart(15)].join(' '));
  }
}

if (process.argv[1]?.endsWith('multi-host-latency.js')) main();
