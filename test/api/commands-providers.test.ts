import { readdir } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listProviders } from '../../src/shared/providers/registry.js';
import { defaultLocations } from '../../src/workflow/catalog/locations.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { makeProject, writeAt } from './workflow-fixtures.js';

let home: TempHome;
let t: TestApp;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
});
afterEach(async () => {
  await home.close();
});

describe('GET /api/commands', () => {
  it('lists bundled commands without cwd, as { name, source } only', async () => {
    const bundled = (await readdir(defaultLocations(home.home).bundledCommandsDir)).filter((f) => f.endsWith('.md')).map((f) => f.slice(0, -3));
    const res = await t.app.inject({ url: '/api/commands' });
    expect(res.statusCode).toBe(200);
    const { commands } = res.json();
    expect(commands.map((c: { name: string }) => c.name)).toEqual([...bundled].sort());
    expect(commands[0]).toEqual({ name: expect.any(String), source: 'bundled' });
  });

  it('adds home and project commands; the project wins a name, then home, then bundled', async () => {
    const project = await makeProject(home);
    await writeAt(project, '.cairn/commands/ship.md', 'Ship it');
    await writeAt(project, '.archon/commands/defaults/legacy.md', 'Old command');
    await writeAt(project, '.cairn/commands/cairn-plan.md', 'Project plan');
    await writeAt(home.home, 'commands/mine.md', 'Home command');
    await writeAt(home.home, 'commands/cairn-review.md', 'Home review');
    const { commands } = (await t.app.inject({ url: '/api/commands', query: { cwd: project } })).json();
    const byName = Object.fromEntries(commands.map((c: { name: string; source: string }) => [c.name, c.source]));
    expect(byName).toMatchObject({
      ship: 'project',
      legacy: 'project',
      'cairn-plan': 'project',
      mine: 'global',
      'cairn-review': 'global',
      'cairn-implement': 'bundled',
    });
    const withoutCwd = (await t.app.inject({ url: '/api/commands' })).json().commands.map((c: { name: string }) => c.name);
    expect(withoutCwd).not.toContain('ship');
  });

  it('refuses a cwd that does not exist', async () => {
    const res = await t.app.inject({ url: '/api/commands', query: { cwd: '/definitely/not/here' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: "Invalid cwd: '/definitely/not/here' is not an existing directory", code: 'CWD_INVALID' });
  });
});

describe('GET /api/providers', () => {
  it('lists every registered provider with its display name, capabilities and builtIn', async () => {
    const res = await t.app.inject({ url: '/api/providers' });
    expect(res.statusCode).toBe(200);
    const expected = listProviders().map(({ id, displayName, capabilities, builtIn }) => ({ id, displayName, capabilities, builtIn }));
    expect(res.json()).toEqual({ providers: expected });
    expect(res.json().providers.map((p: { id: string }) => p.id)).toEqual(
      expect.arrayContaining(['claude', 'codex', 'opencode', 'pi', 'copilot']),
    );
  });
});
