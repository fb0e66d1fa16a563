import type { WorkflowNode } from '../../../workflow/schema/node-schema.js';
import { writeKindOf } from '../../../workflow/schema/github-writes.js';
import { DEFAULT_RETRY_DELAY_MS } from '../../../workflow/schema/node-blocks.js';
import type { NodeKind } from '../node-kind.js';
import type { GitHubAction } from './action.js';
import { GitHubWriteHandler } from './github-write.js';

/**
 * `github:` nodes: a write to GitHub the engine makes with the token of the hook that started the
 * run, counted against the workflow's `github.writes` caps. No provider slot and no worker thread:
 * the supervisor makes one HTTP request or two. A network failure, 429 or 5xx is tried again
 * (the write is idempotent, github/engine-writes.ts).
 */
export const githubKind: NodeKind<GitHubAction> = {
  type: 'github',
  plan: (node: WorkflowNode) => ('github' in node ? { type: 'github', write: writeKindOf(node.github), block: node.github } : undefined),
  defaultRetry: { maxAttempts: 3, delayMs: DEFAULT_RETRY_DELAY_MS, onError: 'transient' },
  handler: ({ services }) =>
    new GitHubWriteHandler({
      store: services.store,
      run: services.run,
      caps: services.definition.github?.writes ?? {},
      installKey: services.settings.installKey,
      substituteText: services.context.substituteText,
      log: services.log,
    }),
};
