import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../../helpers/app.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';

/** The examples of docs/http-api.md's "Provider credentials" section have the real answers' keys and values. */

const doc = readFileSync(new URL('../../../docs/http-api.md', import.meta.url), 'utf8');
const section = doc.slice(doc.indexOf('## Provider credentials'), doc.indexOf('## Codebases'));

/** The first ```json block after `marker` in the section. */
function example(marker: string): Record<string, any> {
  const at = section.indexOf(marker);
  expect(at, marker).toBeGreaterThan(-1);
  return JSON.parse(/```json\n([\s\S]*?)\n```/.exec(section.slice(at))![1]!) as Record<string, any>;
}

const ann = { 'x-service-user': 'ann' };
let home: TempHome;
let t: TestApp;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home, { env: { HOME: home.home } });
});
afterEach(async () => {
  await home.close();
});

it('shows the provider list answer as the server gives it for a user with one key', async () => {
  await t.app.inject({ method: 'PUT', url: '/api/auth/providers/anthropic', headers: ann, payload: { apiKey: 'sk-1', label: 'work' } });
  const real = (await t.app.inject({ url: '/api/auth/providers', headers: ann })).json();
  const shown = example('### `GET /api/auth/providers`');
  expect(Object.keys(shown)).toEqual(Object.keys(real));
  expect(shown.connections).toEqual(real.connections);
  expect(shown.available).toEqual(real.available);
  expect(shown.subscriptionAvailable).toEqual(real.subscriptionAvailable);
  expect(real.agents[0]).toEqual(shown.agents[0]);
});

it('shows the start answers of both login modes with their real keys', async () => {
  const manual = (await t.app.inject({ method: 'POST', url: '/api/auth/providers/anthropic/oauth/start', headers: ann })).json();
  expect(Object.keys(example('Manual:')).sort()).toEqual(Object.keys(manual).sort());
  expect(example('Manual:')).toMatchObject({ mode: 'manual', expiresIn: manual.expiresIn });
  expect(manual.url.startsWith(example('Manual:').url.replace('…', ''))).toBe(true);
  const device = example('Device:');
  expect(Object.keys(device).sort()).toEqual(['expiresIn', 'interval', 'mode', 'sessionId', 'userCode', 'verificationUri']);
});
