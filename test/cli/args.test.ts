import { describe, expect, it } from 'vitest';
import { expectPositionals, parseCommandArgs, parseInputs, parsePort, parsePositiveInt } from '../../src/cli/args.js';
import { CliError, EXIT_USAGE } from '../../src/terminal/cli-error.js';
import { runCliInProcess } from './cli-harness.js';

function usageMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(EXIT_USAGE);
    return (err as CliError).message;
  }
  throw new Error('expected a usage error');
}

describe('--input key=value', () => {
  it('collects repeated inputs, keeping everything after the first = as the value', () => {
    expect(parseInputs('workflow run', ['branch=main', 'query=a=b', 'empty='])).toEqual({
      branch: 'main',
      query: 'a=b',
      empty: '',
    });
  });

  it('refuses an input without a key or without = and names the argument', () => {
    expect(usageMessage(() => parseInputs('workflow run', ['branch']))).toContain("--input 'branch' is not of the form key=value");
    expect(usageMessage(() => parseInputs('workflow run', ['=main']))).toContain("--input '=main'");
  });

  it('refuses the same key twice rather than silently keeping one', () => {
    expect(usageMessage(() => parseInputs('workflow run', ['a=1', 'a=2']))).toContain("--input 'a' is given more than once");
  });
});

describe('command arguments', () => {
  it('parses known flags and positionals, and adds --help', () => {
    const parsed = parseCommandArgs('run get', ['abc', '--json', '-h'], { json: { type: 'boolean' } });
    expect(parsed.values).toEqual({ json: true, help: true });
    expect(parsed.positionals).toEqual(['abc']);
  });

  it('names an unknown flag and points at --help', () => {
    const message = usageMessage(() => parseCommandArgs('run list', ['--colour'], {}));
    expect(message).toContain("Unknown option '--colour'.");
    expect(message).toContain('cairn run list --help');
  });

  it('names a missing positional and refuses an extra one', () => {
    expect(usageMessage(() => expectPositionals('run get', [], ['id']))).toContain('Missing argument <id>');
    expect(usageMessage(() => expectPositionals('run get', ['a', 'b'], ['id']))).toContain("Unexpected argument 'b'");
    expect(expectPositionals('run get', ['a'], ['id'])).toEqual(['a']);
  });

  it('accepts only positive whole numbers for numeric flags', () => {
    expect(parsePositiveInt('run list', 'limit', '20')).toBe(20);
    expect(parsePositiveInt('run list', 'limit', undefined)).toBeUndefined();
    for (const bad of ['0', '-1', '2.5', 'ten', '']) {
      expect(usageMessage(() => parsePositiveInt('run list', 'limit', bad))).toContain('--limit must be a positive whole number');
    }
  });
});

describe('port settings', () => {
  it('accepts 1-65535 and refuses anything else, quoting the setting and the value', () => {
    expect(parsePort('serve', '--port', '3090')).toBe(3090);
    expect(parsePort('serve', '--port', '65535')).toBe(65535);
    expect(parsePort('serve', 'PORT', undefined)).toBeUndefined();
    expect(parsePort('serve', 'PORT', ' ')).toBeUndefined();
    for (const bad of ['0', '65536', '99999', '-1', '2.5', 'abc', '']) {
      expect(usageMessage(() => parsePort('serve', '--port', bad))).toContain(`--port '${bad}' is not a port number: it must be a whole number from 1 to 65535`);
    }
    expect(usageMessage(() => parsePort('serve', 'PORT', '99999'))).toContain("PORT '99999' is not a port number");
  });
});

describe('cairn usage errors', () => {
  it('exits 2 with the overview when no command is given', async () => {
    const result = await runCliInProcess([]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: cairn <command>');
  });

  it('exits 2 and says how to list commands for an unknown command', async () => {
    const result = await runCliInProcess(['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown command 'frobnicate'");
    expect(result.stderr).toContain('cairn --help');
  });

  it('exits 2 for --dry-run with a flag that follows a run, before contacting any server', async () => {
    const result = await runCliInProcess(['workflow', 'run', 'hello', '--dry-run', '--quiet'], { env: { CAIRN_URL: 'http://127.0.0.1:9' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--dry-run follows no run: drop --output, --quiet and --verbose');
  });

  it('exits 2 for a bad --input before contacting any server', async () => {
    const result = await runCliInProcess(['workflow', 'run', 'hello', '--input', 'nokey'], {
      env: { CAIRN_URL: 'http://127.0.0.1:9' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--input 'nokey' is not of the form key=value");
  });

  it('refuses a negative --budget-usd as not a positive number, not as an ambiguous argument', async () => {
    const result = await runCliInProcess(['run', 'resume', '0a1b2c3d', '--budget-usd', '-1'], { env: { CAIRN_URL: 'http://127.0.0.1:9' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--budget-usd must be a positive number of US dollars, such as 5 or 0.5, not '-1'");
    expect(result.stderr).not.toContain('ambiguous');
  });

  it('exits 2 for an unknown run status, listing the valid ones', async () => {
    const result = await runCliInProcess(['run', 'list', '--status', 'done']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--status must be one of pending, running, paused, completed, failed, cancelled');
  });

  it('prints help on stdout and exits 0 for every command', async () => {
    for (const argv of [['--help'], ['serve', '--help'], ['workflow', 'run', '--help'], ['run', 'list', '-h'], ['run', '--help']]) {
      const result = await runCliInProcess(argv);
      expect(result.code, argv.join(' ')).toBe(0);
      expect(result.stdout, argv.join(' ')).toContain('Usage: cairn');
    }
  });
});
