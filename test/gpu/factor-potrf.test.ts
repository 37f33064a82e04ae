/** The GPU factorization cases of part 'potrf' (test/gpu/factor-cases.ts). */
import { registerFactorTests } from './factor-cases.js';

registerFactorTests('potrf');
