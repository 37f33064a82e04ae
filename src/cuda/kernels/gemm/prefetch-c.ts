/**
 * C's tile toward L2 as a tile starts, for the tile kernels (mma, tiled) where beta != 0: the
 * epilogue reads C after the last k-step, and with few k-steps (batched small and mid orders, a
 * factorization's trailing update) that read waited on memory at the end of every tile. One
 * prefetch for the first and one for the last element of each column's run of a 128-byte line's
 * rows (one line where aligned, at most two). Reads the kernel's names BM, BN, THREADS, t, i0,
 * j0, m, n, c and ldC.
 */

/** The kernel parameters that decide the prefetch (MmaConfig's and TiledConfig's prefetchC). */
interface PrefetchChoice {
  readonly prefetchC?: boolean;
  readonly betaZero: boolean;
}

/** Whether a tile kernel prefetches C: not turned off, and C is read (beta != 0). */
export const prefetchesC = (p: PrefetchChoice): boolean => p.prefetchC !== false && !p.betaZero;

/** The entry name's mark of a kernel told not to prefetch a C it reads ('n'), else ''. */
export const noPrefetchTag = (p: PrefetchChoice): string => (p.prefetchC === false && !p.betaZero ? 'n' : '');

/** Pure: the prefetch loop for C elements of `elementBytes` bytes. */
export function prefetchCTile(elementBytes: number): string {
  const rows = Math.max(1, Math.floor(128 / elementBytes));   // C's rows in one 128-byte line
  // PTX only where the device code is compiled (NVRTC defines __CUDA_ARCH__); a host compile of the
  // kernel (the host emulations) skips the hint, which changes no result.
  return `  // C's tile toward L2 now (beta != 0), so the epilogue's reads of C do not wait on memory.
#ifdef __CUDA_ARCH__
  for (int e = t; e < BN * ((BM + ${rows - 1}) / ${rows}); e += THREADS) {
    const int i = i0 + ${rows} * (e % ((BM + ${rows - 1}) / ${rows})), j = j0 + e / ((BM + ${rows - 1}) / ${rows});
    if (i < m && j < n) {
      const auto* first = c + i + (long long)j * ldC;
      asm volatile("prefetch.global.L2 [%0];" :: "l"(first));
      asm volatile("prefetch.global.L2 [%0];" :: "l"(first + min(${rows - 1}, m - 1 - i)));
    }
  }
#endif
`;
}
