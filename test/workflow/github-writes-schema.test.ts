import { describe, expect, it } from 'vitest';
import { nodeDescriptorSchema } from '../../src/records/schemas/node-descriptor.js';
import { validateWorkflowDefinition } from '../../src/workflow/checks/validate-definition.js';
import { describeNode } from '../../src/workflow/schema/describe-node.js';
import { walkDryRun } from '../../src/workflow/dry-run/dry-run-walk.js';
import { resolveModelBinding } from '../../src/models/model-binding.js';
import { resolveRunInputs } from '../../src/workflow/schema/run-inputs.js';
import { decideGitHubWrite } from '../../src/store/rules/github-write-caps.js';

/** A workflow's declared GitHub writes and its `github:` nodes, checked when it loads (src/workflow/schema/github-writes.ts). */

const workflow = (github: unknown, nodes: unknown[]) => ({ name: 'w', description: 'd', inputs: { x: { default: '' } }, ...(github === undefined ? {} : { github }), nodes });
const errorsOf = (github: unknown, nodes: unknown[]) => {
  const result = validateWorkflowDefinition(workflow(github, nodes));
  return result.valid ? [] : result.errors;
};

describe('github writes when a workflow loads', () => {
  it('accepts nodes within their caps, a conditional node past them (counted when it runs), and describes each as a github record', () => {
    const result = validateWorkflowDefinition(
      workflow({ writes: { comment: 1, label: 1, pull_request: 1 } }, [
        { id: 'a', github: { comment: 'hi $INPUTS.x' } },
        { id: 'b', depends_on: ['a'], when: "$a.output != ''", github: { comment: 'again' } },
        { id: 'c', github: { label: ['one', 'two'] } },
        { id: 'd', github: { pull_request: { title: 't', head: 'feature', base: 'main', draft: true } } },
      ]),
    );
    if (!result.valid) throw new Error(result.errors.join('; '));
    expect(result.workflow.nodes.map(describeNode).map((d) => nodeDescriptorSchema.parse(d))).toEqual(['a', 'b', 'c', 'd'].map((id) => ({ id, kind: 'github' })));
  });

  it('refuses a write the workflow does not declare, more unconditional writes than the cap, and a github node in a loop_group, naming the node', () => {
    expect(errorsOf(undefined, [{ id: 'post', github: { comment: 'x' } }])).toEqual([
      "Node 'post': it writes a GitHub comment, which the workflow does not declare: add 'github: { writes: { comment: <how many> } }' at the top level",
    ]);
    expect(errorsOf({ writes: { comment: 2 } }, [{ id: 'pr', github: { pull_request: { title: 't', head: 'h' } } }])[0]).toMatch(/^Node 'pr': it writes a GitHub pull request, which the workflow does not declare/);
    expect(errorsOf({ writes: { comment: 1 } }, [{ id: 'a', github: { comment: 'x' } }, { id: 'b', github: { comment: 'y' } }])).toEqual([
      "Node 'b': the workflow declares at most 1 GitHub comment write ('github.writes.comment'), and nodes 'a', 'b' each make one: raise the cap or remove a node",
    ]);
    expect(errorsOf({ writes: { comment: 3 } }, [{ id: 'g', loop_group: { max_iterations: 2, until_bash: 'true', nodes: [{ id: 'inner', github: { comment: 'x' } }] } }])).toContain(
      "Node 'g' → loop_group node 'inner': a github node cannot be inside a loop_group; put it after the loop",
    );
  });

  it('checks the references in a github node\'s texts like any other node\'s', () => {
    expect(errorsOf({ writes: { pull_request: 1 } }, [{ id: 'pr', github: { pull_request: { title: '$INPUTS.nope', head: '$later.output' } } }, { id: 'later', bash: 'true' }]).join('\n')).toMatch(
      /undeclared input '\$INPUTS.nope'[\s\S]*'later' is not upstream of 'pr'/,
    );
  });

  it('refuses a block with no write or two, an unknown key, an empty text and a cap that is not a count', () => {
    const declared = { writes: { comment: 1, label: 1 } };
    expect(errorsOf(declared, [{ id: 'a', github: { comment: 'x', label: 'y' } }]).join('\n')).toMatch(/exactly one write.*\(it has comment and label\)/);
    expect(errorsOf(declared, [{ id: 'a', github: {} }]).join('\n')).toMatch(/exactly one write/);
    expect(errorsOf(declared, [{ id: 'a', github: { comment: 'x', issue: 4 } }]).join('\n')).toMatch(/issue/);
    expect(errorsOf(declared, [{ id: 'a', github: { comment: '  ' } }]).join('\n')).toMatch(/'github.comment' must not be empty/);
    expect(errorsOf({ writes: { comment: 0 } }, [{ id: 'a', bash: 'true' }]).join('\n')).toMatch(/'github.writes.comment' must be at least 1/);
    expect(errorsOf({ writes: { comment: 1.5 } }, [{ id: 'a', bash: 'true' }]).join('\n')).toMatch(/whole number/);
    expect(errorsOf({ writes: { comments: 1 } }, [{ id: 'a', bash: 'true' }]).join('\n')).toMatch(/comments/);
  });
});

describe('github nodes in a dry run, and the cap rule', () => {
  it('shows each write with its substituted text and writes nothing', () => {
    const result = validateWorkflowDefinition(
      workflow({ writes: { comment: 1, pull_request: 1 } }, [
        { id: 'a', github: { comment: 'hi $INPUTS.x' } },
        { id: 'pr', github: { pull_request: { title: 'Fix $INPUTS.x', head: 'feature' } } },
      ]),
    );
    if (!result.valid) throw new Error(result.errors.join('; '));
    const definition = result.workflow;
    const trace = walkDryRun(
      { definition, inputs: resolveRunInputs(definition.name, definition.inputs, { text: { x: 'there' } }), message: 'm', variables: {} },
      { bind: (node) => resolveModelBinding({ node, workflow: definition, layers: {} }), loadCommand: () => ({ ok: false, message: 'none' }) },
    );
    expect(trace.nodes.map((n) => [n.id, n.kind, n.decision, n.text])).toEqual([['a', 'github', 'run', 'hi there'], ['pr', 'github', 'run', 'Fix there']]);
    expect(trace.nodes.map((n) => n.detail)).toEqual([
      'comments on the run’s GitHub issue or pull request (its cap counted); a dry run writes nothing',
      'opens a pull request from feature into the default branch; a dry run writes nothing',
    ]);
  });

  it('answers a reserved key again, admits a new one under the cap and refuses one at it', () => {
    const write = { key: 'comment:a', kind: 'comment' as const, githubId: '1', url: null, createdAt: 't' };
    expect(decideGitHubWrite(write, 5, 1)).toEqual({ outcome: 'existing', write });
    expect(decideGitHubWrite(undefined, 1, 2)).toEqual({ outcome: 'insert' });
    expect(decideGitHubWrite(undefined, 2, 2)).toEqual({ outcome: 'cap', used: 2 });
  });
});
