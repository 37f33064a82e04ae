/** Elements a rows x cols column-major matrix with this ld spans (0 for an empty one). */
export function footprintOf(rows: number, cols: number, ld: number): number {
  return rows === 0 || cols === 0 ? 0 : (cols - 1) * ld + rows;
}
