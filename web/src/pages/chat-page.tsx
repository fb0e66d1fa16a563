import { useEffect, useState } from 'preact/hooks';
import { getJson, sendJson } from '../api.js';
import { ConversationView } from '../chat/conversation-view.js';
import { chatHref, type Conversation } from '../chat/types.js';
import type { Codebase } from '../codebases/types.js';
import { ago } from '../format.js';
import { useKeys } from '../keyboard.js';
import { navigate } from '../router.js';

/**
 * `/chat` and `/chat/<conversationId>`: the conversations (newest activity first), a new one
 * (bound to a codebase or not), and the one open. This page's code and the markdown libraries
 * are loaded when it is first shown (app.tsx).
 */
export function ChatPage(props: { conversationId: string | undefined }) {
  const [list, setList] = useState<Conversation[] | undefined>(undefined);
  const [listError, setListError] = useState<string | undefined>(undefined);
  const [codebases, setCodebases] = useState<Codebase[]>([]);
  const [codebase, setCodebase] = useState('');
  const [createError, setCreateError] = useState<string | undefined>(undefined);
  const [version, setVersion] = useState(0);
  const [cursor, setCursor] = useState(0);

  useEffect(() => {
    let live = true;
    getJson<Conversation[]>('/api/conversations')
      .then((answer) => live && (setList(answer), setListError(undefined)))
      .catch((err: Error) => live && setListError(err.message));
    return () => {
      live = false;
    };
  }, [version]);
  useEffect(() => {
    getJson<{ codebases: Codebase[] }>('/api/codebases')
      .then((answer) => setCodebases(answer.codebases))
      .catch(() => setCodebases([]));
  }, []);

  const create = async () => {
    setCreateError(undefined);
    try {
      const created = await sendJson<{ conversationId: string }>('POST', '/api/conversations', codebase ? { codebase_id: codebase } : {});
      navigate(chatHref(created.conversationId));
    } catch (err) {
      setCreateError((err as Error).message);
    }
  };

  const shown = list ?? [];
  // A new conversation is listed by the server once it has a message; until then it is listed here.
  const entries =
    props.conversationId && list && !shown.some((c) => c.platform_conversation_id === props.conversationId)
      ? [{ platform_conversation_id: props.conversationId, title: null, codebase_id: null, last_activity_at: '' } as Conversation, ...shown]
      : shown;
  useKeys({
    j: () => setCursor((c) => Math.min(entries.length - 1, c + 1)),
    k: () => setCursor((c) => Math.max(0, c - 1)),
    Enter: () => entries[cursor] && navigate(chatHref(entries[cursor]!.platform_conversation_id)),
    n: () => void create(),
  });
  useEffect(() => {
    document.querySelector(`[data-conversation-row="${cursor}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [cursor]);

  return (
    <main class="page chat-page">
      <aside class="conversations">
        <form
          class="new-conversation"
          onSubmit={(e) => {
            e.preventDefault();
            void create();
          }}
        >
          <label>
            Codebase
            <select name="new-codebase" value={codebase} onChange={(e) => setCodebase((e.target as HTMLSelectElement).value)}>
              <option value="">none</option>
              {codebases.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.id}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" class="btn" data-action="new-conversation">
            New conversation (n)
          </button>
        </form>
        {createError ? (
          <p class="error-text" data-create-error>
            {createError}
          </p>
        ) : null}
        {listError ? <p class="error-text">{listError}</p> : null}
        {list && entries.length === 0 ? <p class="muted">No conversation yet: start one above.</p> : null}
        <ul class="conversation-list">
          {entries.map((c, i) => {
            const open = c.platform_conversation_id === props.conversationId;
            return (
              <li
                key={c.platform_conversation_id}
                data-conversation-row={i}
                data-conversation-id={c.platform_conversation_id}
                class={`${i === cursor ? 'cursor' : ''} ${open ? 'open' : ''}`.trim()}
                onClick={() => setCursor(i)}
              >
                <a href={chatHref(c.platform_conversation_id)} aria-current={open ? 'page' : undefined}>
                  {c.title ?? 'New conversation'}
                </a>
                <span class="muted">
                  {c.codebase_id ? `${c.codebase_id} · ` : ''}
                  {c.last_activity_at ? ago(c.last_activity_at) : 'new'}
                </span>
              </li>
            );
          })}
        </ul>
      </aside>
      {props.conversationId ? (
        <ConversationView
          key={props.conversationId}
          conversationId={props.conversationId}
          codebases={codebases}
          onListChanged={() => setVersion((v) => v + 1)}
        />
      ) : (
        <section class="conversation">
          <p class="muted">Open a conversation, or start a new one: its answers stream here as they are written.</p>
        </section>
      )}
    </main>
  );
}
