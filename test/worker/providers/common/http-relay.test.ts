import { expect, it } from 'vitest';
import { startHttpRelay } from '../../../../src/worker/providers/common/http-relay.js';
import { freePort } from '../../../helpers/free-port.js';

/** The relay in front of a CLI's model server, when that server does not answer. */

it('answers a CLI 502 naming the address it tried and the socket error, and records it', async () => {
  // A port nothing listens on (fetch refuses some low ports outright, 9 among them).
  const upstream = `http://127.0.0.1:${await freePort()}/v1`;
  const refused: string[] = [];
  const relay = await startHttpRelay(upstream, (answer) => refused.push(answer.errorBody ?? ''));
  try {
    const res = await fetch(`${relay.url}/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ error: { message: `cannot connect to the provider at ${upstream}: ECONNREFUSED` } });
    expect(refused).toEqual([`connection failed: cannot connect to the provider at ${upstream}: ECONNREFUSED`]);
  } finally {
    await relay.close();
  }
});
