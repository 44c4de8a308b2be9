import { describe, expect, it } from 'vitest';
import {
  ariaSort,
  EMPTY_QUERY,
  mergeTableQuery,
  nextSort,
  readTableQuery,
  sortRows,
  tableQueryHash,
  textMatches,
} from './tableQuery';

describe('table views in a URL (issue 23)', () => {
  it('searches every word in any field, ignoring case', () => {
    expect(textMatches(['Molly has a daughter', 'son-wife', 'row 12'], 'molly WIFE')).toBe(true);
    expect(textMatches(['Molly has a daughter', 'son-wife'], 'molly aunt')).toBe(false);
    expect(textMatches(['anything'], '  ')).toBe(true);
  });

  it('sorts numbers as numbers and text naturally, stable, both ways', () => {
    const rows = [
      { id: 'b', k: 10 },
      { id: 'a', k: 2 },
      { id: 'c', k: 2 },
    ];
    expect(sortRows(rows, (r) => r.k, 'asc').map((r) => r.id)).toEqual(['a', 'c', 'b']);
    expect(sortRows(rows, (r) => r.k, 'desc').map((r) => r.id)).toEqual(['b', 'a', 'c']);
    expect(sortRows(['row 10', 'row 9'], (r) => r, 'asc')).toEqual(['row 9', 'row 10']);
  });

  it('cycles a column ascending, descending, unsorted; aria-sort follows', () => {
    let q = { ...EMPTY_QUERY, ...nextSort(EMPTY_QUERY, 'k') };
    expect(ariaSort(q, 'k')).toBe('ascending');
    q = { ...q, ...nextSort(q, 'k') };
    expect(ariaSort(q, 'k')).toBe('descending');
    expect(ariaSort(q, 'task')).toBe('none');
    q = { ...q, ...nextSort(q, 'k') };
    expect(q.sort).toBeNull();
  });

  it('round-trips through the hash, and the default view is the bare route', () => {
    const q = { q: 'son wife', sort: 'k', dir: 'desc' as const, filters: { k: '3', split: 'test' } };
    const hash = tableQueryHash('#/dataset', q);
    expect(hash).toBe('#/dataset?q=son+wife&sort=k&dir=desc&k=3&split=test');
    expect(readTableQuery(hash, ['k', 'task', 'split'])).toEqual(q);
    expect(tableQueryHash('#/dataset', EMPTY_QUERY)).toBe('#/dataset');
    expect(readTableQuery('#/dataset', ['k'])).toEqual(EMPTY_QUERY);
  });

  it('keeps two prefixed tables in one hash, each replacing only its own names', () => {
    const items = { q: 'son', sort: 'accuracy', dir: 'desc' as const, filters: {} };
    let hash = mergeTableQuery('#/results', items, 'items_', []);
    expect(hash).toBe('#/results?items_q=son&items_sort=accuracy&items_dir=desc');
    const people = { q: '', sort: 'session', dir: 'asc' as const, filters: { flagged: '1' } };
    hash = mergeTableQuery(hash, people, 'people_', ['flagged']);
    expect(hash).toBe('#/results?items_q=son&items_sort=accuracy&items_dir=desc&people_sort=session&people_flagged=1');
    expect(readTableQuery(hash, [], 'items_')).toEqual(items);
    expect(readTableQuery(hash, ['flagged'], 'people_')).toEqual(people);
    // A table written again keeps its names where they were.
    expect(mergeTableQuery(hash, { ...items, q: 'wife' }, 'items_', [])).toBe(
      '#/results?items_q=wife&items_sort=accuracy&items_dir=desc&people_sort=session&people_flagged=1',
    );
    hash = mergeTableQuery(hash, EMPTY_QUERY, 'items_', []);
    expect(hash).toBe('#/results?people_sort=session&people_flagged=1');
    expect(mergeTableQuery(hash, EMPTY_QUERY, 'people_', ['flagged'])).toBe('#/results');
  });
});
