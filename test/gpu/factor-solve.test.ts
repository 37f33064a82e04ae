/** The GPU factorization cases of part 'solve' (test/gpu/factor-cases.ts). */
import { registerFactorTests } from './factor-cases.js';

registerFactorTests('solve');
