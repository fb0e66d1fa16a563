import { describe, expect, it } from 'vitest';
import { claudeAdapter } from '../../../../src/worker/providers/claude/adapter.js';
import { startAnthropicServer } from '../../../helpers/anthropic-server.js';
import { claudeClis } from '../../../helpers/claude-cli.js';
import { agentTask, runAttempt } from '../agent-harness.js';
import { cliTestSetup } from '../common/cli-test-setup.js';

/**
 * The real Claude Code CLIs (pinned and newest) signed in with a subscription, against a local
 * Messages API that answers as Anthropic does when the plan's limit is spent: 429 with the
 * `anthropic-ratelimit-unified-*` headers naming the window and its reset. The CLI does not
 * retry; it prints its own words ("You've hit your session limit · resets 7:11am
 * (Asia/Kolkata)"), and the adapter must read them as a usage limit with the reset the server
 * named, so that `auto_resume: { on_quota: true }` (test/supervisor/run/quota-auto-resume.test.ts)
 * resumes the run then. Before this test the adapter read those words as an unknown failure.
 */

const HOUR_S = 3600;
/** A reset on a whole minute: the CLI prints minutes, not seconds. */
const resetIn = (seconds: number) => Math.ceil((Date.now() / 1000 + seconds) / 60) * 60;

const setup = cliTestSetup({
  start: (reset: { at: number; window: string }) =>
    startAnthropicServer(() => ({
      kind: 'error',
      status: 429,
      type: 'rate_limit_error',
      message: "This request would exceed your account's rate limit. Please try again later.",
      headers: {
        'anthropic-ratelimit-unified-status': 'rejected',
        'anthropic-ratelimit-unified-reset': String(reset.at),
        'anthropic-ratelimit-unified-representative-claim': reset.window,
      },
    })),
});

describe.each(claudeClis)('$name at a subscription usage limit', (cli) => {
  it.each([
    // Within a day the CLI prints a time of day; beyond, a date too. Zones other than UTC check
    // that the reset is read in the zone the CLI names.
    { window: 'five_hour', inSeconds: 3 * HOUR_S, zone: 'Asia/Kolkata' },
    { window: 'seven_day', inSeconds: 3 * 24 * HOUR_S, zone: 'America/New_York' },
  ])('$window: fails as a usage limit that resets when the server said, with no retries', async ({ window, inSeconds, zone }) => {
    const at = resetIn(inSeconds);
    const server = await setup.start({ at, window });
    const { outcome } = await runAttempt(claudeAdapter, {
      ...agentTask(setup.dir(), {
        provider: 'claude',
        model: 'claude-sonnet-4-5',
        connection: {
          binaryPath: cli.path,
          baseUrl: server.url,
          authToken: 'subscription-token',
          env: { HOME: setup.dir(), TZ: zone, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1' },
        },
      }),
    });
    expect(outcome.status).toBe('failed');
    expect(outcome.output).toMatch(/^You've hit your .*limit · resets /);
    expect(outcome.providerFailure).toMatchObject({ class: 'quota_exhausted', resetAt: new Date(at * 1000).toISOString() });
    // A usage limit is not retried by the CLI: one call, then its words.
    expect(server.requests).toHaveLength(1);
  });
});
