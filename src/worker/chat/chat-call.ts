import { rm } from 'node:fs/promises';
import type { Store } from '../../store/store.js';
import type { ChatCallResult } from '../chat-protocol.js';
import { chatCallTaskSchema } from '../chat-protocol.js';
import { runAgent } from '../nodes/agent/agent.js';
import { adapterFor } from '../providers/adapters.js';
import type { ProviderAdapter } from '../providers/provider-adapter.js';
import { withSecretsMasked } from '../providers/common/masking-adapter.js';
import { SecretMask } from '../../shared/secret-mask.js';

/**
 * A chat turn's call to the default assistant, inside a worker thread: the node attempts'
 * adapter and watchdogs (`runAgent`), with the text streamed to the conversation as `text`
 * events in batches (a flush when `flush.chars` wait, or `flush.ms` after the first waiting
 * chunk), so a long answer is tens of rows, not thousands. The end that was not flushed is
 * returned as `tail`: the caller writes it with the stored message, in one transaction.
 */
export async function runChatCall(input: unknown, store: Store, adapterOverride?: ProviderAdapter): Promise<ChatCallResult> {
  const task = chatCallTaskSchema.parse(input);
  const registered = adapterOverride ?? adapterFor(task.provider);
  const adapter = registered && withSecretsMasked(registered, new SecretMask(task.secrets));
  if (!adapter) {
    return { status: 'failed', text: '', streamed: false, tail: '', error: `provider '${task.provider}' has no adapter in this version of Cairn`, failureClass: 'misconfigured' };
  }
  let pending = '';
  let streamed = false;
  let timer: NodeJS.Timeout | undefined;
  let writes: Promise<unknown> = Promise.resolve();
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending === '') return;
    const content = pending;
    pending = '';
    streamed = true;
    writes = writes
      .then(() => store.appendConversationEvents([{ conversation_id: task.conversationId, event_type: 'text', data: { content, isComplete: false } }]))
      // A lost batch is still in the stored message; the stream is best effort.
      .catch(() => {});
  };
  try {
    const outcome = await runAgent(
      {
        provider: task.provider,
        prompt: task.prompt,
        ...(task.model !== undefined ? { model: task.model } : {}),
        systemPrompt: task.systemPrompt,
        // The assistant answers about the code; changes go through a workflow run it dispatches.
        options: { permissions: 'read_only', extraDirs: [] },
        cwd: task.cwd,
        connection: task.connection,
        runId: `chat:${task.conversationId}`,
        attempt: { id: task.turnId },
        scratchDir: task.scratchDir,
        firstEventTimeoutMs: task.firstEventTimeoutMs,
        idleTimeoutMs: task.idleTimeoutMs,
      },
      adapter,
      {
        // Chat calls are bounded by their watchdogs; nothing cancels them from outside.
        signal: new AbortController().signal,
        onChunk(chunk) {
          if (chunk.type !== 'text' || chunk.text === '') return;
          pending += chunk.text;
          if (pending.length >= task.flush.chars) flush();
          else timer ??= setTimeout(flush, task.flush.ms);
        },
      },
    );
    if (timer) clearTimeout(timer);
    await writes;
    const resolvedModel = outcome.end.resolvedModel;
    const base = { streamed, tail: pending, ...(resolvedModel !== undefined ? { resolvedModel } : {}) };
    if (outcome.status === 'completed') return { status: 'completed', text: outcome.output, ...base };
    return {
      status: 'failed',
      text: outcome.output,
      ...base,
      error: outcome.error ?? 'the provider call failed',
      failureClass: outcome.failureKind === 'timeout' ? 'timeout' : (outcome.providerFailure?.class ?? 'unknown'),
    };
  } finally {
    if (timer) clearTimeout(timer);
    await rm(task.scratchDir, { recursive: true, force: true }).catch(() => {});
  }
}
