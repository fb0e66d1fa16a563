import { describe, expect, it } from 'vitest';
import { codexAdapter } from '../../../../src/worker/providers/codex/adapter.js';
import { startResponsesServer } from '../../../helpers/responses-server.js';
import { runAttempt, scratch } from '../agent-harness.js';
import { codexClis, codexTaskFor } from './cli.js';

/**
 * The real Codex CLIs (pinned and newest) against a local Responses API that answers as the
 * ChatGPT backend does when a plan's limit is spent: 429 `usage_limit_reached` with `resets_at`.
 * The attempt must fail at once as a usage limit with that reset, so `auto_resume` can resume the
 * run then (test/supervisor/run/quota-auto-resume.test.ts), not as a rate limit to retry.
 */

describe.each(codexClis)('Codex $version at a plan usage limit', ({ bin }) => {
  it('fails as a usage limit that resets when the backend said, after one call', async () => {
    const at = Math.ceil((Date.now() / 1000 + 3 * 3600) / 60) * 60;
    const server = await startResponsesServer(() => ({
      kind: 'error', status: 429, type: 'usage_limit_reached', message: 'The usage limit has been reached', fields: { plan_type: 'plus', resets_at: at },
    }));
    const home = scratch();
    try {
      const { outcome } = await runAttempt(codexAdapter, codexTaskFor(bin, server.url, home.dir, {}));
      expect(outcome.status).toBe('failed');
      expect(outcome.retryable).toBe(false);
      expect(outcome.providerFailure).toMatchObject({ class: 'quota_exhausted', resetAt: new Date(at * 1000).toISOString() });
      expect(server.requests.filter((r) => r.path.endsWith('/responses'))).toHaveLength(1);
    } finally {
      await server.close();
      home.cleanup();
    }
  });
});
