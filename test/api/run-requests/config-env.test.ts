import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../../helpers/app.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { writeHomeWorkflow } from '../../helpers/workflows.js';
import { openSecret } from '../../../src/shared/secrets/sealed.js';

/** `config.env` on the run request: which names and values are refused, and how the accepted ones are kept. */

let home: TempHome;
let t: TestApp;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
  await writeHomeWorkflow(home, 'plain', 'name: plain\ndescription: p\nnodes:\n  - id: a\n    bash: "true"\n');
});
afterEach(async () => {
  await home.close();
});

async function run(env: unknown) {
  const res = await t.app.inject({ method: 'POST', url: '/api/workflows/plain/run', payload: { config: { env } } });
  return { status: res.statusCode, body: res.json() as Record<string, any> };
}

describe('config.env on a run request', () => {
  it.each([
    ['PATH', /config\.env key 'PATH' is not accepted: it decides which bash/],
    ['LD_PRELOAD', /config\.env key 'LD_PRELOAD' is not accepted: the dynamic loader/],
    ['LD_LIBRARY_PATH', /config\.env key 'LD_LIBRARY_PATH' is not accepted/],
    ['DYLD_INSERT_LIBRARIES', /config\.env key 'DYLD_INSERT_LIBRARIES' is not accepted/],
    ['NODE_OPTIONS', /config\.env key 'NODE_OPTIONS' is not accepted: it loads code/],
    ['BASH_ENV', /config\.env key 'BASH_ENV' is not accepted/],
    ['SHELLOPTS', /config\.env key 'SHELLOPTS' is not accepted/],
    ['IFS', /config\.env key 'IFS' is not accepted/],
    ['ARTIFACTS_DIR', /config\.env key 'ARTIFACTS_DIR' is not accepted: Cairn sets/],
    ['CAIRN_EXEC_SPAWNER', /config\.env key 'CAIRN_EXEC_SPAWNER' is not accepted/],
    ['INPUTS_VERSION', /config\.env key 'INPUTS_VERSION' is not accepted/],
    ['A=B', /config\.env key 'A=B' is not a valid variable name/],
    ['NUL\u0000NAME', /config\.env key 'NUL\u0000NAME' is not a valid variable name/],
    ['9LIVES', /is not a valid variable name/],
    ['', /config\.env key '' is not a valid variable name/],
  ])('refuses the name %j with a 400 naming it, and queues nothing', async (name, message) => {
    const { status, body } = await run({ [name]: 'x' });
    expect(status).toBe(400);
    expect(body.code).toBe('VALIDATION_FAILED');
    expect(body.error).toMatch(message);
    expect(await t.store.listRuns({ limit: 10 })).toEqual([]);
  });

  it('refuses a NUL byte in a value, a value over the limit (1 MB) and a non-string value, naming the key', async () => {
    const nul = await run({ TOKEN: 'a\u0000b' });
    expect(nul.status).toBe(400);
    expect(nul.body.error).toContain("config.env value for 'TOKEN' must not contain a NUL byte");
    const huge = await run({ BIG: 'x'.repeat(1_000_000) });
    expect(huge.status).toBe(400);
    expect(huge.body.error).toMatch(/config\.env value for 'BIG' is 1000000 bytes; a value may be at most 32768/);
    const number = await run({ N: 5 });
    expect(number.status).toBe(400);
    expect(number.body.error).toContain("config.env value for 'N' must be a string");
    expect(await t.store.listRuns({ limit: 10 })).toEqual([]);
  });

  it('refuses more names, or more bytes in all, than a process environment should carry', async () => {
    const many = await run(Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`V${i}`, 'x'])));
    expect(many.status).toBe(400);
    expect(many.body.error).toContain('config.env has 65 names; at most 64');
    const total = await run(Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`V${i}`, 'x'.repeat(30_000)])));
    expect(total.status).toBe(400);
    expect(total.body.error).toContain('config.env values total 150000 bytes; at most 131072');
  });

  it('keeps the names in overrides.env_names and the values sealed for this run only, never in the answer', async () => {
    const value = 'multi\nline = value with "quotes" and ünïcode';
    const { status, body } = await run({ TOKEN: value, lower_case: 'ok' });
    expect(status).toBe(200);
    const stored = await t.store.getRun(body.runId as string);
    expect(stored?.metadata.overrides?.env_names).toEqual(['TOKEN', 'lower_case']);
    expect(stored?.metadata.overrides?.config).toEqual({});
    const sealed = stored!.metadata.sealed_env!;
    expect(sealed).not.toContain('multi');
    const key = t.settings.installKey();
    expect(JSON.parse(openSecret(key, sealed, `run-env:${stored!.id}`))).toEqual({ TOKEN: value, lower_case: 'ok' });
    // Sealed for this run: it does not open as another run's.
    expect(() => openSecret(key, sealed, 'run-env:another-run')).toThrow(/does not open/);
    const detail = await t.app.inject({ method: 'GET', url: `/api/workflows/runs/${body.runId as string}` });
    expect(detail.body).not.toContain('sealed_env');
    expect(detail.body).not.toContain('multi');
  });
});
