import { expect, it } from 'vitest';
import { isConnectionError } from '../../src/store/postgres/session.js';

it('takes every way a network split shows for a server out of reach, to be waited out, and nothing else', () => {
  for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'EHOSTDOWN', 'EPIPE', '08006']) {
    expect(isConnectionError(Object.assign(new Error(`connect ${code}`), { code })), code).toBe(true);
  }
  expect(isConnectionError(new Error('Connection terminated unexpectedly'))).toBe(true);
  // A statement's own failure (a unique violation, a syntax error) is not the network's.
  for (const code of ['23505', '42601', 'EINVAL']) expect(isConnectionError(Object.assign(new Error(code), { code })), code).toBe(false);
});
