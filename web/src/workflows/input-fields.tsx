import type { WorkflowInput } from './types.js';

export interface InputFieldsProps {
  /** The inputs the workflow declares, by name. */
  inputs: Record<string, WorkflowInput> | undefined;
  /** What is typed so far, by input name. */
  values: Record<string, string>;
  onChange(values: Record<string, string>): void;
}

/**
 * One text field per input a workflow declares: its name, marked when required, its description,
 * and its default as the placeholder. Shared by the run form and the schedule form.
 */
export function InputFields({ inputs, values, onChange }: InputFieldsProps) {
  return (
    <>
      {Object.entries(inputs ?? {}).map(([name, input]) => (
        <label key={name} data-input={name}>
          <span>
            {name}
            {input.required ? (
              <span class="required" title="required">
                {' '}
                * required
              </span>
            ) : null}
            {input.description ? <span class="muted"> · {input.description}</span> : null}
          </span>
          <input
            type="text"
            name={`input-${name}`}
            required={input.required === true}
            placeholder={placeholderOf(input)}
            value={values[name] ?? ''}
            onInput={(e) => onChange({ ...values, [name]: (e.target as HTMLInputElement).value })}
          />
        </label>
      ))}
    </>
  );
}

/** The default as it would be typed (JSON for a list or map), and the type or choices a typed input takes. */
function placeholderOf(input: WorkflowInput): string {
  const shown = input.default === undefined ? undefined : typeof input.default === 'string' ? input.default : JSON.stringify(input.default);
  const kind = input.enum ? input.enum.join(' | ') : input.type && input.type !== 'string' ? input.type : undefined;
  return [kind, shown !== undefined ? `default: ${shown}` : undefined].filter((part) => part !== undefined).join(' · ');
}

/** The required inputs left empty, by name. */
export function missingInputs(inputs: Record<string, WorkflowInput> | undefined, values: Record<string, string>): string[] {
  return Object.entries(inputs ?? {})
    .filter(([name, input]) => input.required && !(values[name] ?? '').trim())
    .map(([name]) => name);
}

/** Only the inputs given: an omitted one takes its declared default. */
export function givenInputs(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== ''));
}
