// The bridge example of README.md, verbatim (test/core/readme.test.ts checks that it stays so).
import { asArray, batchOf, gemm, gesv, ndarray, strided } from 'myriad';

// Row-major stacks straight into LAPACK-level calls: order, rows, cols, ld and stride come from the shape.
const a = ndarray(new Float64Array([2, 1, 1, 3, 4, 0, 0, 5]), [2, 2, 2]);  // two 2 x 2 matrices
const b = ndarray(new Float64Array([7, 6, 8, 10]), [2, 2, 1]);            // one vector per matrix: [count, n, 1]
gesv({ a, b, check: true });         // check: a failed matrix throws a MyriadError naming it (opt-in)
console.log(b.data);                 // [3, 1, 2, 2]

// One matrix for every member of the batch (stride 0), and a column-major batch back as an array.
const F = ndarray(new Float64Array([1, 1, 0, 1]), [2, 2]);
const y = ndarray(new Float64Array(4), [2, 2, 1]);
gemm({ a: batchOf(F, { count: 2 }), b, c: y });                          // y_i = F x_i
console.log(y.data);                 // [4, 1, 4, 2]
const colMajor = strided(new Float64Array([1, 3, 2, 4]), { rows: 2, cols: 2, count: 1 });
console.log(asArray(colMajor).data); // [1, 2, 3, 4]: row-major
