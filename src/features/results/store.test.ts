import { describe, expect, it } from 'vitest';
import { exportUrl } from './store';

describe('exportUrl', () => {
  it("is the server's JSON export, under a reverse proxy's path too, the study as a query parameter", () => {
    expect(exportUrl('http://127.0.0.1:8080', '')).toBe('http://127.0.0.1:8080/api/results.json');
    expect(exportUrl('https://lab.example/clutrr', ' my study ')).toBe(
      'https://lab.example/clutrr/api/results.json?study=my+study',
    );
    expect(exportUrl('https://lab.example/clutrr/', 'a&b')).toBe(
      'https://lab.example/clutrr/api/results.json?study=a%26b',
    );
  });

  it('refuses what is not an address', () => {
    expect(() => exportUrl('localhost 8080', '')).toThrow();
  });
});
