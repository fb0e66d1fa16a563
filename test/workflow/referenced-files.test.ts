import { expect, it } from 'vitest';
import { loadWorkflowText } from '../../src/workflow/loading/load-workflow.js';
import { referencedFiles } from '../../src/workflow/catalog/referenced-files.js';

/** The files a run's copy holds are every command and script its nodes name, nested ones included. */
it('names the commands of command nodes and loop bodies, and the scripts of script nodes, inside loop_groups too, each once', () => {
  const loaded = loadWorkflowText(`name: refs
description: every place a node names a file
nodes:
  - { id: plan, command: plan }
  - { id: again, command: plan }
  - id: iterate
    loop: { command: step, until: DONE, max_iterations: 2 }
  - { id: tag, script: tag, runtime: bun }
  - { id: py, script: tag, runtime: uv }
  - { id: inline, script: "console.log(1)", runtime: bun }
  - id: rounds
    loop_group:
      max_iterations: 2
      until_bash: "true"
      nodes:
        - { id: inner, command: review }
        - { id: check, script: check, runtime: uv }
  - { id: shell, bash: ./build.sh }
`);
  if (!loaded.ok) throw new Error(loaded.error);
  expect(referencedFiles(loaded.workflow)).toEqual({
    commands: ['plan', 'review', 'step'],
    scripts: [
      { source: 'tag', runtime: 'bun' },
      { source: 'tag', runtime: 'uv' },
      { source: 'console.log(1)', runtime: 'bun' },
      { source: 'check', runtime: 'uv' },
    ],
  });
});
