import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempProject, workflowYaml, type TempProject } from './temp-project.js';

/**
 * A workflow whose file does not load is reported by name as a file that failed to load, with
 * its problems, wherever a name is looked up; never as "Workflow not found".
 */

let t: TempProject;
beforeEach(() => {
  t = makeTempProject();
});
afterEach(() => t.close());

/** The README's old example: a plain scalar containing `: ` is not valid YAML. */
const colonInScalar = 'name: reviewer\ndescription: Review: the diff\nnodes:\n  - id: a\n    bash: echo hi\n';

function lookupError(name: string, cwd?: string): { code: string; message: string; details: unknown } {
  try {
    t.catalog.get(name, { cwd });
  } catch (err) {
    return err as { code: string; message: string; details: unknown };
  }
  throw new Error(`get('${name}') did not throw`);
}

describe('looking up a workflow whose file failed to load', () => {
  it('finds a YAML-broken file by the name: it declares, and shows the parse error', () => {
    t.write('home:workflows/review.yaml', colonInScalar);
    const err = lookupError('reviewer');
    expect(err.code).toBe('WORKFLOW_INVALID');
    expect(err.message).toMatch(/^Workflow file is invalid: 'reviewer' is declared in review\.yaml \(global\), which did not load: YAML parse error/);
    expect(err.details).toMatchObject({ filename: 'review.yaml', source: 'global', errors: [expect.stringMatching(/^YAML parse error/)] });
  });

  it('finds a YAML-broken file with no readable name by its file name', () => {
    t.write('project:.cairn/workflows/syntax.yaml', 'nodes: [\n  - a: b\n');
    const err = lookupError('syntax', t.cwd);
    expect(err.code).toBe('WORKFLOW_INVALID');
    expect(err.message).toContain('syntax.yaml (project)');
  });

  it('lists each problem of a file that parsed but did not validate', () => {
    t.write('home:workflows/broken.yaml', 'name: broken\nnodes:\n  - id: a\n');
    const err = lookupError('broken');
    expect(err.details).toMatchObject({
      errors: ["Missing required field 'description'", expect.stringMatching(/^Node 'a': must have either/)],
    });
  });

  it('a broken project file hides the home workflow of the same name instead of falling back to it', () => {
    t.write('home:workflows/reviewer.yaml', workflowYaml('reviewer'));
    t.write('project:.cairn/workflows/reviewer.yaml', colonInScalar);
    expect(lookupError('reviewer', t.cwd).code).toBe('WORKFLOW_INVALID');
  });

  it('still says not found for a name nothing declares', () => {
    t.write('home:workflows/review.yaml', colonInScalar);
    expect(lookupError('ghost')).toMatchObject({ code: 'WORKFLOW_NOT_FOUND', message: 'Workflow not found: ghost' });
  });
});
