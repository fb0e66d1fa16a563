import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import { assertBuilt } from './cli-process.js';
import { lineOf, makeDoctorBench, type DoctorBench } from './doctor-bench.js';

/**
 * `cairn doctor` with a real `cairn serve` running for the home: it finds the server through the
 * launcher's run/server.json, and the database line is the server's own `GET /health/db` (a
 * real query and a real write), not a look at the file.
 */

const KEY = 'sk-ant-stored-doctor-secret';
let bench: DoctorBench;
beforeAll(assertBuilt);
beforeEach(async () => {
  bench = await makeDoctorBench();
});
afterEach(async () => {
  await bench.home.close();
});

it('checks the running server, the database through it, the key it made, and a stored credential', async () => {
  const server = await startServer(bench.home);
  const connect = await fetch(`${server.url}/api/auth/providers/anthropic`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', 'x-service-user': 'ann' },
    body: JSON.stringify({ apiKey: KEY }),
  });
  expect(connect.status).toBe(200);
  await bench.fake('claude', '2.1.100 (Claude Code)');
  const res = await bench.doctor([], await bench.packagedFakes());
  expect(res.stderr).toBe('');
  expect(res.code).toBe(0);
  expect(lineOf(res.stdout, 'server')).toMatchObject({
    status: 'ok',
    text: expect.stringMatching(new RegExp(`^${server.url} \\(from ${bench.home.paths.serverFile}\\) answers: Cairn \\d+\\.\\d+\\.\\d+, supervisor up, 0 run\\(s\\) running$`)),
  });
  expect(lineOf(res.stdout, 'database')).toEqual({
    status: 'ok',
    name: 'database',
    text: `answers a query and takes a write (the server at ${server.url} says, GET /health/db)`,
  });
  expect(lineOf(res.stdout, 'install key')).toMatchObject({ status: 'ok', text: expect.stringContaining(`${bench.home.paths.installKey} (mode 0600, id `) });
  // The stored key counts for every provider of its vendor; the key itself is never printed.
  expect(lineOf(res.stdout, 'claude credential')).toMatchObject({ status: 'ok', text: 'found in a stored anthropic credential (1 user)' });
  expect(lineOf(res.stdout, 'anthropic credential').text).toBe('found in a stored anthropic credential (1 user)');
  expect(res.stdout).not.toContain(KEY);
});
