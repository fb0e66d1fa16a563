import { describe, expect, it } from 'vitest';
import { dispatchStatusOf } from '../../../src/store/rules/chat-turns.js';
import { MAX_CONCURRENT_CHAT_TURNS } from '../../../src/store/schemas/conversation.js';

describe('a chat message’s dispatch', () => {
  it('waits for its conversation’s open turn, else for a free slot, else starts', () => {
    expect(dispatchStatusOf({ activeConversationIds: [], queuedByConversation: {} }, 'c')).toBe('started');
    expect(dispatchStatusOf({ activeConversationIds: ['c'], queuedByConversation: {} }, 'c')).toBe('queued-conversation');
    expect(dispatchStatusOf({ activeConversationIds: [], queuedByConversation: { c: 1 } }, 'c')).toBe('queued-conversation');
    const busy = Array.from({ length: MAX_CONCURRENT_CHAT_TURNS }, (_, i) => `other-${i}`);
    expect(dispatchStatusOf({ activeConversationIds: busy, queuedByConversation: {} }, 'c')).toBe('queued-capacity');
    expect(dispatchStatusOf({ activeConversationIds: busy.slice(1), queuedByConversation: {} }, 'c')).toBe('started');
  });
});
