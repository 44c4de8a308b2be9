/**
 * `f` remembered per key, for values that rows repeat (names, relation words): the cache is
 * emptied once it holds `limit` keys, so inputs without end (a user's names) keep memory bounded.
 */
export function boundedMemo<K, V>(limit: number, f: (key: K) => V): (key: K) => V {
  const cache = new Map<K, V>();
  return (key) => {
    let value = cache.get(key);
    if (value === undefined) {
      if (cache.size >= limit) cache.clear();
      cache.set(key, (value = f(key)));
    }
    return value;
  };
}
