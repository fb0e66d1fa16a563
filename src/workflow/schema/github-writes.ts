import { z } from 'zod';

/**
 * Writes back to GitHub that a workflow declares and the engine performs (docs/github.md,
 * "Writing back to GitHub"): the top-level `github: { writes: { comment: 2, pull_request: 1 } }`
 * says what a run may write and how many times, and a `github:` node is one write. The agent never
 * holds the token: the supervisor makes the write with the token of the GitHub hook that started
 * the run, on the issue or pull request that run is about, and refuses a write past its cap.
 */

/** The kinds of write a `github:` node makes. */
export const githubWriteKinds = ['comment', 'label', 'pull_request'] as const;
export type GitHubWriteKind = (typeof githubWriteKinds)[number];

const cap = (kind: GitHubWriteKind) =>
  z
    .number({ error: `'github.writes.${kind}' must be a whole number of writes (1 to 100)` })
    .int(`'github.writes.${kind}' must be a whole number of writes (1 to 100)`)
    .min(1, `'github.writes.${kind}' must be at least 1 (leave it out to allow none)`)
    .max(100, `'github.writes.${kind}' is at most 100`);

/** The workflow's `github:` key: the writes a run of it may make, at most this many of each kind. */
export const githubWorkflowSchema = z.strictObject({
  writes: z.strictObject({ comment: cap('comment').optional(), label: cap('label').optional(), pull_request: cap('pull_request').optional() }),
});
export type GitHubWorkflow = z.infer<typeof githubWorkflowSchema>;

const text = (field: string, max: number) =>
  z
    .string({ error: `'github.${field}' must be text` })
    .refine((s) => s.trim() !== '', { message: `'github.${field}' must not be empty` })
    .refine((s) => s.length <= max, { message: `'github.${field}' is at most ${max} characters` });

/** A `github:` node's block: exactly one write. Every text may hold references (`$node.output`, `$INPUTS.x`). */
export const githubNodeBlockSchema = z
  .strictObject({
    /** A comment on the run's issue or pull request. */
    comment: text('comment', 60_000).optional(),
    /** Labels added to the run's issue or pull request. */
    label: z.union([text('label', 100), z.array(text('label', 100)).min(1, "'github.label' must name at least one label").max(20, "'github.label' names at most 20 labels")]).optional(),
    /** A pull request opened on the run's repository. */
    pull_request: z
      .strictObject({
        title: text('pull_request.title', 256),
        body: z.string().max(60_000).optional(),
        head: text('pull_request.head', 255),
        /** Default: the repository's default branch. */
        base: text('pull_request.base', 255).optional(),
        draft: z.boolean().optional(),
      })
      .optional(),
  })
  .superRefine((block, ctx) => {
    const given = githubWriteKinds.filter((kind) => block[kind] !== undefined);
    if (given.length !== 1) {
      ctx.addIssue({ code: 'custom', path: [], message: `a github node makes exactly one write: one of 'github.comment', 'github.label' or 'github.pull_request'${given.length > 1 ? ` (it has ${given.join(' and ')})` : ''}` });
    }
  });
export type GitHubNodeBlock = z.infer<typeof githubNodeBlockSchema>;

/** The kind of write a node's block makes. */
export function writeKindOf(block: GitHubNodeBlock): GitHubWriteKind {
  return githubWriteKinds.find((kind) => block[kind] !== undefined)!;
}

type LoadedNode = { id: string; when?: string | undefined; github?: GitHubNodeBlock; loop_group?: { nodes: readonly LoadedNode[] } };

/**
 * What is wrong with a workflow's GitHub writes, known when it loads: a `github:` node whose kind
 * of write the workflow does not declare, a `github:` node inside a loop_group (its writes could
 * not be told apart from one iteration to the next), and more nodes of a kind that run whenever
 * the run gets to them (no `when:`) than the cap allows. Nodes with a `when:` are counted when
 * they run, against the same cap.
 */
export function githubWriteProblems(declared: GitHubWorkflow | undefined, nodes: readonly LoadedNode[]): string[] {
  const problems: string[] = [];
  const unconditional = new Map<GitHubWriteKind, string[]>();
  for (const node of nodes) {
    if (node.loop_group) {
      for (const inner of node.loop_group.nodes) {
        if (inner.github) problems.push(`Node '${node.id}' → loop_group node '${inner.id}': a github node cannot be inside a loop_group; put it after the loop`);
      }
    }
    if (!node.github) continue;
    const kind = writeKindOf(node.github);
    const limit = declared?.writes[kind];
    if (limit === undefined) {
      problems.push(`Node '${node.id}': it writes a GitHub ${kind.replace('_', ' ')}, which the workflow does not declare: add 'github: { writes: { ${kind}: <how many> } }' at the top level`);
      continue;
    }
    if (node.when === undefined) unconditional.set(kind, [...(unconditional.get(kind) ?? []), node.id]);
  }
  for (const [kind, ids] of unconditional) {
    const limit = declared!.writes[kind]!;
    if (ids.length > limit) {
      problems.push(`Node '${ids[limit]}': the workflow declares at most ${limit} GitHub ${kind.replace('_', ' ')} write${limit === 1 ? '' : 's'} ('github.writes.${kind}'), and nodes ${ids.map((id) => `'${id}'`).join(', ')} each make one: raise the cap or remove a node`);
    }
  }
  return problems;
}
