import { expect, it } from 'vitest';
import { validateWorkflowDefinition } from '../../src/workflow/checks/validate-definition.js';

const wf = (loop: Record<string, unknown>) => ({ name: 'x', description: 'd', nodes: [{ id: 'l', loop: { max_iterations: 2, until: 'DONE', ...loop } }] });
const errorsOf = (loop: Record<string, unknown>) => {
  const result = validateWorkflowDefinition(wf(loop));
  return result.valid ? [] : result.errors;
};

it('a loop may have a `bash` body (Cairn) instead of a prompt or a command', () => {
  expect(errorsOf({ bash: 'echo hi' })).toEqual([]);
});

it('a loop body is exactly one of prompt, command and bash', () => {
  expect(errorsOf({ bash: 'echo hi', prompt: 'hi' }).join('\n')).toContain("'loop.prompt', 'loop.command' and 'loop.bash' are mutually exclusive");
  expect(errorsOf({}).join('\n')).toContain("loop needs 'loop.prompt' (inline), 'loop.command' (a command file) or 'loop.bash' (a shell body)");
});
