/** The GPU factorization cases of part 'blocked-getrf' (test/gpu/factor-cases.ts). */
import { registerFactorTests } from './factor-cases.js';

registerFactorTests('blocked-getrf');
