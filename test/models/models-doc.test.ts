import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { resolveRunModelBindings } from '../../src/store/schemas/model-bindings.js';
import { runOverridesSchema } from '../../src/store/schemas/run-overrides.js';
import { loadWorkflowText } from '../../src/workflow/loading/load-workflow.js';
import { resolveModelBinding } from '../../src/models/model-binding.js';
import { modelLayerOfPrefs, modelLayerOfRunBindings, type ModelLayers } from '../../src/models/model-layers.js';
import { modelLayerOf } from '../../src/workflow/project/model-layer-files.js';

/**
 * The worked example of docs/models.md: its install and repository config, the user's prefs, the
 * run request and the workflow, resolved by the real resolution module, give the table the page shows.
 */

const doc = readFileSync(new URL('../../docs/models.md', import.meta.url), 'utf8');
const section = doc.slice(doc.indexOf('## A worked example'), doc.indexOf('## The routes'));
const blocks = [...section.matchAll(/^```(yaml|json)\n([\s\S]*?)^```/gm)].map((m) => ({ lang: m[1], text: m[2]! }));

const [installYaml, repoYaml, prefsJson, requestJson, workflowYaml] = blocks;
const rows = section
  .slice(section.indexOf('| node |'))
  .split('\n')
  .filter((line) => line.startsWith('| ') && !line.startsWith('| node') && !line.startsWith('|---'))
  .map((line) => line.split('|').slice(1, -1).map((cell) => cell.trim()));

function layers(opts: { user: boolean; run: boolean }): ModelLayers {
  const request = runOverridesSchema.parse(JSON.parse(requestJson!.text));
  return {
    install: modelLayerOf(parse(installYaml!.text), 'install'),
    repository: modelLayerOf(parse(repoYaml!.text), 'repository'),
    ...(opts.user ? { user: modelLayerOfPrefs(JSON.parse(prefsJson!.text)) } : {}),
    ...(opts.run ? { run: modelLayerOfRunBindings(resolveRunModelBindings(request)) } : {}),
  };
}

function bindingOfNode(id: string, opts = { user: true, run: true }) {
  const loaded = loadWorkflowText(workflowYaml!.text);
  if (!loaded.ok) throw new Error(loaded.error);
  const node = loaded.workflow.nodes.find((n) => n.id === id) as { model?: string; provider?: string; effort?: never } | undefined;
  expect(node, id).toBeDefined();
  return resolveModelBinding({ node: { model: node!.model, provider: node!.provider }, workflow: {}, layers: layers(opts) });
}

describe('docs/models.md worked example', () => {
  it('has its five blocks and a row per node', () => {
    expect(blocks.map((b) => b.lang)).toEqual(['yaml', 'yaml', 'json', 'json', 'yaml']);
    expect(rows.map((r) => r[0])).toEqual(['triage', 'plan', 'implement', 'review']);
  });

  it.each(rows.map((r) => [r[0]!, r] as const))('%s runs what the table says', (id, [, model, , provider, modelId, effort]) => {
    const binding = bindingOfNode(id);
    expect(binding).toMatchObject({ ok: true, provider, model: modelId, preset: model });
    expect(binding.ok && (binding.effort ?? '')).toBe(effort);
  });

  it('says what changes without the user’s header and without the request’s alias', () => {
    expect(doc).toContain("Without alice's header, `implement` takes the repository's `tiers.large` (claude, `sonnet`)");
    expect(bindingOfNode('implement', { user: false, run: true })).toMatchObject({ provider: 'claude', model: 'sonnet' });
    expect(doc).toContain("sends `review` to the repository's `@review` (claude, `opus`)");
    expect(bindingOfNode('review', { user: true, run: false })).toMatchObject({ provider: 'claude', model: 'opus' });
  });
});
