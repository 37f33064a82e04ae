/** What every family's launcher takes besides the request (tests, benchmarks and sweeps use it). */
export interface FamilyOptions<Force, Tuning> {
  /** A design or shape to use instead of the tuning table's choice. */
  readonly force?: Force;
  /** Plan with this table instead of the device architecture's. */
  readonly tuning?: Tuning;
}
