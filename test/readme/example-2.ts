// The host-path example of README.md (async form, reused arrays), verbatim (test/core/readme.test.ts checks that it stays so).
import { open, strided } from 'myriad';
const n = 16, count = 1000;
const A = new Float64Array(n * n * count), B = new Float64Array(n * count);
const info = new Int32Array(count);                   // reused from call to call, like A and B
const ctx = open();
for (let step = 1; step <= 3; step++) {
  A.fill(0);                                          // this step's SPD matrices: 4^step I
  for (let i = 0; i < count; i++) for (let j = 0; j < n; j++) A[i * n * n + j * (n + 1)] = 4 ** step;
  B.fill(1);
  await ctx.posvAsync({ a: strided(A, { rows: n, count }), b: strided(B, { rows: n, cols: 1, count }), info });
  console.log(step, B[0], info.every((x) => x === 0)); // 1 0.25 true, 2 0.0625 true, 3 0.015625 true
}
