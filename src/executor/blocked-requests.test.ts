import { describe, expect, it } from 'vitest';
import { BlockedRequestFilter } from './blocked-requests';

describe('BlockedRequestFilter', () => {
  it('takes the first request of each host in a step', () => {
    const filter = new BlockedRequestFilter();
    expect(filter.take(1, 'http://127.0.0.2:8080/fetch')).toBe(true);
    expect(filter.take(1, 'http://127.0.0.2:8080/xhr')).toBe(false);
    expect(filter.take(1, 'https://127.0.0.2/other-port-and-scheme')).toBe(false);
    expect(filter.take(1, 'http://evil.example/a')).toBe(true);
    expect(filter.take(1, 'http://sub.evil.example/a')).toBe(true);
  });

  it('starts afresh at each step, and when the step goes back (a new task)', () => {
    const filter = new BlockedRequestFilter();
    expect(filter.take(1, 'http://127.0.0.2/a')).toBe(true);
    expect(filter.take(2, 'http://127.0.0.2/b')).toBe(true);
    expect(filter.take(2, 'http://127.0.0.2/c')).toBe(false);
    expect(filter.take(0, 'http://127.0.0.2/d')).toBe(true);
  });

  it('keys a URL that does not parse by its text', () => {
    const filter = new BlockedRequestFilter();
    expect(filter.take(1, 'not a url')).toBe(true);
    expect(filter.take(1, 'not a url')).toBe(false);
    expect(filter.take(1, 'also not')).toBe(true);
  });
});
