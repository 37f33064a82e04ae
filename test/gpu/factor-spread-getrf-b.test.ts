/** The GPU factorization cases of part 'spread-getrf-b' (test/gpu/factor-cases.ts). */
import { registerFactorTests } from './factor-cases.js';

registerFactorTests('spread-getrf-b');
