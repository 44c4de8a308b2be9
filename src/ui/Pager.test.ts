import { describe, expect, it } from 'vitest';
import { pageWindow } from './Pager';

describe('pageWindow', () => {
  it('clamps the page and gives the first item of it', () => {
    expect(pageWindow(53, 0, 25)).toEqual({ page: 0, pages: 3, start: 0 });
    expect(pageWindow(53, 9, 25)).toEqual({ page: 2, pages: 3, start: 50 });
    expect(pageWindow(0, 3, 25)).toEqual({ page: 0, pages: 1, start: 0 });
    expect(pageWindow(10, -1, 25)).toEqual({ page: 0, pages: 1, start: 0 });
  });
});
