import { useRef, useState } from 'preact/hooks';
import { AttachmentPicker } from '../attachments/attachment-picker.js';
import { suggestionsFor } from './slash-commands.js';

export interface ComposerProps {
  /** Sends the text and the files chosen; a refusal throws, and the text and files stay. */
  send(text: string, files: readonly File[]): Promise<void>;
  /** Why nothing can be sent right now (the stream is not open yet), or undefined. */
  blocked?: string | undefined;
  names: { codebases: readonly string[]; workflows: readonly string[] };
}

/**
 * The message box. Enter sends, Shift+Enter starts a new line. A `/` at the start offers the
 * slash commands (and after `/setproject ` or `/workflow run `, the names to complete): ↑ and ↓
 * choose, Tab or Enter takes the one chosen, Escape closes the list. Files may go with the
 * message (the picker below the box, held to the API's limits).
 */
export function Composer(props: ComposerProps) {
  const [text, setText] = useState('');
  const [files, setFiles] = useState<File[]>([]);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const [chosen, setChosen] = useState(0);
  const [closed, setClosed] = useState(false);
  const box = useRef<HTMLTextAreaElement>(null);
  const suggestions = closed ? [] : suggestionsFor(text, props.names);
  // The first suggestion is chosen again whenever the text changes, in the same update: an effect
  // would run after the next key (↓ typed fast after a letter would be undone).
  const edit = (next: string) => {
    setText(next);
    setChosen(0);
  };

  const take = (index: number) => {
    const suggestion = suggestions[index];
    if (!suggestion) return;
    edit(suggestion.text);
    box.current?.focus();
  };
  const submit = async () => {
    const message = text.trim();
    if (!message || sending || props.blocked) return;
    setSending(true);
    setError(undefined);
    try {
      await props.send(message, files);
      setText('');
      setFiles([]);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setSending(false);
      box.current?.focus();
    }
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (suggestions.length > 0) {
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        const step = event.key === 'ArrowDown' ? 1 : -1;
        setChosen((c) => (c + step + suggestions.length) % suggestions.length);
        return;
      }
      if (event.key === 'Tab' || (event.key === 'Enter' && !event.shiftKey)) {
        event.preventDefault();
        take(chosen);
        return;
      }
      if (event.key === 'Escape') {
        // The list closes; the next Escape leaves the box.
        event.stopPropagation();
        setClosed(true);
        return;
      }
    }
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      void submit();
    }
  };

  return (
    <form
      class="composer"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      {suggestions.length > 0 ? (
        <ul class="suggestions" role="listbox" aria-label="Slash commands" data-suggestions>
          {suggestions.map((s, i) => (
            <li
              key={s.label}
              role="option"
              aria-selected={i === chosen}
              class={i === chosen ? 'chosen' : ''}
              data-suggestion={s.label}
              onMouseDown={(e) => {
                e.preventDefault();
                take(i);
              }}
            >
              <code>{s.label}</code> <span class="muted">{s.description}</span>
            </li>
          ))}
        </ul>
      ) : null}
      <div class="composer-row">
        <textarea
          ref={box}
          name="message"
          rows={3}
          aria-label="Message"
          placeholder="A message, or / for the commands (Enter sends, Shift+Enter for a new line)"
          value={text}
          onInput={(e) => {
            edit((e.target as HTMLTextAreaElement).value);
            setClosed(false);
          }}
          onKeyDown={onKeyDown}
        />
        <button type="submit" class="btn" data-action="send" disabled={sending || !!props.blocked || text.trim() === ''}>
          Send
        </button>
      </div>
      <AttachmentPicker files={files} onChange={setFiles} kind="message" disabled={sending} />
      {props.blocked ? <p class="muted">{props.blocked}</p> : null}
      {error ? (
        <p class="error-text" data-send-error>
          {error}
        </p>
      ) : null}
    </form>
  );
}
