/** The GPU factorization cases of part 'large-getrf' (test/gpu/factor-cases.ts). */
import { registerFactorTests } from './factor-cases.js';

registerFactorTests('large-getrf');
