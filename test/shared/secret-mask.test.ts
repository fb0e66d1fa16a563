import { describe, expect, it } from 'vitest';
import { isSecretLookingKey, REDACTED, SecretMask, secretValuesOfEnv } from '../../src/shared/secret-mask.js';

const KEY = 'sk-ant-api03-KEYKEYKEY';
const TOKEN = 'ghp_0123456789abcdefXYZ';

describe('SecretMask', () => {
  const mask = new SecretMask([KEY, TOKEN, undefined, 'ab']);

  it('masks every occurrence of each secret, and leaves secrets too short to be one alone', () => {
    expect(mask.text(`invalid x-api-key: ${KEY} (${KEY}); token ${TOKEN}; ab`)).toBe(`invalid x-api-key: ${REDACTED} (${REDACTED}); token ${REDACTED}; ab`);
  });

  it('masks the strings of a value, keys included, and leaves the rest as it was', () => {
    const value = { input: { command: `echo ${TOKEN}`, [KEY]: 1, n: 2, list: [KEY, true, null] } };
    expect(mask.deep(value)).toEqual({ input: { command: `echo ${REDACTED}`, [REDACTED]: 1, n: 2, list: [REDACTED, true, null] } });
  });

  it('masks a streamed text as the whole text, wherever the chunks cut a secret', () => {
    const whole = `start ${KEY} middle ${TOKEN}${KEY} sk-ant-api03-KEY end ${TOKEN}`;
    for (let size = 1; size <= whole.length; size++) {
      for (const offset of [0, 3]) {
        const cuts = [0];
        for (let at = offset || size; at < whole.length; at += size) cuts.push(at);
        cuts.push(whole.length);
        let held = '';
        let out = '';
        for (let i = 1; i < cuts.length; i++) {
          const { emit, hold } = mask.splitStream(held + whole.slice(cuts[i - 1], cuts[i]));
          out += emit;
          held = hold;
          // What is let go never holds a secret's whole text.
          expect(emit.includes(KEY) || emit.includes(TOKEN)).toBe(false);
        }
        out += mask.text(held);
        expect(out).toBe(mask.text(whole));
      }
    }
  });
});

describe('secretValuesOfEnv', () => {
  it('takes the values of secret-looking names, but not short values or paths', () => {
    expect(isSecretLookingKey('GH_TOKEN')).toBe(true);
    expect(isSecretLookingKey('PATH')).toBe(false);
    expect(secretValuesOfEnv({ GH_TOKEN: TOKEN, OPENAI_API_KEY: KEY, DEBUG_TOKEN: 'true', SSH_AUTH_SOCK: '/tmp/ssh-abc/agent.1', HOME: '/home/x', PATH: '/usr/bin' }).sort()).toEqual(
      [KEY, TOKEN].sort(),
    );
  });
});
