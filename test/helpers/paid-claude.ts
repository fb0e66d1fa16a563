import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAnthropicServer, type AnthropicServer, type MessagesReply } from './anthropic-server.js';
import { pinnedClaudeCli } from './claude-cli.js';
import { startServer, type RunningServer } from './server.js';
import type { TempHome } from './temp-home.js';
import { writeHomeWorkflow } from './workflows.js';

/** What one answer of the paid server costs, as the real Claude Code CLI reports it: 1000 in, 100 out on claude-sonnet-4-5. */
export const PAID_ANSWER_USD = 0.0045;

/** One paid answer (PAID_ANSWER_USD), to build others from (a stall, a held answer). */
export const paidAnswer: MessagesReply = {
  kind: 'stream', model: 'claude-sonnet-4-5-20250929', blocks: [{ type: 'text', text: 'done' }], usage: { input_tokens: 1000, output_tokens: 100 },
};

/**
 * A local Messages API server whose every answer costs the same (PAID_ANSWER_USD), and Cairn
 * started on `home` with the real Claude Code CLI pointed at it: the adapter that reports cost.
 * Both are closed with the home.
 */
export function startPaidClaude(home: TempHome): Promise<{ messages: AnthropicServer; cairn: RunningServer }> {
  return startClaudeCli(home, () => paidAnswer);
}

/** Like startPaidClaude, with the server's answer to each request (0-based) chosen by `reply`. */
export async function startClaudeCli(home: TempHome, reply: (index: number) => MessagesReply, env: Record<string, string> = {}): Promise<{ messages: AnthropicServer; cairn: RunningServer }> {
  const messages = await startAnthropicServer((_req, i) => reply(i));
  home.defer(() => messages.close());
  const cliHome = await mkdtemp(join(tmpdir(), 'cairn-claude-home-'));
  home.defer(() => rm(cliHome, { recursive: true, force: true }));
  const cairn = await startServer(home, {
    ANTHROPIC_BASE_URL: messages.url, ANTHROPIC_API_KEY: 'sk-ant-budget', CLAUDE_BIN_PATH: pinnedClaudeCli, HOME: cliHome,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1', ...env,
  });
  return { messages, cairn };
}

/**
 * Writes `paid-fan-out`: a fan-out over `items` (one at a time) of `one-paid-step`, a child
 * making one paid call, under a budget of `budgetUsd`.
 */
export async function writePaidFanOut(home: TempHome, opts: { items: readonly string[]; budgetUsd: number }): Promise<void> {
  await writeHomeWorkflow(home, 'one-paid-step', `name: one-paid-step
description: one paid call per item
provider: claude
model: claude-sonnet-4-5
nodes:
  - id: ask
    prompt: "item $ARGUMENTS"
`);
  await writeHomeWorkflow(home, 'paid-fan-out', `name: paid-fan-out
description: paid children under one budget
budget: { usd: ${opts.budgetUsd} }
nodes:
  - id: each
    workflow: one-paid-step
    fan_out: { items: '${JSON.stringify(opts.items)}', max_parallel: 1, join: all_success }
`);
}

/** Writes `name`: three paid steps one after another (`one`, `two`, `three`) under a budget of `budgetUsd`. */
export async function writePaidChain(home: TempHome, name: string, budgetUsd: number): Promise<void> {
  await writeHomeWorkflow(home, name, `name: ${name}
description: three paid steps under a budget
provider: claude
model: claude-sonnet-4-5
budget: { usd: ${budgetUsd} }
nodes:
  - id: one
    prompt: "step one"
  - id: two
    depends_on: [one]
    prompt: "step two"
  - id: three
    depends_on: [two]
    prompt: "step three"
`);
}
