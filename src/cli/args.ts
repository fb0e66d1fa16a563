import { parseArgs, type ParseArgsConfig } from 'node:util';
import { portSettingText, toPortNumber } from '../shared/env-settings.js';
import { usageError } from '../terminal/cli-error.js';

type OptionSpecs = NonNullable<ParseArgsConfig['options']>;

const helpOption = { help: { type: 'boolean', short: 'h' } } as const;

/**
 * Parses one command's arguments strictly (unknown flags are usage errors) and adds `--help`.
 * `command` is the command's name as typed (`run list`), used in the usage-error hint.
 */
export function parseCommandArgs<const O extends OptionSpecs>(command: string, argv: readonly string[], options: O) {
  try {
    return parseArgs({
      args: withNegativeValues(argv, options),
      options: { ...options, ...helpOption },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // Node's text for an unknown flag goes on about '--'; the flag's name is what helps.
    const unknown = /^Unknown option '([^']+)'/.exec(message);
    throw usageError(unknown ? `Unknown option '${unknown[1]}'.` : message, command);
  }
}

/**
 * `--budget-usd -1`: parseArgs refuses a value that starts with '-' as ambiguous. A negative
 * number is joined to its option (`--budget-usd=-1`) so the command's own check refuses it,
 * saying what the value must be.
 */
function withNegativeValues(argv: readonly string[], options: OptionSpecs): string[] {
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const next = argv[i + 1];
    if (arg === '--') return [...args, ...argv.slice(i)];
    const isStringOption = arg.startsWith('--') && options[arg.slice(2)]?.type === 'string';
    if (isStringOption && next !== undefined && /^-\.?\d/.test(next)) {
      args.push(`${arg}=${next}`);
      i++;
    } else args.push(arg);
  }
  return args;
}

/**
 * Checks the positional arguments against the names the command expects: every name is
 * required, and anything beyond them is refused so a typo never passes silently.
 */
export function expectPositionals(command: string, positionals: readonly string[], names: readonly string[]): string[] {
  const missing = names[positionals.length];
  if (missing !== undefined) throw usageError(`Missing argument <${missing}>.`, command);
  const extra = positionals[names.length];
  if (extra !== undefined) throw usageError(`Unexpected argument '${extra}'.`, command);
  return [...positionals];
}

/** Turns repeated `--input key=value` arguments into the run request's `inputs` object. */
export function parseInputs(command: string, pairs: readonly string[]): Record<string, string> {
  const inputs: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const key = eq > 0 ? pair.slice(0, eq).trim() : '';
    if (key === '') {
      throw usageError(`--input '${pair}' is not of the form key=value (for example --input branch=main).`, command);
    }
    if (Object.hasOwn(inputs, key)) throw usageError(`--input '${key}' is given more than once.`, command);
    inputs[key] = pair.slice(eq + 1);
  }
  return inputs;
}

/** Parses a flag that must be a positive integer (`--limit 20`). */
export function parsePositiveInt(command: string, flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value <= 0) {
    throw usageError(`--${flag} must be a positive whole number, got '${raw}'.`, command);
  }
  return value;
}

/** Parses a port setting (`--port`, or `PORT` for `cairn serve`): a whole number from 1 to 65535. */
export function parsePort(command: string, setting: '--port' | 'PORT', raw: string | undefined): number | undefined {
  if (raw === undefined || (setting === 'PORT' && raw.trim() === '')) return undefined;
  const port = toPortNumber(raw);
  if (port === undefined) throw usageError(`${portSettingText(setting, raw)}.`, command);
  return port;
}
