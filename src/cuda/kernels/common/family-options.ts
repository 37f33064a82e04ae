/** What every family's launcher takes besides the request (tests, benchmarks and sweeps use it). */
export interface FamilyOptions<Force, Tuning> {
  /** A design or shape to use instead of the tuning table's choice. */
  readonly force?: Force;
  /** Plan with this table instead of the device architecture's. */
  readonly tuning?: Tuning;
}

/**
 * Whether a family with a recursive driver is told to take it: `force.recursive` where given; else
 * a forced one-block design (`force.variant`: tests, sweeps of that design) means no recursion;
 * else undefined (the planner decides).
 */
export function recursionForced(force: { readonly recursive?: boolean; readonly variant?: unknown } | undefined): boolean | undefined {
  return force?.recursive ?? (force?.variant !== undefined ? false : undefined);
}
