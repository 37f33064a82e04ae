/** The GPU factorization cases of part 'batches-mid' (test/gpu/factor-cases.ts): mid sizes at the table's matrices an SM. */
import { registerFactorTests } from './factor-cases.js';

registerFactorTests('batches-mid');
