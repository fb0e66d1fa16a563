import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorCodes } from '../../src/shared/errors.js';
import { listen, makeTestApp } from '../helpers/app.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';

let home: TempHome;
let url: string;
beforeEach(async () => {
  home = await makeTempHome();
  url = await listen((await makeTestApp(home)).app);
});
afterEach(async () => {
  await home.close();
});

/** Every refusal: exactly `{ error, code }`, one of our codes, and no long stretch of the input. */
async function expectRefusal(res: Response, status: number, code: string, input?: string): Promise<string> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await res.json()) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['code', 'error']);
  expect(body.code).toBe(code);
  expect(errorCodes).toContain(body.code);
  const error = String(body.error);
  expect(error.length).toBeLessThan(600);
  if (input) expect(error).not.toContain(input.slice(0, 200));
  return error;
}

/** Sends raw bytes and reads until the server closes: for requests fetch would refuse to send. */
function rawExchange(base: string, request: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = connect(Number(port), hostname, () => socket.end(request));
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('close', () => resolve(answer));
    socket.on('error', (err) => (answer ? resolve(answer) : reject(err)));
  });
}

describe('every error answer has our shape and codes', () => {
  it('answers a path segment longer than any id with 414 URL_TOO_LONG, quoting only an excerpt', async () => {
    const id = 'a'.repeat(5000);
    const error = await expectRefusal(await fetch(`${url}/api/workflows/runs/${id}`), 414, 'URL_TOO_LONG', id);
    expect(error).toContain('GET /api/workflows/runs/aaaa');
    expect(error).toContain('(5020 characters)');
  });

  it('lets an id as long as the documented 200 characters reach its route', async () => {
    await expectRefusal(await fetch(`${url}/api/workflows/runs/${'r'.repeat(200)}`), 404, 'RUN_NOT_FOUND');
  });

  it('answers a URL that does not decode with 400 INVALID_URL', async () => {
    const error = await expectRefusal(await fetch(`${url}/api/workflows/%E0%A4%A`), 400, 'INVALID_URL');
    expect(error).toContain('/api/workflows/%E0%A4%A');
    expect(error).toContain('encodeURIComponent');
  });

  it('answers headers over the limit with 431 HEADERS_TOO_LARGE and a JSON body', async () => {
    const big = 'h'.repeat(20_000);
    const answer = await rawExchange(url, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${big}\r\n\r\n`);
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    expect(head.toLowerCase()).toContain('content-type: application/json');
    const parsed = JSON.parse(body) as Record<string, unknown>;
    expect(Object.keys(parsed).sort()).toEqual(['code', 'error']);
    expect(parsed.code).toBe('HEADERS_TOO_LARGE');
    expect(parsed.error).toContain('16384-byte limit');
  });

  it('answers bytes that are not HTTP with 400 MALFORMED_REQUEST', async () => {
    const answer = await rawExchange(url, 'HELLO THERE\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(answer.split('\r\n\r\n')[1] ?? '')).toMatchObject({ code: 'MALFORMED_REQUEST' });
  });

  it('answers a text/plain body with 415, as for any content type other than JSON', async () => {
    const res = await fetch(`${url}/api/workflows/demo/run`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'run it',
    });
    const error = await expectRefusal(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(error).toContain("'text/plain'");
    expect(error).toContain('application/json');
  });

  it('quotes a long unknown content type by excerpt only', async () => {
    const type = `application/${'x'.repeat(4000)}`;
    const res = await fetch(`${url}/api/workflows/demo/run`, { method: 'POST', headers: { 'content-type': type }, body: '{}' });
    await expectRefusal(res, 415, 'UNSUPPORTED_MEDIA_TYPE', type);
  });

  it('names a missing route by an excerpt of its path', async () => {
    const path = `/api/${'n'.repeat(3000)}`;
    const error = await expectRefusal(await fetch(`${url}${path}?q=1`), 404, 'NOT_FOUND', path);
    expect(error).toMatch(/^Route not found: GET \/api\/nnnn/);
  });

  it('shortens a refusal that quotes a huge field name from the body', async () => {
    const field = 'f'.repeat(100_000);
    const res = await fetch(`${url}/api/workflows/demo/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ [field]: 'x' }),
    });
    const error = await expectRefusal(res, 400, 'VALIDATION_FAILED', field);
    expect(error).toMatch(/^Unknown field 'ffff/);
    expect(error).toContain('… (100000 characters)');
    expect(error).toMatch(/accepted fields are .*config, codebaseId, branch, baseBranch, budget$/);
  });
});
