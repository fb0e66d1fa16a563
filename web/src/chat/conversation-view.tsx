import { useEffect, useRef, useState } from 'preact/hooks';
import { formWithFiles, getJson, sendForm, sendJson, withQuery } from '../api.js';
import { ago } from '../format.js';
import { Markdown } from '../markdown.js';
import { navigate } from '../router.js';
import { Composer } from './composer.js';
import { MessageFiles } from './message-files.js';
import { useConversationStream } from './conversation-stream.js';
import type { Codebase } from '../codebases/types.js';
import type { WorkflowList } from '../workflows/types.js';
import { chatHref, resultRunId, type ChatFrame, type Conversation, type Message } from './types.js';

export interface ConversationViewProps {
  conversationId: string;
  /** The registered codebases: the binding's choices and `/setproject`'s completions. */
  codebases: readonly Codebase[];
  /** The conversation changed in a way the list shows (a title, a message, gone). */
  onListChanged(): void;
}

const MESSAGE_LIMIT = 200;

/**
 * One conversation: its messages (assistant answers as sanitised markdown), the answer of the
 * turn under way as its text frames arrive, the message box with the slash commands, and the
 * conversation's title (rename), codebase (changed with `/setproject`, the chat's own way to
 * rebind) and delete.
 */
export function ConversationView(props: ConversationViewProps) {
  const id = props.conversationId;
  const path = `/api/conversations/${encodeURIComponent(id)}`;
  const [conversation, setConversation] = useState<Conversation | undefined>(undefined);
  const [messages, setMessages] = useState<Message[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [answering, setAnswering] = useState(false);
  const [partial, setPartial] = useState('');
  const [turnError, setTurnError] = useState<string | undefined>(undefined);
  const [renaming, setRenaming] = useState<string | undefined>(undefined);
  const [binding, setBinding] = useState('');
  const [actionError, setActionError] = useState<string | undefined>(undefined);
  const reads = useRef(0);
  /** A turn ended: the next read that starts holds its stored answer, and replaces the streamed text. */
  const turnEnded = useRef(false);
  const end = useRef<HTMLDivElement>(null);

  /** Reads the conversation and its messages; the last read asked for wins. */
  const read = async () => {
    const mine = ++reads.current;
    const afterTurn = turnEnded.current;
    try {
      const [c, list] = await Promise.all([getJson<Conversation>(path), getJson<Message[]>(`${path}/messages?limit=${MESSAGE_LIMIT}`)]);
      if (mine !== reads.current) return;
      setConversation(c);
      setMessages(list);
      setError(undefined);
      if (afterTurn && turnEnded.current) {
        turnEnded.current = false;
        setPartial('');
      }
    } catch (err) {
      if (mine === reads.current) setError((err as Error).message);
    }
  };
  useEffect(() => {
    void read();
  }, [id]);

  const stream = useConversationStream(id, {
    onOpen: () => void read(),
    onFrame: (frame: ChatFrame) => {
      switch (frame.type) {
        case 'conversation_lock':
          setAnswering(frame.locked);
          if (frame.locked) {
            setPartial('');
            setTurnError(undefined);
          } else {
            turnEnded.current = true;
            void read();
            props.onListChanged();
          }
          break;
        case 'text':
          setPartial((p) => p + frame.content);
          break;
        case 'retract':
          setPartial('');
          break;
        case 'error':
          setTurnError(frame.message);
          break;
        default:
          break;
      }
    },
  });

  // The workflows `/workflow run` can start: those of the bound codebase's folder, the home's and the bundled ones.
  const [workflows, setWorkflows] = useState<string[]>([]);
  const cwd = props.codebases.find((c) => c.id === conversation?.codebase_id)?.default_cwd;
  useEffect(() => {
    let live = true;
    getJson<WorkflowList>(withQuery('/api/workflows', { cwd }))
      .then((list) => live && setWorkflows(list.workflows.map((w) => w.workflow.name)))
      .catch(() => live && setWorkflows([]));
    return () => {
      live = false;
    };
  }, [cwd]);
  const codebaseIds = props.codebases.map((c) => c.id);

  useEffect(() => {
    end.current?.scrollIntoView({ block: 'nearest' });
  }, [messages?.length, partial]);

  const send = async (message: string, files: readonly File[] = []) => {
    if (files.length > 0) await sendForm(`${path}/message`, formWithFiles({ message }, files));
    else await sendJson(`POST`, `${path}/message`, { message });
    setTurnError(undefined);
    void read();
  };
  const rename = async () => {
    const title = renaming?.trim();
    if (!title) return;
    setActionError(undefined);
    try {
      await sendJson('PATCH', path, { title });
      setRenaming(undefined);
      void read();
      props.onListChanged();
    } catch (err) {
      setActionError((err as Error).message);
    }
  };
  const remove = async () => {
    if (!window.confirm('Delete this conversation? It leaves the list; its messages are kept on the server.')) return;
    setActionError(undefined);
    try {
      await sendJson('DELETE', path);
      props.onListChanged();
      navigate(chatHref());
    } catch (err) {
      setActionError((err as Error).message);
    }
  };

  if (error && !conversation) {
    return (
      <section class="conversation">
        <p class="error-text" data-error="conversation">
          {error}
        </p>
        <p>
          <a href={chatHref()}>Back to the conversations</a>, or start a new one there.
        </p>
      </section>
    );
  }
  if (!conversation || !messages) return <p class="muted conversation">Loading…</p>;

  return (
    <section class="conversation" data-conversation={id}>
      <header class="conversation-head">
        {renaming === undefined ? (
          <h2 data-title>{conversation.title ?? 'New conversation'}</h2>
        ) : (
          <form
            class="inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              void rename();
            }}
          >
            <input
              type="text"
              name="title"
              aria-label="Title"
              value={renaming}
              onInput={(e) => setRenaming((e.target as HTMLInputElement).value)}
              ref={(el) => el?.focus()}
            />
            <button type="submit" class="btn" data-action="save-title">
              Save
            </button>
            <button type="button" class="btn" onClick={() => setRenaming(undefined)}>
              Cancel
            </button>
          </form>
        )}
        <div class="conversation-actions">
          {renaming === undefined ? (
            <button type="button" class="btn" data-action="rename" onClick={() => setRenaming(conversation.title ?? '')}>
              Rename
            </button>
          ) : null}
          <button type="button" class="btn btn-delete" data-action="delete-conversation" onClick={() => void remove()}>
            Delete
          </button>
        </div>
      </header>
      <div class="binding">
        <span>
          Codebase: <strong data-codebase>{conversation.codebase_id ?? 'none'}</strong>
          {conversation.cwd ? (
            <>
              {' '}
              · working in <code>{conversation.cwd}</code>
            </>
          ) : null}
        </span>
        <form
          class="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (binding) void send(`/setproject ${binding}`).catch((err: Error) => setActionError(err.message));
          }}
        >
          <select name="codebase" aria-label="Change the codebase" value={binding} onChange={(e) => setBinding((e.target as HTMLSelectElement).value)}>
            <option value="">change to…</option>
            {codebaseIds.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
          <button type="submit" class="btn" data-action="bind" disabled={!binding || answering}>
            Use
          </button>
        </form>
        {props.codebases.length === 0 ? (
          <span class="muted">
            No codebase registered: <a href="/codebases">register one</a>.
          </span>
        ) : null}
      </div>
      {actionError ? (
        <p class="error-text" data-action-error>
          {actionError}
        </p>
      ) : null}
      <ol class="messages" aria-live="polite">
        {messages.length === 0 && !answering ? <li class="muted">No message yet: write one below, or type / for the commands.</li> : null}
        {messages.map((m) => {
          const runId = m.role === 'assistant' ? resultRunId(m) : undefined;
          return (
            <li key={m.id} class={`message message-${m.role}`} data-message-role={m.role} data-message-id={m.id}>
              <span class="label">
                {m.role === 'user' ? 'You' : 'Assistant'} · {ago(m.created_at)}
              </span>
              {m.role === 'user' ? <p class="user-text">{m.content}</p> : <Markdown text={m.content} htmlAsText />}
              <MessageFiles message={m} />
              {runId ? <a href={`/runs/${encodeURIComponent(runId)}`}>Open the run</a> : null}
            </li>
          );
        })}
        {answering || partial ? (
          <li class="message message-assistant streaming" data-streaming>
            <span class="label">Assistant · {answering ? 'answering…' : 'done'}</span>
            {partial ? <Markdown text={partial} htmlAsText /> : <p class="muted">…</p>}
          </li>
        ) : null}
      </ol>
      {turnError ? (
        <p class="error-text" data-turn-error>
          The turn failed: {turnError}
        </p>
      ) : null}
      <div ref={end} />
      <Composer
        send={send}
        blocked={stream === 'live' ? undefined : 'Connecting to the conversation’s stream…'}
        names={{ codebases: codebaseIds, workflows }}
      />
    </section>
  );
}
