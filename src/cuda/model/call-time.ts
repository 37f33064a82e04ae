/**
 * A lower bound on the time of one call on one GPU, from its bytes and flops over the card's rates
 * (model/roofline.ts peaks scaled by a share that batched kernels on small matrices reach at best):
 * max(bytes / bandwidth, flops / flop rate), plus, for host arrays, their bytes over the host link.
 * Coarse by design: it decides only whether a call is long enough to spread over several GPUs
 * (multi/crossover.ts), and there a lower bound errs on the side of one GPU.
 */
import { batchCount, matrixAt, type Batch } from '../../core/batch.js';
import { counts } from '../../core/counts.js';
import type { DType } from '../../core/dtype.js';
import { dtypeOfArrayName, isDType, storageInfo } from '../../core/dtype-table.js';
import { typedArrayName } from '../../core/dtype.js';
import { OUTPUTS } from '../../core/op-specs.js';
import type { OpName } from '../../core/ops.js';
import { isDeviceStorage, type Storage } from '../../core/storage.js';
import type { DeviceInfo } from '../runtime/types.js';
import { peakBandwidth, peakFlops } from './roofline.js';

/** The rates of the estimate: shares of the card's peaks, and the host link per GPU. */
export interface CallRates {
  readonly bandwidthShare: number;
  readonly flopShare: number;
  readonly linkGBs: number;
}

/** What a call moves and computes: device bytes (read + written), host bytes over the link (up + down), flops. */
export interface CallWork {
  readonly deviceBytes: number;
  readonly hostBytes: number;
  readonly flops: number;
  /** The real precision of the first batch's data (the flop rate's). */
  readonly dtype: DType;
}

type Req = Readonly<Record<string, unknown>>;
type AnyBatch = Batch<Storage>;

const batchOf = (r: Req, key: string): AnyBatch | undefined => {
  const v = r[key] as AnyBatch | undefined;
  return v !== undefined && v !== null && typeof v === 'object' && 'kind' in v && (v.kind === 'strided' || v.kind === 'list' || v.kind === 'variable') ? v : undefined;
};

/** Flops of one matrix of `op` from its operands' shapes (matrix i of each batch); 0 where no count is kept here. */
function flopsAt(op: OpName, r: Req, i: number): number {
  const shape = (key: string): { rows: number; cols: number } | undefined => {
    const b = batchOf(r, key);
    return b === undefined ? undefined : b.kind === 'variable' ? b.matrices[i] : b;
  };
  const a = shape('a');
  const dtype: DType = 'float64'; // flops do not depend on the real precision
  switch (op) {
    case 'gemm': {
      const c = shape('c')!;
      return counts.gemm(dtype, c.rows, c.cols, r['transA'] === 'N' || r['transA'] === undefined ? a!.cols : a!.rows).flops;
    }
    case 'trsm': case 'trmm': {
      const b = shape('b')!;
      return counts.trsm(dtype, r['side'] === 'right' ? 'right' : 'left', b.rows, b.cols).flops;
    }
    case 'syrk': case 'herk': {
      const c = shape('c')!;
      return counts.syrk(dtype, c.rows, r['trans'] === 'N' || r['trans'] === undefined ? a!.cols : a!.rows).flops;
    }
    case 'potrf': case 'poti': return counts.potrf(dtype, a!.rows).flops;
    case 'getrf': return counts.getrf(dtype, a!.rows, a!.cols).flops;
    case 'posv': return counts.posv(dtype, a!.rows, shape('b')!.cols).flops;
    case 'potrs': return counts.potrs(dtype, a!.rows, shape('b')!.cols).flops;
    case 'gesv': return counts.gesv(dtype, a!.rows, shape('b')!.cols).flops;
    case 'getrs': return counts.getrs(dtype, a!.rows, shape('b')!.cols).flops;
    case 'trtri': case 'lauum': return counts.trtri(dtype, a!.rows).flops;
    case 'potri': return counts.potri(dtype, a!.rows).flops;
    case 'geqrf': return counts.geqrf(dtype, a!.rows, a!.cols).flops;
    default: return 0;
  }
}

/** Elements of matrix data a batch holds (rows x cols per matrix, gaps not counted). */
function elementsOf(b: AnyBatch): number {
  if (b.kind !== 'variable') return b.rows * b.cols * batchCount(b);
  let sum = 0;
  for (const m of b.matrices) sum += m.rows * m.cols;
  return sum;
}

/** The bytes and flops of a validated request (a complex request counts its pairs' bytes; its flops as real). */
export function callWork(op: OpName, r: Req): CallWork {
  const outputs = OUTPUTS[op];
  let deviceBytes = 0;
  let hostBytes = 0;
  let count = 0;
  let variable = false;
  let dtype: DType = 'float64';
  let first = true;
  for (const key in r) {
    const b = batchOf(r, key);
    if (b === undefined) continue;
    count ||= batchCount(b);
    variable ||= b.kind === 'variable';
    const data = b.kind === 'strided' ? b.data : b.matrices.length > 0 ? matrixAt(b, 0).data : undefined;
    if (data === undefined) continue;
    const real = isDeviceStorage(data) ? data.dtype : dtypeOfArrayName(typedArrayName(data));
    if (!isDType(real)) continue;
    if (first) dtype = real;
    first = false;
    const bytes = elementsOf(b) * storageInfo(real).bytes * (b.dtype === undefined ? 1 : 2);
    const passes = outputs.includes(key) ? 2 : 1;
    deviceBytes += bytes * passes;
    if (!isDeviceStorage(data)) hostBytes += bytes * passes;
  }
  let flops = 0;
  try {
    if (variable) for (let i = 0; i < count; i++) flops += flopsAt(op, r, i);
    else if (count > 0) flops = flopsAt(op, r, 0) * count;
  } catch {
    flops = 0; // an operand this count does not expect: the bytes alone bound the time
  }
  return { deviceBytes, hostBytes, flops, dtype };
}

/** Milliseconds: the roofline bound of the kernels on one `info` GPU, plus the host bytes over its link. */
export function callMs(work: CallWork, info: DeviceInfo, rates: CallRates): number {
  const kernels = Math.max(work.deviceBytes / (peakBandwidth(info) * rates.bandwidthShare), work.flops / (peakFlops(info, work.dtype) * rates.flopShare));
  return 1e3 * kernels + work.hostBytes / (rates.linkGBs * 1e6);
}
