import { randomUUID } from 'node:crypto';
import type { NewRun } from '../../src/store/store.js';

export function newRun(overrides: Partial<NewRun> = {}): NewRun {
  return {
    id: randomUUID(),
    workflowName: 'demo',
    conversationId: `conv-${randomUUID()}`,
    workingPath: null,
    userMessage: 'hello',
    inputs: {},
    metadata: {},
    definition: { name: 'demo', description: 'd', nodes: [{ id: 'a', bash: 'true' }] },
    ...overrides,
  };
}
