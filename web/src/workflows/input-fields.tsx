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
            placeholder={input.default !== undefined ? `default: ${input.default}` : ''}
            value={values[name] ?? ''}
            onInput={(e) => onChange({ ...values, [name]: (e.target as HTMLInputElement).value })}
          />
        </label>
      ))}
    </>
  );
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
