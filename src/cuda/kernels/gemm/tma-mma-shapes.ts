/**
 * The f64 mma shapes of sm_90 in the TMA-fed GEMM (generate-tma.ts): one stage's multiply for
 * m16n8k4, m16n8k8 or m16n8k16 from the same fragment reads. The reads of one 8-wide k chunk kc
 * give each lane a0 = A(g, s0), a1 = A(g + 8, s0), a2 = A(g, s1), a3 = A(g + 8, s1), b0 = B(s0, g),
 * b1 = B(s1, g) with s0 = kc + 2q, s1 = kc + 2q + 1 (PTX ISA, "Matrix Fragments for mma.m16n8k4 /
 * m16n8k8 / m16n8k16" with .f64: a_{2j} = A(g, q + 4j), a_{2j+1} = A(g + 8, q + 4j), b_j = B(q + 4j, g)):
 * - m16n8k8: slots q and q + 4 are s0 and s1 (one instruction per chunk);
 * - m16n8k4: slot q is s0 in the first instruction and s1 in the second (two per chunk);
 * - m16n8k16: slots q, q + 4 are chunk kc's s0, s1 and slots q + 8, q + 12 chunk kc + 8's (one
 *   instruction per two chunks).
 * The sum over k ignores which k a slot holds as long as A and B agree, so the shared layout and
 * the reads stay those of m16n8k8.
 */

export type TmaMmaK = 4 | 8 | 16;

/** The m16n8k4 and m16n8k16 helpers (m16n8k8's `mmaF64` is among the design's own); a host harness brings its own. */
export function tmaMmaHelpers(k: TmaMmaK): string {
  if (k === 8) return '';
  const body = k === 4
    ? `static __device__ __forceinline__ void mmaF64k4(double (&c)[4], double a0, double a1, double b0) {
  asm("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
      : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3]) : "d"(a0), "d"(a1), "d"(b0));
}`
    : `static __device__ __forceinline__ void mmaF64k16(double (&c)[4], const double (&a)[4], const double (&a8)[4], const double (&b)[2], const double (&b8)[2]) {
  asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%0, %1, %2, %3};"
      : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a8[0]), "d"(a8[1]), "d"(a8[2]), "d"(a8[3]), "d"(b[0]), "d"(b[1]), "d"(b8[0]), "d"(b8[1]));
}`;
  return `#ifndef MYRIAD_HOST_EMULATION   // a host harness brings its own
// c += a b on one m16n8k${k} tile (tma-mma-shapes.ts: the fragments of m16n8k8's reads ${k === 4 ? 'split' : 'joined'}).
${body}
#endif
`;
}

/**
 * The multiply of one stage (BK = 16): `reads` is the fragment reads of chunk kc into fa[MT][4]
 * and fb[NT][2] (generate-tma.ts fragmentReads).
 */
export function tmaMultiply(k: TmaMmaK, reads: string): string {
  if (k === 16) {
    return `    #pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      real fa2[2][MT][4], fb2[2][NT][2];
      #pragma unroll
      for (int ch = 0; ch < 2; ++ch) {
        const int kc = kk + 8 * ch;
        real (&fa)[MT][4] = fa2[ch];
        real (&fb)[NT][2] = fb2[ch];
${reads}
      }
      #pragma unroll
      for (int u = 0; u < MT; ++u)
        #pragma unroll
        for (int t = 0; t < NT; ++t)
          mmaF64k16(acc[u][t], fa2[0][u], fa2[1][u], fb2[0][t], fb2[1][t]);
    }`;
  }
  const mma = k === 8
    ? `      #pragma unroll
      for (int u = 0; u < MT; ++u)
        #pragma unroll
        for (int t = 0; t < NT; ++t)
          mmaF64(acc[u][t], fa[u], fb[t]);`
    : `      #pragma unroll
      for (int s1 = 0; s1 < 2; ++s1)
        #pragma unroll
        for (int u = 0; u < MT; ++u)
          #pragma unroll
          for (int t = 0; t < NT; ++t)
            mmaF64k4(acc[u][t], fa[u][2 * s1], fa[u][2 * s1 + 1], fb[t][s1]);`;
  return `    #pragma unroll
    for (int kc = 0; kc < BK; kc += 8) {
      real fa[MT][4], fb[NT][2];
${reads}
${mma}
    }`;
}
