/**
 * Host cost of one call without a GPU: a CUDA context over a fake device whose kernels are real
 * CudaKernel objects (argument checks and packing included) over a driver whose every call
 * returns success at once. What it measures is the JS path of a call up to cuLaunchKernel:
 * validation, dispatch, planning, kernel lookup, argument packing.
 *
 *   node dist/scripts/host-latency.js [calls]
 */
import { Context } from '../src/api/context.js';
import { strided } from '../src/core/batch.js';
import type { Backend } from '../src/core/ops.js';
import type { IntStorage, Storage } from '../src/core/storage.js';
import { CudaBackend } from '../src/cuda/backend.js';
import { CudaKernel } from '../src/cuda/runtime/kernel.js';
import type { DeviceContext } from '../src/cuda/runtime/context.js';
import type { Kernel, KernelArg, KernelSource, LaunchConfig } from '../src/cuda/runtime/types.js';
import { FakeDevice } from '../test/helpers/fake-gpus.js';

const BYTES: Record<KernelArg['type'], number> = { ptr: 8, i32: 4, i64: 8, f32: 4, f64: 8 };

/** A kernel whose driver is a stub: the real CudaKernel, built at its first launch from that launch's argument types. */
class StubKernel implements Kernel {
  readonly registers = 32; readonly staticSharedBytes = 0; readonly localBytes = 0; readonly maxThreadsPerBlock = 1024;
  launches = 0;
  private real: CudaKernel | undefined;
  constructor(readonly name: string) {}
  launch(config: LaunchConfig, args: readonly KernelArg[]): void {
    this.launches++;
    this.real ??= stubKernel(this.name, args);
    this.real.launch(config, args);
  }
}

function stubKernel(name: string, args: readonly KernelArg[]): CudaKernel {
  const offsets: number[] = [];
  let at = 0;
  for (const a of args) { const b = BYTES[a.type]; at = Math.ceil(at / b) * b; offsets.push(at); at += b; }
  const api = {
    cuFuncGetAttribute: (out: [number], attrib: number) => { out[0] = attrib === 0 ? 1024 : attrib === 8 ? 49152 : 0; return 0; },
    cuFuncGetParamInfo: (_fn: unknown, i: number, offset: [number], size: [number]) => {
      if (i >= args.length) return 1;
      offset[0] = offsets[i]!; size[0] = BYTES[args[i]!.type]; return 0;
    },
    cuLaunchKernelPacked: () => 0,
    cuLaunchKernel: () => 0,
  };
  const context = { api, stream: null, activate: () => {}, check: () => {}, alive: true } as unknown as DeviceContext;
  return new CudaKernel(context, name, {} as never, 232448);
}

export class StubDevice extends FakeDevice {
  readonly kernels = new Map<string, StubKernel>();
  override kernel(src?: KernelSource): Kernel {
    if (!src) throw new Error("no source");
    let k = this.kernels.get(src.name);
    if (!k) this.kernels.set(src.name, (k = new StubKernel(src.name)));
    return k;
  }
  override synchronize(): void {}
  /** Graphs of the stub: `fn` runs (its launches go to the stub driver), a replay counts. */
  replays = 0;
  capture(fn: () => void): { launch(): void; dispose(): void } {
    fn();
    return { launch: () => { this.replays++; }, dispose: () => {} };
  }
}

export function stubContext(): { ctx: Context; device: StubDevice } {
  const device = new StubDevice(0, []);
  const backend = new CudaBackend(device, 'stub');
  return { ctx: new Context('cuda', backend as unknown as Backend<Storage, IntStorage>, backend), device };
}

function measure(label: string, calls: number, fn: () => void): number {
  calls = Math.round(calls);
  for (let i = 0; i < Math.min(calls, 2000); i++) fn(); // warm the JIT and the memos
  let us = Infinity;
  for (let r = 0; r < 5; r++) { // best of 5: the machine is shared
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) fn();
    us = Math.min(us, Number(process.hrtime.bigint() - t0) / 1e3 / calls);
  }
  console.log(`${label.padEnd(40)} ${us.toFixed(2).padStart(8)} us/call`);
  return us;
}

function main(): void {
  const calls = Number(process.argv[2] ?? 20000);
  const { ctx } = stubContext();
  const n = 8;
  for (const count of [1, 10, 100, 1000, 10000]) {
    const len = n * n * count;
    const a = ctx.alloc('float64', len);
    const b = ctx.alloc('float64', len);
    const c = ctx.alloc('float64', len);
    const batch = (data: typeof a) => strided(data, { rows: n, count });
    const A = batch(a); const B = batch(b); const C = batch(c);
    const info = ctx.alloc('int32', count);
    measure(`gemm  n=${n} count=${count}`, calls, () => ctx.gemm({ a: A, b: B, c: C }));
    measure(`potrf n=${n} count=${count} (info given)`, calls, () => ctx.potrf({ a: A, info }));
    measure(`potrf n=${n} count=${count} (no info)`, Math.min(calls, 2000), () => ctx.potrf({ a: A }));
    const pg = (ctx as unknown as { prepare?: Record<string, (args: unknown) => (s?: unknown) => void> }).prepare;
    if (pg) {
      const g = pg['gemm']!({ a: A, b: B, c: C });
      measure(`prepared gemm  count=${count}`, calls, () => g({ a, b, c }));
      const p = pg['potrf']!({ a: A, info });
      measure(`prepared potrf count=${count}`, calls, () => p({ a, info }));
    }
    // The filter step of `myriad bench latency` (gemm, potrf, trsm, gemm): per call.
    const step = (): void => {
      ctx.gemm({ transB: 'T', a: A, b: A, c: C });
      ctx.potrf({ a: C, info });
      ctx.trsm({ side: 'left', uplo: 'lower', a: C, b: B });
      ctx.gemm({ a: A, b: A, c: B });
    };
    const per = (label: string, fn: () => void): void => { measure(label, calls / 4, fn); };
    per(`pipeline plain x4  count=${count}`, step);
    const cap = ctx.capture(step);
    per(`pipeline captured x1 count=${count}`, () => cap.replay());
  }
}

if (process.argv[1]?.split(/[\/]/).pop() === 'host-latency.js') main();
