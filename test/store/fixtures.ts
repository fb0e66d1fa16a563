import { randomUUID } from 'node:crypto';
import type { NewRunEvent } from '../../src/store/schemas/event.js';
import type { Run } from '../../src/store/schemas/run.js';
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

/** An event of `run` whose data repeats its type, so reads can be compared by type. */
export function newEvent(run: Pick<Run, 'id' | 'conversation_id'>, type: string): NewRunEvent {
  return { run_id: run.id, conversation_id: run.conversation_id, event_type: type, step_name: null, data: { type } };
}
