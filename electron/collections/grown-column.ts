// Typed columns grown by a copy: the model's node table and the analysis' hot prefixes keep
// their per-id values in such columns.

/** A typed column of per-id values. */
export type Column = Float64Array | Int32Array | Uint8Array;

/** A column of length n holding a's values first. */
export function grown<T extends Column>(a: T, n: number): T {
  const out = new (a.constructor as new (n: number) => T)(n);
  out.set(a);
  return out;
}
