/** The GPU factorization cases of part 'large-potrf' (test/gpu/factor-cases.ts). */
import { registerFactorTests } from './factor-cases.js';

registerFactorTests('large-potrf');
