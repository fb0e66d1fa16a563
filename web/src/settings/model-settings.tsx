import { useEffect, useState } from 'preact/hooks';
import type { ModelScope, ModelView } from './model-scopes.js';
import { presetText, tiers, type ProviderInfo, type Tier } from './types.js';

interface Props {
  scope: ModelScope;
  providers: readonly ProviderInfo[];
  /** Changes when the user named changes: read again. */
  readKey?: string;
}

type Result = { ok: boolean; message: string } | undefined;

function ProviderSelect(props: { name: string; value: string; providers: readonly ProviderInfo[]; onChange(value: string): void; none?: string }) {
  return (
    <select name={props.name} aria-label={props.name} value={props.value} onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}>
      {props.none !== undefined ? <option value="">{props.none}</option> : <option value="">provider…</option>}
      {props.providers.map((p) => (
        <option key={p.id} value={p.id}>
          {p.displayName} ({p.id})
        </option>
      ))}
    </select>
  );
}

/**
 * One layer of the model configuration (docs/models.md): the default assistant and its model,
 * the tiers `small`, `medium` and `large`, and the `@` aliases. Each change is one PATCH of the
 * layer's routes (`null` unsets); the server's refusal is shown as it says it.
 */
export function ModelSettings(props: Props) {
  const { scope } = props;
  const [view, setView] = useState<ModelView | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [result, setResult] = useState<Result>(undefined);
  const [assistant, setAssistant] = useState('');
  const [model, setModel] = useState('');
  const [tierEdits, setTierEdits] = useState<Partial<Record<Tier, { provider: string; model: string }>>>({});
  const [alias, setAlias] = useState({ name: '', provider: '', model: '' });
  const [version, setVersion] = useState(0);

  useEffect(() => {
    let live = true;
    scope
      .read()
      .then((v) => {
        if (!live) return;
        setView(v);
        setError(undefined);
        setAssistant(v.assistant ?? '');
        setModel(v.model ?? '');
      })
      .catch((err: Error) => live && setError(err.message));
    return () => {
      live = false;
    };
  }, [scope, version, props.readKey]);

  const change = async (what: string, write: () => Promise<unknown>) => {
    setResult(undefined);
    try {
      await write();
      setResult({ ok: true, message: what });
      setVersion((v) => v + 1);
      return true;
    } catch (err) {
      setResult({ ok: false, message: (err as Error).message });
      return false;
    }
  };
  if (error) return <p class="error-text">{error}</p>;
  if (!view) return <p class="muted">Loading…</p>;
  const edit = (tier: Tier) => tierEdits[tier] ?? { provider: '', model: '' };
  const setEdit = (tier: Tier, part: Partial<{ provider: string; model: string }>) => setTierEdits((t) => ({ ...t, [tier]: { ...edit(tier), ...part } }));
  const prefix = `${scope.name}-`;

  return (
    <div class="model-settings" data-scope={scope.name}>
      <h4>Default assistant</h4>
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (!assistant && scope.name === 'install') {
            setResult({ ok: false, message: 'Choose the provider that answers by default.' });
            return;
          }
          void change(assistant ? `Default assistant: ${assistant}${model ? `, model ${model}` : ''}` : 'Default assistant cleared', () =>
            scope.setDefault(assistant || null, model.trim()),
          );
        }}
      >
        <ProviderSelect
          name={`${prefix}assistant`}
          value={assistant}
          providers={props.providers}
          onChange={setAssistant}
          {...(scope.name === 'user' ? { none: 'the install’s' } : {})}
        />
        <input type="text" name={`${prefix}model`} aria-label="Model" placeholder="model (the provider’s default)" value={model} onInput={(e) => setModel((e.target as HTMLInputElement).value)} />
        <button type="submit" class="btn" data-action={`${prefix}save-assistant`}>
          Save
        </button>
        <span class="muted" data-current-assistant>
          now: {view.assistant ? `${view.assistant}${view.model ? ` · ${view.model}` : ''}` : 'the install’s'}
        </span>
      </form>

      <h4>Tiers</h4>
      <table class="settings-table">
        <tbody>
          {tiers.map((tier) => {
            const set = view.tiers[tier];
            const fallback = view.tierDefaults?.[tier];
            return (
              <tr key={tier} data-tier={tier}>
                <th>{tier}</th>
                <td data-tier-value>
                  {set !== undefined ? presetText(set) : <span class="muted">{fallback !== undefined ? `default: ${presetText(fallback)}` : 'not set'}</span>}
                </td>
                <td>
                  <form
                    class="inline-form"
                    onSubmit={(e) => {
                      e.preventDefault();
                      const value = edit(tier);
                      void change(`Tier ${tier}: ${value.provider}/${value.model}`, () => scope.setTier(tier, { provider: value.provider, model: value.model.trim() }));
                    }}
                  >
                    <ProviderSelect name={`${prefix}${tier}-provider`} value={edit(tier).provider} providers={props.providers} onChange={(provider) => setEdit(tier, { provider })} />
                    <input
                      type="text"
                      name={`${prefix}${tier}-model`}
                      aria-label={`${tier} model`}
                      placeholder="model"
                      value={edit(tier).model}
                      onInput={(e) => setEdit(tier, { model: (e.target as HTMLInputElement).value })}
                    />
                    <button type="submit" class="btn btn-small" data-action="set-tier">
                      Set
                    </button>
                    <button type="button" class="btn btn-small" data-action="unset-tier" disabled={set === undefined} onClick={() => void change(`Tier ${tier} unset`, () => scope.setTier(tier, null))}>
                      Unset
                    </button>
                  </form>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>

      <h4>Aliases</h4>
      <table class="settings-table">
        <tbody>
          {Object.entries(view.aliases).map(([name, value]) => (
            <tr key={name} data-alias={name}>
              <th>
                <code>{name}</code>
              </th>
              <td>{presetText(value)}</td>
              <td>
                <button type="button" class="btn btn-small btn-delete" data-action="remove-alias" onClick={() => void change(`Alias ${name} removed`, () => scope.setAlias(name, null))}>
                  Remove
                </button>
              </td>
            </tr>
          ))}
          {Object.keys(view.aliases).length === 0 ? (
            <tr>
              <td colSpan={3} class="muted">
                No alias.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          const name = alias.name.trim();
          void change(`Alias ${name}: ${alias.provider}/${alias.model.trim()}`, () => scope.setAlias(name, { provider: alias.provider, model: alias.model.trim() })).then(
            (ok) => ok && setAlias({ name: '', provider: '', model: '' }),
          );
        }}
      >
        <input type="text" name={`${prefix}alias-name`} aria-label="Alias name" placeholder="@name" value={alias.name} onInput={(e) => setAlias({ ...alias, name: (e.target as HTMLInputElement).value })} />
        <ProviderSelect name={`${prefix}alias-provider`} value={alias.provider} providers={props.providers} onChange={(provider) => setAlias({ ...alias, provider })} />
        <input type="text" name={`${prefix}alias-model`} aria-label="Alias model" placeholder="model" value={alias.model} onInput={(e) => setAlias({ ...alias, model: (e.target as HTMLInputElement).value })} />
        <button type="submit" class="btn" data-action="add-alias">
          Add alias
        </button>
      </form>
      {result ? (
        <p class={result.ok ? 'result ok' : 'result error'} data-model-result>
          {result.message}
        </p>
      ) : null}
    </div>
  );
}
