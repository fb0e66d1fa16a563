import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { loadSettings } from '../../src/shared/config.js';
import { readRunModelLayers } from '../../src/runs/run-model-layers.js';
import { resolveModelBinding } from '../../src/models/model-binding.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

it("reads each scope of a run: the install file as it is now, the checkout's config, the user's prefs, the run's own layer", async () => {
  const store = home.openStore();
  const settings = loadSettings({ CAIRN_HOME: home.home });
  writeFileSync(join(home.home, 'config.yaml'), 'defaultAssistant: codex\ntiers:\n  small: codex/install-small\n');
  const project = join(home.home, 'p');
  mkdirSync(join(project, '.archon'), { recursive: true });
  writeFileSync(join(project, '.archon', 'config.yaml'), 'assistant: claude\n');
  await store.patchAiPrefs('erin', { kind: 'aliases', entries: { '@mine': { provider: 'claude', model: 'opus' } } });
  const layers = await readRunModelLayers(
    { user_id: 'erin', metadata: { workflow_source: 'global', workflow_filename: 'x.yaml', model_bindings: { tiers: { large: 'claude/run-large' }, aliases: {}, source: { 'tiers.large': 'request' } } } },
    project,
    { store, settings },
  );
  expect(layers).toEqual({
    install: { defaultAssistant: 'codex', tiers: { small: 'codex/install-small' } },
    repository: { defaultAssistant: 'claude' },
    user: { aliases: { '@mine': { provider: 'claude', model: 'opus' } } },
    run: { tiers: { large: 'claude/run-large' }, aliases: {} },
  });
});

it("turns a config file that does not read into a problem for the run's AI nodes, naming the file", async () => {
  const store = home.openStore();
  const settings = loadSettings({ CAIRN_HOME: home.home });
  const project = join(home.home, 'p');
  mkdirSync(join(project, '.cairn'), { recursive: true });
  writeFileSync(join(project, '.cairn', 'config.yaml'), 'tiers:\n  large: [1, 2]\n');
  const layers = await readRunModelLayers({ user_id: null, metadata: { workflow_source: 'global', workflow_filename: 'x.yaml' } }, project, { store, settings });
  expect(layers.problems).toHaveLength(1);
  const binding = resolveModelBinding({ node: { model: 'large' }, workflow: {}, layers });
  expect(binding).toMatchObject({ ok: false, error: expect.stringContaining('.cairn/config.yaml') });
  expect(binding.ok === false && binding.error).toContain('tiers.large');
});
