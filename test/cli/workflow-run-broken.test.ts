import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';
import { assertBuilt, runUserCli } from './cli-process.js';

/**
 * `cairn workflow run <name>` of a workflow whose file does not load says so, naming the file and
 * its problems, against a real server: never "Workflow not found", and no run is started.
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

describe('cairn workflow run of a file that did not load', () => {
  it('names the file and shows the YAML parse error', async () => {
    await writeHomeWorkflow(home, 'colon', 'name: colon\ndescription: Review: the diff\nnodes:\n  - id: a\n    bash: echo hi\n');
    const { code, stdout, stderr } = await cli('workflow', 'run', 'colon');
    expect(code).toBe(1);
    expect(stdout).not.toContain('started');
    expect(stderr).toContain("Workflow file is invalid: 'colon' is declared in colon.yaml (global), which did not load");
    expect(stderr).toContain('YAML parse error: ');
    expect(stderr).not.toContain('not found');
  });

  it('shows the validation errors of a file that parsed but does not validate', async () => {
    await writeHomeWorkflow(home, 'typo', 'name: typo\ndescription: d\nnodes:\n  - id: a\n    bash: echo a\n  - id: b\n    bash: echo b\n    depend_on: [a]\n');
    const { code, stderr } = await cli('workflow', 'run', 'typo');
    expect(code).toBe(1);
    expect(stderr).toContain("Node 'b': unknown key 'depend_on' (did you mean 'depends_on'?)");
  });
});
