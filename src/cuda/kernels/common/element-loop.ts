/**
 * The grid-stride loop over every element of `count` matrices of `rows` x `cols` (kernel arguments
 * of those names), matrix by matrix, column by column: inside it `e` is the element's index over
 * the batch, `mat` its matrix and (i, j) its row and column. The copy, zero and transpose kernels
 * of several families share it.
 */
export function matrixElementsLoop(body: string): string {
  return `  const long long per = (long long)rows * cols;
  const long long total = per * count;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total; e += (long long)gridDim.x * blockDim.x) {
    const int mat = (int)(e / per);
    const long long w = e - mat * per;
    const int j = (int)(w / rows), i = (int)(w - (long long)j * rows);
${body}
  }`;
}
