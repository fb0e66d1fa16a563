import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';
import { assertBuilt, runUserCli } from './cli-process.js';

/**
 * The supervisor writes a `workflow_parse_warnings` event when a run's workflow file has keys
 * Cairn ignores; `cairn workflow run` reads it from the stream, with the run-level event schema
 * the supervisor writes with, and shows each warning as the run starts.
 */

let home: TempHome;
beforeAll(assertBuilt);
beforeEach(async () => {
  home = await makeTempHome();
  await startServer(home);
});
afterEach(async () => {
  await home.close();
});

const cli = (...argv: string[]) => runUserCli(home.home, argv);

describe('cairn workflow run shows the workflow file’s parse warnings', () => {
  it('prints one warning line per ignored key before the nodes run, and still completes', async () => {
    await writeHomeWorkflow(
      home,
      'sloppy',
      'name: sloppy\ndescription: has keys Cairn ignores\ncolour: blue\nnodes:\n  - id: greet\n    bash: echo hi\n    reviewer_notes: 5\n',
    );
    const { code, stdout, stderr } = await cli('workflow', 'run', 'sloppy');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    const warnings = lines.filter((l) => l.startsWith('warning '));
    expect(warnings).toHaveLength(2);
    expect(warnings.join('\n')).toContain("Workflow 'sloppy': unknown key 'colour' will be ignored.");
    expect(warnings.join('\n')).toContain("Node 'greet': unknown key 'reviewer_notes' will be ignored.");
    const firstWarning = lines.findIndex((l) => l.startsWith('warning '));
    expect(firstWarning).toBeLessThan(lines.findIndex((l) => /^started\s+greet$/.test(l)));
  });

  it('prints no warning line for a clean workflow', async () => {
    await writeHomeWorkflow(home, 'clean', 'name: clean\ndescription: no stray keys\nnodes:\n  - id: a\n    bash: echo ok\n');
    const { code, stdout } = await cli('workflow', 'run', 'clean');
    expect(code).toBe(0);
    expect(stdout).not.toMatch(/^warning /m);
  });
});
