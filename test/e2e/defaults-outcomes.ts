import type { NodeSummaryStatus } from '../../src/cli/node-summary.js';
import type { Outcome } from './corpus-outcomes.js';

/**
 * Every default workflow of the upstream (test/fixtures/corpus/upstream-defaults/workflows) with
 * what the upstream gives it on the scenario its row names (its YAML, its commands and its
 * engine's trigger and `when:` rules): the run's status and each node's, as `cairn run get` shows
 * them. A loop's iterations show as `<id>/body`; an `include:` node shows as the included nodes,
 * renamed `<include id>__<node id>`.
 *
 * `here: true`: a test runs it end to end as the upstream runs it (`test`, under test/e2e), in a
 * registered repository with the workflow and its commands unchanged in `.archon/`, its AI nodes
 * on the real Claude Code CLI against the local Anthropic stand-in, `gh` answered by the stand-in,
 * and asserts this row (`expectDefaultsRow`). `here: false`: it does not, and `reason` says why:
 * `blocker: 'outside'` when something these machines cannot have stands in the way, and
 * `blocker: 'unscripted'` when nothing does but no test has scripted its sessions yet.
 */

export type DefaultsRow =
  | ({ file: string; scenario: string; here: true; test: string } & Outcome)
  | ({ file: string; scenario: string; here: false; blocker: 'outside' | 'unscripted'; reason: string } & Outcome);

const all = (status: NodeSummaryStatus, ids: string[]) => Object.fromEntries(ids.map((id) => [id, status])) as Record<string, NodeSummaryStatus>;

/** archon-review-block's nodes, as a workflow that includes it as `review` shows them. */
const reviewBlock = ['verify-pr-base', 'review-scope', 'sync', 'code-review', 'error-handling', 'test-coverage', 'comment-quality', 'docs-impact', 'synthesize', 'implement-fixes'];
const includedReview = reviewBlock.map((id) => `review__${id}`);

/**
 * Nothing these machines lack stands in the way: git and bun are here, and `gh` is the stand-in,
 * which answers `gh pr list|view|create|edit|comment` (the calls the rows that run here make);
 * `gh issue view|list|create|comment`, `gh pr diff|ready|checks` and `gh label list`, which some
 * of these make, would be added with their tests.
 */
const unscripted = (aiNodes: string) => `nothing these machines lack stands in the way, but no test scripts its ${aiNodes} yet`;

export const defaultsOutcomes: DefaultsRow[] = [
  {
    file: 'archon-adversarial-dev.yaml', scenario: 'a small app, the sprint loop signalling ALL_SPRINTS_COMPLETE',
    here: false, blocker: 'unscripted', reason: unscripted('planner, its up to 60 adversarial sprint iterations and the report'),
    run: 'completed', nodes: all('completed', ['plan', 'init-workspace', 'adversarial-sprint', 'adversarial-sprint/body', 'report']),
  },
  {
    file: 'archon-architect.yaml', scenario: 'a codebase with a complexity hotspot; validation passes',
    here: false, blocker: 'unscripted', reason: unscripted('five AI nodes (analyze, plan, simplify, fix-failures, create-pr)'),
    run: 'completed', nodes: all('completed', ['scan-metrics', 'analyze', 'plan', 'simplify', 'validate', 'fix-failures', 'create-pr', 'verify-pr-base']),
  },
  {
    file: 'archon-assist.yaml', scenario: 'a question answered by writing a file',
    here: true, test: 'upstream-assist-loop.test.ts', run: 'completed', nodes: { assist: 'completed' },
  },
  {
    file: 'archon-comprehensive-pr-review.yaml', scenario: 'an open pull request of the run\'s branch',
    here: false, blocker: 'unscripted', reason: unscripted('nine AI nodes (five reviewers in parallel, synthesis, fixes)'),
    run: 'completed',
    nodes: all('completed', ['scope', 'sync', 'code-review', 'error-handling', 'test-coverage', 'comment-quality', 'docs-impact', 'synthesize', 'implement-fixes']),
  },
  {
    file: 'archon-create-issue.yaml', scenario: 'a CLI bug (classify: needs_server false), reproduced',
    here: false, blocker: 'unscripted',
    reason: `${unscripted('five AI nodes on this path')} (a UI bug's reproduction would drive agent-browser, whose browser build is fetched from outside the npm registry)`,
    run: 'completed',
    nodes: {
      ...all('completed', ['classify', 'fetch-template', 'git-context', 'dedup-check', 'investigate', 'reproduce', 'cleanup-server', 'check-reproduction', 'draft-issue', 'create-issue']),
      'start-server': 'skipped', 'report-failure': 'skipped',
    },
  },
  {
    file: 'archon-feature-development.yaml', scenario: 'a plan file in the repository',
    here: true, test: 'defaults-server.test.ts', run: 'completed', nodes: all('completed', ['implement', 'create-pr', 'verify-pr-base']),
  },
  {
    file: 'archon-fix-github-issue.yaml', scenario: 'a bug issue; review-classify asks for the code review only',
    here: false, blocker: 'unscripted',
    reason: unscripted('fourteen AI nodes that run on this path'),
    run: 'completed',
    nodes: {
      ...all('completed', ['parse-request', 'fetch-issue', 'classify', 'web-research', 'investigate', 'bridge-artifacts', 'implement', 'validate', 'create-pr', 'verify-pr-base',
        'review-scope', 'review-classify', 'code-review', 'synthesize', 'self-fix', 'simplify', 'report']),
      ...all('skipped', ['plan', 'error-handling', 'test-coverage', 'comment-quality', 'docs-impact']),
    },
  },
  {
    file: 'archon-idea-to-pr.yaml', scenario: 'an idea in a sentence; the review finds nothing to fix',
    here: false, blocker: 'unscripted', reason: unscripted('sixteen AI nodes (plan, implement, validate, finalize, the included review block, summary)'),
    run: 'completed',
    nodes: all('completed', ['create-plan', 'plan-setup', 'confirm-plan', 'implement-tasks', 'validate', 'finalize-pr', ...includedReview, 'workflow-summary']),
  },
  {
    file: 'archon-interactive-prd.yaml', scenario: 'a person answers its three gates',
    here: true, test: 'defaults-server.test.ts',
    run: 'completed',
    nodes: all('completed', ['initiate', 'foundation-gate', 'research', 'deepdive-gate', 'technical', 'scope-gate', 'generate', 'validate']),
  },
  {
    file: 'archon-issue-review-full.yaml', scenario: 'an issue implemented, then reviewed',
    here: false, blocker: 'unscripted', reason: unscripted('twelve AI nodes (investigate, implement, the included review block, summary)'),
    run: 'completed', nodes: all('completed', ['investigate', 'implement', ...includedReview, 'summary']),
  },
  {
    file: 'archon-piv-loop.yaml', scenario: 'a person answers its three interactive loops; the plan is implemented and opened as a draft pull request',
    here: true, test: 'upstream-piv-loop.test.ts', run: 'completed',
    nodes: all('completed', ['explore', 'explore/body', 'create-plan', 'refine-plan', 'refine-plan/body', 'implement-setup', 'implement', 'implement/body',
      'code-review', 'fix-feedback', 'fix-feedback/body', 'finalize', 'verify-pr-base']),
  },
  {
    file: 'archon-plan-to-pr.yaml', scenario: 'a plan file; the review finds nothing to fix',
    here: false, blocker: 'unscripted', reason: unscripted('fifteen AI nodes (setup, implement, validate, finalize, the included review block, summary)'),
    run: 'completed',
    nodes: all('completed', ['plan-setup', 'confirm-plan', 'implement-tasks', 'validate', 'finalize-pr', ...includedReview, 'workflow-summary']),
  },
  {
    file: 'archon-ralph-dag.yaml', scenario: 'a ready PRD (detect-input: ready); every story done',
    here: false, blocker: 'unscripted', reason: unscripted('detection, its story loop (up to 15 iterations) and the report'),
    run: 'completed',
    nodes: { ...all('completed', ['detect-input', 'validate-prd', 'implement', 'implement/body', 'verify-pr-base', 'report']), 'generate-prd': 'skipped' },
  },
  {
    file: 'archon-refactor-safely.yaml', scenario: 'a function extracted; validation passes',
    here: true, test: 'upstream-refactor-safely.test.ts', run: 'completed',
    nodes: all('completed', ['scan-scope', 'analyze-impact', 'plan-refactor', 'execute-refactor', 'validate', 'fix-failures', 'verify-behavior', 'create-pr', 'verify-pr-base']),
  },
  {
    file: 'archon-remotion-generate.yaml', scenario: 'a Remotion project',
    here: false, blocker: 'outside',
    reason:
      'every node but the AI one runs `npx remotion` in a Remotion project, and Remotion has its own licence, not an open-source one, so the project cannot take it as a dependency; it also renders, by default, in a Chrome Headless Shell it downloads itself from outside the npm registry and Debian, the only registries these machines reach',
    run: 'completed', nodes: all('completed', ['check-project', 'generate', 'render-preview', 'render-video', 'summary']),
  },
  {
    file: 'archon-resolve-conflicts.yaml', scenario: 'an open pull request whose branch conflicts with main',
    here: true, test: 'defaults-server.test.ts', run: 'completed', nodes: { resolve: 'completed' },
  },
  {
    file: 'archon-review-block.yaml', scenario: 'run on its own (the upstream includes it in three workflows and does not mean it to run alone), on a branch with an open pull request',
    here: false, blocker: 'unscripted', reason: unscripted('nine AI nodes'),
    run: 'completed', nodes: all('completed', reviewBlock),
  },
  {
    file: 'archon-smart-pr-review.yaml', scenario: 'a small pull request (classify: code review only); no .archon/mcp/ntfy.json',
    here: false, blocker: 'unscripted', reason: unscripted('six AI nodes on this path'),
    run: 'completed',
    nodes: {
      ...all('completed', ['scope', 'sync', 'classify', 'code-review', 'synthesize', 'implement-fixes', 'check-ntfy']),
      ...all('skipped', ['error-handling', 'test-coverage', 'comment-quality', 'docs-impact', 'notify']),
    },
  },
  {
    file: 'archon-test-loop-dag.yaml', scenario: 'the counter loop to 3',
    here: true, test: 'upstream-assist-loop.test.ts', run: 'completed', nodes: all('completed', ['setup', 'loop-counter', 'loop-counter/body', 'report']),
  },
  {
    file: 'archon-validate-pr.yaml', scenario: 'a pull request with no UI change (classify-testability: not e2e_testable)',
    here: false, blocker: 'unscripted',
    reason: `${unscripted('four AI nodes on this path')} (a UI change's e2e nodes would start the upstream's own app and drive agent-browser, whose browser build is fetched from outside the npm registry)`,
    run: 'completed',
    nodes: {
      ...all('completed', ['fetch-pr', 'find-ports', 'resolve-paths', 'code-review-main', 'code-review-feature', 'classify-testability', 'cleanup-processes', 'final-report']),
      ...all('skipped', ['e2e-test-main', 'e2e-test-feature']),
    },
  },
  {
    file: 'archon-workflow-builder.yaml', scenario: 'a workflow described in a sentence',
    here: true, test: 'defaults-server.test.ts',
    run: 'completed', nodes: all('completed', ['scan-codebase', 'extract-intent', 'generate-yaml', 'validate-yaml', 'save-or-report']),
  },
];
