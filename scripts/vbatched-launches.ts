/**
 * What the variable-batch launchers send to a GPU, as one hash per case, without a GPU: each
 * workload of `myriad bench --vbatched` (members capped, so it runs in seconds) through the class
 * route on a planning device with an H200's attributes, every upload's contents and every launch's
 * kernel, grid and arguments hashed in order. Two builds that print the same lines send the same
 * tables and launches: a host-side rewrite of a launcher is checked this way (run it on the old
 * build and the new one and compare), as scripts/hash-kernels.ts checks the kernels' text.
 *
 *   node dist/scripts/vbatched-launches.js [--members-a 60000] [--members-b 6000]
 */
import { createHash, type Hash } from 'node:crypto';
import { logUniformSizes, vbatchedRequest, VBATCHED_OPERANDS, VBATCHED_WORKLOADS, type VbatchedOp } from '../src/bench/vbatched.js';
import type { DType } from '../src/core/dtype.js';
import { runRouted } from '../src/cuda/router.js';
import { PlanningDevice } from '../src/cuda/runtime/planning-device.js';
import type { DeviceArray, HostArray, Kernel, KernelArg, KernelSource, LaunchConfig } from '../src/cuda/runtime/types.js';
import { H200 } from './compile-times.js';

/** A planning device that hashes what it is asked to upload and launch. */
class HashingDevice extends PlanningDevice {
  readonly hash: Hash = createHash('sha256');
  launches = 0;

  override upload(host: HostArray, dst?: DeviceArray): DeviceArray {
    this.hash.update(`upload ${host.constructor.name} ${host.length}:`);
    this.hash.update(new Uint8Array(host.buffer, host.byteOffset, host.byteLength));
    return super.upload(host, dst);
  }

  override kernel(src: KernelSource): Kernel {
    const k = super.kernel(src);
    return {
      ...k,
      launch: (config: LaunchConfig, args: readonly KernelArg[]): void => {
        this.launches++;
        this.hash.update(`launch ${src.entry} ${JSON.stringify(config)} ${args.map((a) => `${a.type}=${String(a.value)}`).join(',')}`);
      },
    };
  }
}

/** The request variants each operation is hashed with. */
function variants(op: VbatchedOp, base: Record<string, unknown>): Record<string, unknown>[] {
  switch (op) {
    case 'gemm': return [base, { ...base, transA: 'T', alpha: 0.5, beta: 0 }, { ...base, transB: 'T' }];
    case 'trsm': return [['left', 'lower', 'N'], ['left', 'upper', 'T'], ['right', 'lower', 'T'], ['right', 'upper', 'N']]
      .map(([side, uplo, transA]) => ({ ...base, side, uplo, transA, alpha: 0.5 }));
    case 'getrf': case 'gesv': return [base];
    case 'potrf': case 'posv': return [{ ...base, uplo: 'lower' }, { ...base, uplo: 'upper' }];
    case 'syrk': return [base, { ...base, uplo: 'upper', trans: 'T', alpha: 0.5, beta: 0 }];
    case 'trtri': return [base, { ...base, uplo: 'upper', diag: 'unit' }];
  }
}

function main(argv: readonly string[]): void {
  const flag = (name: string, fallback: number): number => { const i = argv.indexOf(name); return i >= 0 ? Number(argv[i + 1]) : fallback; };
  const cap = { a: flag('--members-a', 60_000), b: flag('--members-b', 6_000) };
  for (const w of ['a', 'b'] as const) for (const op of ['gemm', 'potrf', 'getrf', 'trsm', 'posv', 'gesv', 'syrk', 'trtri'] as VbatchedOp[]) for (const dtype of ['float64', 'float32'] as DType[]) {
    const { count, max } = VBATCHED_WORKLOADS[w];
    const sizes = logUniformSizes(Math.min(count, cap[w]), max, w === 'a' ? 1 : 2);
    for (const [v, request] of variants(op, {}).entries()) {
      const dev = new HashingDevice(H200);
      const elements = sizes.reduce((s, n) => s + n * n, 0);
      const data = Array.from({ length: VBATCHED_OPERANDS[op] }, () => dev.alloc(dtype, elements));
      const info = dev.alloc('int32', sizes.length);
      const ipiv = op === 'getrf' || op === 'gesv' ? dev.alloc('int32', sizes.length * sizes.reduce((x, n) => Math.max(x, n), 0)) : undefined;
      runRouted(op, dev, { ...vbatchedRequest(op, sizes, data, info, ipiv), ...request }, 'vbatched');
      console.log(`${w} ${op} ${dtype} variant ${v}: ${dev.launches} launches ${dev.hash.digest('hex').slice(0, 16)}`);
    }
  }
}

if (process.argv[1]?.endsWith('vbatched-launches.js')) main(process.argv.slice(2));
