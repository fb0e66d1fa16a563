import type { GitHubNodeBlock, GitHubWriteKind } from '../../../workflow/schema/github-writes.js';

/** A `github:` node: one write to the run's GitHub issue or pull request, its texts substituted when it runs. */
export interface GitHubAction {
  type: 'github';
  write: GitHubWriteKind;
  block: GitHubNodeBlock;
}
