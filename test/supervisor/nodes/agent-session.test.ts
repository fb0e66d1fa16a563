import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chooseSession } from '../../../src/supervisor/nodes/agent/agent-session.js';
import type { AgentAction } from '../../../src/supervisor/nodes/agent/action.js';
import type { Store } from '../../../src/store/store.js';
import { newRun } from '../../store/fixtures.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';

/** Which session an AI attempt continues, against a real store's handles. */

let home: TempHome;
let store: Store;
let runId: string;
beforeEach(async () => {
  home = await makeTempHome();
  store = home.openStore();
  runId = (await store.createRun(newRun())).id;
});
afterEach(() => home.close());

const action = (extra: Partial<AgentAction> = {}): AgentAction => ({
  type: 'agent', source: { kind: 'inline', prompt: 'p' }, provider: undefined, model: undefined, effort: undefined,
  outputFormat: undefined, systemPrompt: undefined, idleTimeoutMs: undefined, freshContext: false, permissions: undefined, options: {}, ...extra,
});
const choose = (path: string, a: AgentAction, provider = 'claude', iteration?: number) =>
  chooseSession({ store, runId, path, action: a, provider, iteration, sessionDirOf: (p) => `/sessions/${p}` });
const keep = (path: string, sessionId: string, completed: boolean, provider = 'claude') =>
  store.setNodeSession(runId, path, { provider, sessionId, attemptId: `at-${sessionId}`, completed });

describe('the session an AI attempt continues', () => {
  it('a retry continues its own unfinished session; a completed one is not continued by a re-run of the node', async () => {
    await keep('a', 'unfinished', false);
    expect(await choose('a', action())).toEqual({ ok: true, choice: { sessionDir: '/sessions/a', resumeSessionId: 'unfinished' } });
    expect(await choose('a', action({ freshContext: true }))).toEqual({ ok: true, choice: { sessionDir: '/sessions/a' } });
    await keep('a', 'done', true);
    expect(await choose('a', action())).toEqual({ ok: true, choice: { sessionDir: '/sessions/a' } });
    // Another provider's session is never continued.
    await keep('b', 'theirs', false, 'codex');
    expect(await choose('b', action())).toEqual({ ok: true, choice: { sessionDir: '/sessions/b' } });
  });

  it('a loop body continues the previous iteration’s session from its second iteration', async () => {
    await keep('l/body', 'iter1', true);
    const body = action({ continueIterations: true });
    expect(await choose('l/body', body, 'claude', 1)).toEqual({ ok: true, choice: { sessionDir: '/sessions/l/body' } });
    expect(await choose('l/body', body, 'claude', 2)).toEqual({ ok: true, choice: { sessionDir: '/sessions/l/body', resumeSessionId: 'iter1' } });
  });

  it('shared and resume continue the source node’s completed session in its folder, forked where the provider can fork', async () => {
    await keep('src', 'S', true);
    const shared = action({ sessionSource: { nodeId: 'src', named: false, segment: 'src', outer: false } });
    expect(await choose('n', shared)).toEqual({ ok: true, choice: { resumeSessionId: 'S', sessionDir: '/sessions/src', source: { nodeId: 'src', fork: true } } });
    await keep('src', 'C', true, 'codex');
    expect(await choose('n', shared, 'codex')).toEqual({ ok: true, choice: { resumeSessionId: 'C', sessionDir: '/sessions/src', source: { nodeId: 'src', fork: false } } });
    // shared across providers starts fresh; resume across providers fails, naming both.
    expect(await choose('n', shared, 'claude')).toEqual({ ok: true, choice: { sessionDir: '/sessions/n' } });
    const named = action({ sessionSource: { nodeId: 'src', named: true, segment: 'src', outer: false } });
    const refused = await choose('n', named, 'claude');
    expect(refused.ok === false && refused.error).toMatch(/node 'src' ran on provider 'codex'.*runs on 'claude'/);
  });

  it('finds a sibling in a loop_group body, a top-level source from inside one, and a loop source’s body', async () => {
    await keep('g/sib', 'SIB', true);
    await keep('top', 'TOP', true);
    await keep('lp/body', 'LOOP', true);
    const sibling = action({ sessionSource: { nodeId: 'sib', named: true, segment: 'sib', outer: false } });
    const outer = action({ sessionSource: { nodeId: 'top', named: true, segment: 'top', outer: true } });
    const loop = action({ sessionSource: { nodeId: 'lp', named: false, segment: 'lp/body', outer: false } });
    expect(await choose('g/me', sibling)).toMatchObject({ ok: true, choice: { resumeSessionId: 'SIB' } });
    expect(await choose('g/me', outer)).toMatchObject({ ok: true, choice: { resumeSessionId: 'TOP' } });
    expect(await choose('me', loop)).toMatchObject({ ok: true, choice: { resumeSessionId: 'LOOP', sessionDir: '/sessions/lp/body' } });
  });

  it('a named source with no session fails; on a provider that keeps no sessions, so does any named resume', async () => {
    const named = action({ sessionSource: { nodeId: 'gone', named: true, segment: 'gone', outer: false } });
    const none = await choose('n', named);
    expect(none.ok === false && none.error).toMatch(/node 'gone' left no session to continue/);
    const api = await choose('n', named, 'anthropic');
    expect(api.ok === false && api.error).toMatch(/provider 'anthropic' cannot continue a session/);
  });
});
