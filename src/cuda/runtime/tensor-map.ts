/**
 * TMA tensor maps (cuTensorMapEncodeTiled, CUDA 12+ drivers): the 128-byte descriptor a kernel
 * takes as a `const __grid_constant__` parameter so that `cp.async.bulk.tensor` can copy boxes of
 * a strided tensor into shared memory. Encoding is host work only (no context, no device call).
 */
import koffi from 'koffi';
import { MyriadError } from '../../core/errors.js';
import type { CudaDriverApi } from './ffi-cuda.js';
import type { TensorMapSpec } from './types.js';

/** cuda.h's CUtensorMap: 128 bytes, 64-byte aligned. */
export const TENSOR_MAP_BYTES = 128;
const TENSOR_MAP_ALIGN = 64;

/** CUtensorMapDataType, CUtensorMapSwizzle and friends (cuda.h). */
const DATA_TYPE = { float64: 8 } as const;
const SWIZZLE = { 0: 0, 32: 1, 64: 2, 128: 3 } as const;
const INTERLEAVE_NONE = 0;
const L2_PROMOTION_128B = 2;
/** Out-of-bounds elements read as zeros. */
const OOB_FILL_NONE = 0;

/** Throws INVALID_ARGUMENT naming the field where the spec breaks a rule of cuTensorMapEncodeTiled. */
function validate(s: TensorMapSpec): void {
  const bad = (field: string, why: string): never => { throw new MyriadError('INVALID_ARGUMENT', `tensor map ${why}`, field); };
  const rank = s.dims.length;
  if (rank < 1 || rank > 5) bad('dims', `rank must be 1..5, got ${rank}`);
  if (s.strides.length !== rank - 1) bad('strides', `needs ${rank - 1} strides, got ${s.strides.length}`);
  if (s.box.length !== rank) bad('box', `needs ${rank} box sizes, got ${s.box.length}`);
  if (s.address % 16n !== 0n) bad('address', 'needs a 16-byte aligned global address');
  s.dims.forEach((d, i) => { if (!Number.isSafeInteger(d) || d < 1 || d > 2 ** 32) bad(`dims[${i}]`, `dimension must be 1..2^32, got ${d}`); });
  s.strides.forEach((d, i) => { if (!Number.isSafeInteger(d) || d < 16 || d % 16 !== 0 || d >= 2 ** 40) bad(`strides[${i}]`, `stride must be a positive multiple of 16 below 2^40, got ${d}`); });
  s.box.forEach((d, i) => { if (!Number.isInteger(d) || d < 1 || d > 256) bad(`box[${i}]`, `box size must be 1..256, got ${d}`); });
  if (s.swizzleBytes > 0 && s.box[0]! * 8 > s.swizzleBytes) bad('box[0]', `inner box of ${s.box[0]! * 8} bytes exceeds the ${s.swizzleBytes}-byte swizzle`);
}

/**
 * The encoded map's 128 bytes (a copy: the caller may keep it beside the launch). The driver
 * writes into 64-byte aligned native memory, as cuda.h's alignas(64) CUtensorMap would be.
 */
export function encodeTensorMap(api: CudaDriverApi, spec: TensorMapSpec): Uint8Array {
  const encode = api.cuTensorMapEncodeTiled;
  if (encode === undefined) throw new MyriadError('UNSUPPORTED', 'this CUDA driver has no cuTensorMapEncodeTiled (TMA needs CUDA 12)', 'tensorMap');
  validate(spec);
  const rank = spec.dims.length;
  const block: unknown = koffi.alloc('uint8_t', TENSOR_MAP_BYTES + TENSOR_MAP_ALIGN);
  try {
    const base = koffi.address(block) as bigint;
    const skip = Number((BigInt(TENSOR_MAP_ALIGN) - (base % BigInt(TENSOR_MAP_ALIGN))) % BigInt(TENSOR_MAP_ALIGN));
    const map = new Uint8Array(koffi.view(block, TENSOR_MAP_BYTES + TENSOR_MAP_ALIGN) as ArrayBuffer, skip, TENSOR_MAP_BYTES);
    const rc = encode(
      map, DATA_TYPE[spec.dataType], rank, spec.address,
      BigUint64Array.from(spec.dims, BigInt), BigUint64Array.from(spec.strides, BigInt),
      Uint32Array.from(spec.box), new Uint32Array(rank).fill(1),
      INTERLEAVE_NONE, SWIZZLE[spec.swizzleBytes], L2_PROMOTION_128B, OOB_FILL_NONE,
    );
    if (rc !== 0) {
      throw new MyriadError('INVALID_ARGUMENT', `cuTensorMapEncodeTiled failed (CUresult ${rc}) for ${JSON.stringify({ ...spec, address: `0x${spec.address.toString(16)}` })}`, 'tensorMap');
    }
    return map.slice();
  } finally {
    koffi.free(block);
  }
}
