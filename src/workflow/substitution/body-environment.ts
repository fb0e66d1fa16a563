import { variableNames } from '../../shared/run-variable-names.js';
import { inputText, type InputValue } from '../schema/input-types.js';
import { inputEnvName, variableValue, type UnavailableVariables, type VariableValues } from './variables.js';

/**
 * The environment a shell or script body receives its values through. One environment entry
 * is capped by the kernel (128 KiB on Linux) and all of them together with the arguments share
 * ARG_MAX, so a value over 64 KiB, or one that would take the total over 512 KiB, is written to
 * a file instead: the entry `CAIRN_FILE_<NAME>` then holds the file's path and `<NAME>` is not
 * in the environment. Shell bodies get `<NAME>` back as an (unexported) shell variable from a
 * preamble (`filePreamble`); scripts read the file.
 */

export const ENV_VALUE_LIMIT_BYTES = 64 * 1024;
export const ENV_TOTAL_LIMIT_BYTES = 512 * 1024;

/** Writes a value to a file of the run and returns its path (`name` is the variable it stands for). */
export type SpillValue = (value: string, name: string) => string;

export class BodyEnvironment {
  readonly env: Record<string, string> = {};
  /** Variables whose value is in a file (`CAIRN_FILE_<NAME>`), in order. */
  readonly inFiles: string[] = [];
  /** Every value placed, by name, wherever it went. */
  readonly values = new Map<string, string>();
  private total = 0;

  constructor(private readonly spill: SpillValue | undefined) {}

  /** Places `value` as `name`: in the environment, or in a file when it is too large. */
  place(name: string, value: string): void {
    if (Object.hasOwn(this.env, name) || Object.hasOwn(this.env, fileEnvName(name))) return;
    this.values.set(name, value);
    const bytes = Buffer.byteLength(value);
    if (!this.spill || (bytes <= ENV_VALUE_LIMIT_BYTES && this.total + bytes <= ENV_TOTAL_LIMIT_BYTES)) {
      this.env[name] = value;
      this.total += bytes;
      return;
    }
    this.env[fileEnvName(name)] = this.spill(value, name);
    this.inFiles.push(name);
  }
}

export function fileEnvName(name: string): string {
  return `CAIRN_FILE_${name}`;
}

/** Every available run variable and every declared input, placed in `target`. */
export function placeRunValues(
  target: BodyEnvironment,
  ctx: {
    variables: VariableValues;
    unavailable?: UnavailableVariables | undefined;
    inputs: Readonly<Record<string, InputValue>>;
    declaredInputs: readonly string[];
  },
): BodyEnvironment {
  for (const name of variableNames) {
    const value = variableValue(ctx.variables, name, ctx.unavailable);
    if (value !== undefined) target.place(name, value);
  }
  for (const name of new Set([...ctx.declaredInputs, ...Object.keys(ctx.inputs)])) {
    target.place(inputEnvName(name), inputText(ctx.inputs[name]));
  }
  return target;
}

/**
 * Shell code that loads each file-held value into a shell variable of its name, exactly
 * (trailing newlines kept: the `x` guards them from `$(…)`), and stops the script with a
 * message when a file cannot be read. Written on the body's first line, so line numbers in
 * the shell's errors stay those of the body.
 */
export function filePreamble(names: readonly string[]): string {
  return names
    .map((name) => {
      const file = `"$${fileEnvName(name)}"`;
      return (
        `${name}="$(cat -- ${file} && printf x)" && ${name}="\${${name}%x}" || ` +
        `{ echo "cairn: cannot read the value of ${name} from "${file} >&2; exit 1; }; `
      );
    })
    .join('');
}
