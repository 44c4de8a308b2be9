/**
 * `xs.map(f)`, written as a loop that pushes into one array literal. Every array the generator's
 * hot path maps goes through this one literal, so V8 makes them all with the same elements kind
 * (its allocation site learns "objects" once and then makes every array that way). With
 * `Array.prototype.map` the kind depends on the values and on whether the caller runs optimized
 * (an inlined map makes its arrays differently): code optimized on one kind then meets another
 * and is thrown away and compiled again, which kept the first few thousand rows of every
 * `generate` thread slow.
 */
export function mapped<T, U>(xs: readonly T[], f: (x: T, i: number) => U): U[] {
  const out: U[] = [];
  for (let i = 0; i < xs.length; i++) out.push(f(xs[i]!, i));
  return out;
}
