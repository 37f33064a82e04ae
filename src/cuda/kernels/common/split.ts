/**
 * Where the recursive families (trsm and trmm, syrk, lauum, trtri, the large potrf and getrf)
 * split a triangle or a panel in two.
 */

/** Where a triangle of t > 1 splits: near the half, at a multiple of `align` where one fits. */
export function splitPoint(t: number, align: number): number {
  const h = Math.max(align, Math.round(t / 2 / align) * align);
  return h < t ? h : Math.floor(t / 2);
}
