/** The GPU factorization cases of part 'getrf' (test/gpu/factor-cases.ts). */
import { registerFactorTests } from './factor-cases.js';

registerFactorTests('getrf');
