import { streamPayloadSchema } from '../wire/stream-frames.js';

/** What a chat frame shows in the terminal: answer text on stdout, notices on stderr, and whether the turn ended. */
export interface ChatFrameView {
  stdout?: string;
  stderr?: string;
  turnEnded?: boolean;
}

export type ChatFrame = unknown;

/**
 * One frame of a conversation's stream as `cairn chat` shows it. Answer text streams as it comes
 * (batches, then the closing frame); a retraction says the streamed text was withdrawn; a
 * dispatched workflow names its run's conversation; an error says why the turn failed; the
 * unlock ends the turn. Frames of the conversation's own runs are left to `cairn run follow`.
 */
export function chatFrameText(raw: ChatFrame): ChatFrameView {
  const parsed = streamPayloadSchema.safeParse(raw);
  if (!parsed.success) return {};
  const frame = parsed.data;
  switch (frame.type) {
    case 'text':
      return { stdout: frame.content };
    case 'retract':
      return { stderr: '(the text above was withdrawn)' };
    case 'workflow_dispatch':
      return { stderr: `Started workflow ${frame.workflowName} (its conversation: ${frame.workerConversationId}); its result is posted here when it ends.` };
    case 'error':
      return { stderr: `The turn failed: ${frame.message}` };
    case 'conversation_lock':
      return frame.locked ? {} : { turnEnded: true };
    default:
      return {};
  }
}
