import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readProjectRunConfig, readProjectWorktreeEnabled } from '../../src/workflow/project/project-run-config.js';
import { loadSettings } from '../../src/shared/config.js';
import { resolveModelBinding } from '../../src/models/model-binding.js';
import { modelLayerOf } from '../../src/workflow/project/model-layer-files.js';
import { loadOAuthEndpoints } from '../../src/credentials/oauth/oauth-endpoints.js';
import { docYamlBlocks, isMapping, isSubset, rawNodes } from './doc-yaml-blocks.js';
import { makeTempProject, workflowYaml, type TempProject } from './temp-project.js';

/**
 * Every ```yaml block of docs/*.md is tied to a fixture that loads (examples.test.ts loads the
 * fixtures): a whole workflow must equal a file of test/fixtures/workflows/examples/workflows,
 * a list of nodes must be nodes of those files, a fragment of a node or of a workflow's top
 * level must be part of one, and a project config block must load. Editing an example in the
 * docs without its fixture, or writing one that does not parse, fails here.
 */

const docs = fileURLToPath(new URL('../../docs/', import.meta.url));
const examples = fileURLToPath(new URL('../fixtures/workflows/examples/', import.meta.url));
const fixtureDir = join(examples, 'workflows');
const fixtures = readdirSync(fixtureDir).map((f) => ({ file: f, raw: parse(readFileSync(join(fixtureDir, f), 'utf8')) as unknown }));
const fixtureNodes = fixtures.flatMap((f) => rawNodes(f.raw));
const blocks = docYamlBlocks(docs, 'docs');

const isConfigBlock = (v: Record<string, unknown>) => Object.keys(v).every((k) => ['workflows', 'commands'].includes(k));
/** An install config block of docs/providers.md (`$CAIRN_HOME/config.yaml`). */
const isProviderConfigBlock = (v: Record<string, unknown>, where: string) =>
  where.startsWith('docs/providers.md') && Object.keys(v).every((k) => ['defaultAssistant', 'assistants', 'concurrency'].includes(k));
/** A model config block of docs/models.md (install or repository scope). */
const isModelConfigBlock = (v: Record<string, unknown>, where: string) =>
  where.startsWith('docs/models.md') && Object.keys(v).every((k) => ['defaultAssistant', 'assistant', 'assistants', 'tiers', 'aliases'].includes(k));
/** The `oauth:` endpoints block of docs/providers.md (`$CAIRN_HOME/config.yaml`). */
const isOAuthConfigBlock = (v: Record<string, unknown>, where: string) =>
  where.startsWith('docs/providers.md') && Object.keys(v).length === 1 && 'oauth' in v;
/** The webhooks' block of docs/webhooks.md (`$CAIRN_HOME/config.yaml`): the deliveries' retention. */
const isWebhookConfigBlock = (v: Record<string, unknown>, where: string) =>
  where.startsWith('docs/webhooks.md') && Object.keys(v).length === 1 && 'webhooks' in v;
/** A project config block of docs/worktrees.md or docs/workflows.md of run settings: `worktree` and `docs`. */
const isRunConfigBlock = (v: Record<string, unknown>, where: string) =>
  (where.startsWith('docs/worktrees.md') || where.startsWith('docs/workflows.md')) &&
  Object.keys(v).length > 0 &&
  Object.keys(v).every((k) => k === 'worktree' || k === 'docs') &&
  !('name' in v);

let t: TempProject;
beforeEach(() => {
  t = makeTempProject();
  cpSync(fixtureDir, join(t.cwd, '.cairn', 'workflows'), { recursive: true });
});
afterEach(() => t.close());

describe('the yaml blocks of docs/', () => {
  it('are found (docs/workflows.md has its examples)', () => {
    expect(blocks.filter((b) => b.where.startsWith('docs/workflows.md')).length).toBeGreaterThanOrEqual(15);
  });

  it.each(blocks.map((b) => [b.where, b] as const))('%s matches a fixture that loads', async (where, block) => {
    const { value } = block;
    if (isMapping(value) && 'name' in value && 'nodes' in value) {
      const twin = fixtures.find((f) => isMapping(f.raw) && f.raw.name === value.name);
      expect(twin, `no fixture workflow named ${String(value.name)}`).toBeDefined();
      expect(twin!.raw, `drifted from ${twin!.file}`).toEqual(value);
      return;
    }
    if (Array.isArray(value)) {
      for (const node of value) expect(fixtureNodes, 'a node not in any fixture workflow').toContainEqual(node);
      return;
    }
    expect(isMapping(value), 'a yaml block that is neither a workflow, nodes nor a mapping').toBe(true);
    const part = value as Record<string, unknown>;
    if (isRunConfigBlock(part, where)) {
      // It loads, each setting reads as written, and no key of it draws a warning.
      writeFileSync(join(t.cwd, '.cairn', 'config.yaml'), block.text);
      const worktree = (part.worktree ?? {}) as { enabled?: unknown; baseBranch?: unknown };
      const docs = (part.docs ?? {}) as { path?: unknown };
      expect(worktree.enabled === undefined || typeof worktree.enabled === 'boolean').toBe(true);
      expect(await readProjectWorktreeEnabled(t.cwd)).toBe(worktree.enabled);
      const config = await readProjectRunConfig(t.cwd);
      expect(config.baseBranch).toEqual(worktree.baseBranch === undefined ? undefined : { value: worktree.baseBranch, file: '.cairn/config.yaml' });
      expect(config.docsPath).toEqual(docs.path === undefined ? undefined : { value: docs.path, file: '.cairn/config.yaml' });
      expect(t.catalog.list({ cwd: t.cwd }).configWarnings).toEqual([]);
      return;
    }
    if (isModelConfigBlock(part, where)) {
      // It loads as a model layer, and every tier and alias in it resolves (models-doc.test.ts runs the example).
      const layer = modelLayerOf(part, where);
      for (const name of [...Object.keys(layer.tiers ?? {}), ...Object.keys(layer.aliases ?? {})]) {
        expect(resolveModelBinding({ node: { model: name }, workflow: {}, layers: { install: layer } }), name).toMatchObject({ ok: true });
      }
      return;
    }
    if (isOAuthConfigBlock(part, where)) {
      // It loads, and each key it sets is the one the logins use.
      writeFileSync(join(t.cwd, 'config.yaml'), block.text);
      const endpoints = loadOAuthEndpoints(join(t.cwd, 'config.yaml'), {}) as Record<string, unknown>;
      for (const [vendor, keys] of Object.entries(part.oauth as Record<string, Record<string, string>>)) {
        expect(endpoints[vendor]).toMatchObject(keys);
      }
      return;
    }
    if (isWebhookConfigBlock(part, where)) {
      // It loads, and the retention the supervisor prunes by is the one it sets.
      writeFileSync(join(t.cwd, 'config.yaml'), block.text);
      const { deliveryRetentionDays } = part.webhooks as { deliveryRetentionDays: number };
      expect(loadSettings({ CAIRN_HOME: t.cwd }).hookDeliveryRetentionDays).toBe(deliveryRetentionDays);
      return;
    }
    if (isProviderConfigBlock(part, where)) {
      // An install config example: it loads, and says what the page says it does.
      writeFileSync(join(t.cwd, 'config.yaml'), block.text);
      const settings = loadSettings({ CAIRN_HOME: t.cwd });
      expect(settings.providers.defaultAssistant).toBe(part.defaultAssistant);
      const concurrency = (part.concurrency ?? {}) as { providers?: unknown; requestsPerMinute?: Record<string, number>; tokensPerMinute?: Record<string, number> };
      expect(settings.providers.limits).toEqual(concurrency.providers ?? {});
      for (const [id, rpm] of Object.entries(concurrency.requestsPerMinute ?? {})) expect(settings.providers.rates[id]?.requestsPerMinute).toBe(rpm);
      for (const [id, tpm] of Object.entries(concurrency.tokensPerMinute ?? {})) expect(settings.providers.rates[id]?.tokensPerMinute).toBe(tpm);
      for (const id of ['openai-compatible', 'codex', 'gemini', 'opencode', 'pi', 'copilot']) {
        expect(settings.providers.connections[id]?.baseUrl).toBe((part.assistants as Record<string, { baseUrl?: string }> | undefined)?.[id]?.baseUrl);
      }
      return;
    }
    if (isConfigBlock(part)) {
      t.write('bundled:workflows/starter.yaml', workflowYaml('starter'));
      writeFileSync(join(t.cwd, '.cairn', 'config.yaml'), block.text);
      const listing = t.catalog.list({ cwd: t.cwd });
      expect(listing.errors).toEqual([]);
      expect(listing.workflows.map((w) => w.workflow.name)).not.toContain('starter');
      return;
    }
    const inWorkflow = fixtures.some((f) => isSubset(part, f.raw));
    const inNode = fixtureNodes.some((n) => isSubset(part, n));
    expect(inWorkflow || inNode, 'a fragment found in no fixture workflow or node').toBe(true);
  });
});
