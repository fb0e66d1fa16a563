import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { assertBuilt, runCli, userCliEnv } from './cli-process.js';

/** `cairn config get|set|unset` through the built CLI against the real server: the install's layer and a user's. */

// One server for the file. Only the first test changes the install's layer (and it starts from
// the defaults: the others only change alice's layer or are refused); the second keeps to users
// of its own.
let home: TempHome;
let server: RunningServer;
beforeAll(async () => {
  assertBuilt();
  home = await makeTempHome();
  server = await startServer(home);
});
afterAll(async () => {
  await home.close();
});

const cli = (argv: string[]) => runCli(argv, { env: userCliEnv(home.home, { CAIRN_URL: server.url }), cwd: home.home });

it("shows, sets and unsets the install's default assistant, tiers, aliases and assistant models", async () => {
  const fresh = await cli(['config', 'get']);
  expect(fresh.code).toBe(0);
  expect(fresh.stdout).toMatch(/^assistant = claude\n/);
  expect(fresh.stdout).toMatch(/^tierDefaults\.large = /m);

  expect(await cli(['config', 'set', 'tiers.large', 'claude/claude-opus-4-7', '--effort', 'high'])).toMatchObject({
    code: 0,
    stdout: 'tiers.large = claude/claude-opus-4-7 (effort high) (install config)\n',
  });
  expect(await cli(['config', 'set', 'aliases.@review', 'codex/gpt-5.5'])).toMatchObject({ code: 0 });
  expect(await cli(['config', 'set', 'assistants.codex.model', 'gpt-5.5'])).toMatchObject({ code: 0 });
  expect(await cli(['config', 'set', 'assistant', 'codex'])).toMatchObject({ code: 0, stdout: 'assistant = codex (install config)\n' });
  expect(await cli(['config', 'get', 'tiers.large'])).toMatchObject({ code: 0, stdout: 'claude/claude-opus-4-7 (effort high)\n' });

  const all = await cli(['config', 'get']);
  expect(all.stdout).toContain('assistant = codex\nassistants.codex.model = gpt-5.5\ntiers.large = claude/claude-opus-4-7 (effort high)\naliases.@review = codex/gpt-5.5\n');
  // The server wrote them to the install's config file.
  expect(readFileSync(home.paths.config, 'utf8')).toContain('@review');

  expect(await cli(['config', 'unset', 'tiers.large'])).toMatchObject({ code: 0, stdout: 'tiers.large is unset (install config).\n' });
  expect(await cli(['config', 'unset', 'aliases.@review'])).toMatchObject({ code: 0 });
  const unset = await cli(['config', 'get', 'tiers.large']);
  expect(unset).toMatchObject({ code: 1, stderr: 'cairn: tiers.large is not set in the install config.\n' });
  const json = await cli(['config', 'get', '--json']);
  expect(JSON.parse(json.stdout)).toMatchObject({ assistant: 'codex', tiers: {}, aliases: {} });
});

it("keeps a user's own layer apart from the install's", async () => {
  expect(await cli(['config', 'set', 'default', 'codex/gpt-5.5', '--user', 'alice'])).toMatchObject({
    code: 0,
    stdout: 'default = codex/gpt-5.5 (user alice)\n',
  });
  expect(await cli(['config', 'set', 'tiers.small', 'claude/claude-haiku-4-5', '--user', 'alice'])).toMatchObject({ code: 0 });
  expect(await cli(['config', 'get', '--user', 'alice'])).toMatchObject({
    code: 0,
    stdout: 'default = codex/gpt-5.5\ntiers.small = claude/claude-haiku-4-5\n',
  });
  expect(await cli(['config', 'get', '--user', 'bob'])).toMatchObject({ code: 0, stdout: 'Nothing is set for user bob.\n' });
  expect((await cli(['config', 'get', 'tiers.small'])).code).toBe(1);
  expect(await cli(['config', 'unset', 'default', '--user', 'alice'])).toMatchObject({ code: 0, stdout: 'default is unset (user alice).\n' });
});

it('refuses bad keys and values: the CLI names its own keys (exit 2), the server names a bad provider, tier or alias (exit 1)', async () => {
  const unknown = await cli(['config', 'set', 'colour', 'blue']);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain("Unknown key 'colour'. The install's keys are assistant, assistants.<id>.model, tiers.small|medium|large");
  const noSlash = await cli(['config', 'set', 'tiers.large', 'opus']);
  expect(noSlash).toMatchObject({ code: 2 });
  expect(noSlash.stderr).toContain('The value of tiers.large is <provider>/<model>');
  expect((await cli(['config', 'set', 'tierDefaults.large', 'claude/x'])).stderr).toContain('tierDefaults.large is read only');
  expect((await cli(['config', 'unset', 'assistant'])).code).toBe(2);
  expect((await cli(['config', 'set', 'assistant', 'claude', '--effort', 'high'])).code).toBe(2);

  const tier = await cli(['config', 'set', 'tiers.huge', 'claude/x']);
  expect(tier.code).toBe(1);
  expect(tier.stderr).toContain("unknown tier 'huge'");
  const provider = await cli(['config', 'set', 'tiers.large', 'nope/x']);
  expect(provider.code).toBe(1);
  expect(provider.stderr).toContain('nope');
  const effort = await cli(['config', 'set', 'tiers.large', 'claude/x', '--effort', 'minimal']);
  expect(effort.code).toBe(1);
  expect(effort.stderr).toContain("'minimal' is not an effort of provider 'claude' (low, medium, high, xhigh, max)");
  expect((await cli(['config', 'set', 'tiers.large', 'claude/x', '--effort', 'ludicrous'])).stderr).toContain('tiers.large.effort: Invalid option');

  // Shell metacharacters in a key are data: the server refuses the alias name, nothing runs.
  const hostile = await cli(['config', 'set', 'aliases.@$(touch pwned);`id`', 'claude/x']);
  expect(hostile.code).toBe(1);
  expect(hostile.stderr).toContain("may hold only letters, digits, '.', '_' and '-' after the '@'");
  expect(existsSync(join(home.home, 'pwned'))).toBe(false);
  expect((await cli(['config', 'get'])).stdout).not.toContain('pwned');
});
