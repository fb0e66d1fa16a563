import { describe, expect, it } from 'vitest';
import { validateWorkflowDefinition } from '../../src/workflow/checks/validate-definition.js';

/**
 * An unknown key that looks like a known one, by edit distance or case, is dropped with a
 * warning that says "did you mean", as the upstream does (a workflow written for it, with
 * `agent:` beside `agents:`, loads); `cairn workflow validate --strict` fails on it. A typo of a
 * key that decides when a node runs stays an error: `depend_on: [build]` ignored would run deploy
 * before build.
 */

function check(definition: Record<string, unknown>) {
  return validateWorkflowDefinition({ name: 'w', description: 'd', ...definition });
}
const errorsOf = (definition: Record<string, unknown>) => {
  const result = check(definition);
  return result.valid ? [] : result.errors;
};

describe('unknown keys that look like known keys', () => {
  it('refuses depend_on with a hint, instead of running deploy before build', () => {
    expect(
      errorsOf({ nodes: [{ id: 'build', bash: 'make' }, { id: 'deploy', bash: 'ship', depend_on: ['build'] }] }),
    ).toEqual(["Node 'deploy': unknown key 'depend_on' (did you mean 'depends_on'?)"]);
  });

  it('refuses a key that differs only in case', () => {
    expect(errorsOf({ nodes: [{ id: 'a', bash: 'x' }, { id: 'b', bash: 'y', Depends_On: ['a'] }] })).toEqual([
      "Node 'b': unknown key 'Depends_On' (did you mean 'depends_on'?)",
    ]);
  });

  it('refuses a misspelt when or trigger_rule: both decide whether a node runs', () => {
    expect(errorsOf({ nodes: [{ id: 'a', bash: 'x' }, { id: 'b', bash: 'y', depends_on: ['a'], wen: "$a.output == 'x'", trigger_rul: 'all_done' }] })).toEqual([
      "Node 'b': unknown key 'wen' (did you mean 'when'?)",
      "Node 'b': unknown key 'trigger_rul' (did you mean 'trigger_rule'?)",
    ]);
  });

  it('drops agent: beside agents: with a warning, as the upstream does, and the workflow loads', () => {
    const result = check({ nodes: [{ id: 'a', prompt: 'hi', agent: { reviewer: { description: 'd', prompt: 'p' } } }] });
    expect(result.valid).toBe(true);
    expect(result.warnings).toEqual(["Node 'a': unknown key 'agent' will be ignored (did you mean 'agents'?)."]);
  });

  it('prefers the keys of the node’s own mode', () => {
    expect(check({ nodes: [{ id: 'a', bash: 'x', timout: 5 }] }).warnings).toEqual([
      "Node 'a': unknown key 'timout' will be ignored (did you mean 'timeout'?).",
    ]);
  });

  it('warns of near-misses at the top level and nested; what is missing without them is still an error', () => {
    const result = check({
      Inputs: { x: { default: '1' } },
      nodes: [{ id: 'a', bash: 'x', retry: { max_atempts: 2 } }],
    });
    expect(result.warnings).toEqual([
      "Workflow 'w': unknown key 'Inputs' will be ignored (did you mean 'inputs'?).",
      "Node 'a': unknown key 'retry.max_atempts' will be ignored (did you mean 'max_attempts'?).",
    ]);
    expect(errorsOf({ nodes: [{ id: 'a', bash: 'x', retry: { max_atempts: 2 } }] })).toEqual(["Node 'a': 'retry.max_attempts' is required"]);
  });

  it('keeps an unknown key that resembles no known key a warning', () => {
    const result = check({ owner_team: 'infra', nodes: [{ id: 'a', bash: 'x', reviewer_notes: 'n' }] });
    expect(result.valid).toBe(true);
    expect(result.warnings).toEqual([
      "Workflow 'w': unknown key 'owner_team' will be ignored.",
      "Node 'a': unknown key 'reviewer_notes' will be ignored.",
    ]);
  });
});

describe('keys accepted but not acted on yet', () => {
  it('load with a warning naming each key and what happens instead; on a mode they do not apply to, the usual drop warning', () => {
    const result = check({
      requires: ['github'],
      persist_sessions: true,
      returns: 'a',
      outcome_field: 'ok',
      nodes: [
        { id: 'a', prompt: 'hi', persist_session: true },
        { id: 'g', loop_group: { nodes: [{ id: 'b', command: 'c', persist_session: false }], until_bash: 'true', max_iterations: 1 } },
        { id: 'sh', bash: 'x', persist_session: true },
      ],
    });
    expect(result.valid).toBe(true);
    expect(result.warnings).toEqual([
      "Workflow 'w': 'requires' is accepted but not acted on yet: a run does not check for a connected GitHub identity first; a node that needs one fails when it reaches GitHub.",
      "Workflow 'w': 'persist_sessions' is accepted but not acted on yet: every run starts fresh provider sessions (a session is continued only within a run, with context: shared or { resume }).",
      "Workflow 'w': 'outcome_field' is accepted but not acted on yet: no outcome is recorded for the run; read the field where you need it as $<returns node>.output.<field>.",
      "Node 'a': 'persist_session' is accepted but not acted on yet: every run starts a fresh provider session for this node (a session is continued only within a run, with context: shared or { resume }).",
      "Node 'g' → loop_group node 'b': 'persist_session' is accepted but not acted on yet: every run starts a fresh provider session for this node (a session is continued only within a run, with context: shared or { resume }).",
      "Node 'sh': key 'persist_session' will be ignored. ('persist_session' applies to command and prompt nodes, not to bash nodes.)",
    ]);
  });
});

describe('references to unknown nodes get the same hint', () => {
  it('hints at the closest id for an unknown depends_on entry', () => {
    expect(errorsOf({ nodes: [{ id: 'build', bash: 'x' }, { id: 'deploy', bash: 'y', depends_on: ['biuld'] }] })).toEqual([
      "Node 'deploy' depends_on unknown node 'biuld' (did you mean 'build'?)",
    ]);
  });
});

describe('docs/workflows.md', () => {
  it('shows the warning and the error the loader gives', async () => {
    const { readFile } = await import('node:fs/promises');
    const docs = await readFile(new URL('../../docs/workflows.md', import.meta.url), 'utf8');
    const warning = check({ nodes: [{ id: 'a', prompt: 'hi', agent: {} }] }).warnings[0]!;
    const error = errorsOf({ nodes: [{ id: 'build', bash: 'make' }, { id: 'deploy', bash: 'ship', depend_on: ['build'] }] })[0]!;
    expect(docs).toContain('```\n' + warning + '\n```');
    expect(docs).toContain('```\n' + error + '\n```');
  });
});
