import { z } from 'zod';
import type { Run } from '../../store/schemas/run.js';
import type { JobHandler } from './job-handler.js';
import { runIdOf } from './job-handler.js';

const payloadSchema = z.object({ conversationId: z.string() });

function resultText(run: Run): string {
  const name = `**${run.workflow_name}**`;
  switch (run.status) {
    case 'completed':
      return `✅ Workflow ${name} completed (run ${run.id}).`;
    case 'cancelled':
      return `⏹ Workflow ${name} was cancelled (run ${run.id}).`;
    default:
      return `❌ Workflow ${name} ${run.status}${run.error ? `: ${run.error}` : ''} (run ${run.id}).`;
  }
}

/**
 * `workflow_result`: posts the end of a run dispatched from a chat to that chat, as an assistant
 * message and a `text` frame (category `workflow_result`). The run's terminal transition queued
 * this job in its own transaction, so the report survives a restart between the two.
 */
export const workflowResultJob: JobHandler<'workflow_result'> = {
  mode: 'inline',
  async handle(job, { store }) {
    const { conversationId } = payloadSchema.parse(job.payload);
    const run = await store.getRun(runIdOf(job));
    const conversation = await store.getConversation(conversationId);
    if (!run || !conversation) return 'ignored: the run or its conversation is gone';
    const workflowResult = { workflowName: run.workflow_name, runId: run.id };
    const content = resultText(run);
    await store.postChatReply({
      conversationId: conversation.id,
      content,
      metadata: { category: 'workflow_result', workflowResult },
      events: [
        {
          conversation_id: conversationId,
          event_type: 'text',
          data: { content, isComplete: true, category: 'workflow_result', workflowResult },
        },
      ],
    });
    return 'posted';
  },
};
