import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempProject, type TempProject } from './temp-project.js';

/** The examples of docs/workflows.md (kept as files under test/fixtures/workflows/examples). */
const examples = fileURLToPath(new URL('../fixtures/workflows/examples/', import.meta.url));

let t: TempProject;
beforeEach(() => {
  t = makeTempProject();
  cpSync(join(examples, 'workflows'), join(t.cwd, '.cairn', 'workflows'), { recursive: true });
  cpSync(join(examples, 'commands'), join(t.cwd, '.cairn', 'commands'), { recursive: true });
  cpSync(join(examples, 'scripts'), join(t.cwd, '.cairn', 'scripts'), { recursive: true });
});
afterEach(() => t.close());

describe('the documented examples', () => {
  it('all load from a project, without errors or warnings, and validate', () => {
    const listing = t.catalog.list({ cwd: t.cwd });
    expect(listing.errors).toEqual([]);
    expect(listing.workflows.map((w) => w.workflow.name)).toEqual([
      'archon-review-block',
      'batch-resize',
      'build-and-check',
      'build-then-report',
      'changelog-block',
      'check-and-report',
      'ci-report',
      'classify-then-fix',
      'count-and-fetch',
      'count-check',
      'count-to-three',
      'countdown',
      'finish-with-review',
      'fix-tests',
      'gated-change',
      'guarded-fix',
      'hello',
      'in-checkout',
      'issue-summary',
      'model-tiers',
      'nightly-notes',
      'nightly-review',
      'nightly-window',
      'pi-review-and-plan',
      'propose-fix',
      'read-only-report',
      'release-notes',
      'release-summary',
      'review-files',
      'review-files-all-done',
      'review-fix-group',
      'review-one-file',
      'review-pr',
      'reviewed-change',
      'shell-review',
      'shell-warnings',
      'shout-all',
      'shout-one',
      'triage',
      'triage-issue',
      'weekly-changelog',
    ]);
    for (const entry of listing.workflows) {
      // These two show validation's shell warnings (shell-safety-docs.test.ts checks them).
      if (!['count-check', 'shell-warnings'].includes(entry.workflow.name)) expect(entry.parseWarnings, entry.workflow.name).toBeUndefined();
      expect(t.catalog.validate(entry.workflow, { cwd: t.cwd }), entry.workflow.name).toMatchObject({ valid: true });
    }
  });

  it("inlines the include with: example: the block's inputs are substituted, its own references renamed", () => {
    const listing = t.catalog.list({ cwd: t.cwd });
    const weekly = listing.workflows.find((w) => w.workflow.name === 'weekly-changelog');
    expect(weekly?.workflow.nodes).toEqual([
      { id: 'changelog__log', bash: 'CAIRN_WITH_SINCE="$INPUTS.tag"; git log --oneline "${CAIRN_WITH_SINCE}..HEAD"' },
      {
        id: 'changelog__write',
        depends_on: ['changelog__log'],
        prompt: 'Write a changelog for users of the CLI from these commits: $changelog__log.output',
      },
      { id: 'post', depends_on: ['changelog__write'], prompt: 'Shorten this for a release announcement: $changelog__write.output' },
    ]);
  });
});
