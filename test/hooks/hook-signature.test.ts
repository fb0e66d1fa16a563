import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyDelivery } from '../../src/hooks/hook-signature.js';

/** The two signature forms of docs/webhooks.md, with HMACs computed here as a sender computes them. */

const SECRET = 'a-secret-of-32-characters-000000';
const body = Buffer.from('{"ref":"refs/heads/main"}');
const mac = (text: string | Buffer) => `sha256=${createHmac('sha256', SECRET).update(text).digest('hex')}`;
const reader = (headers: Record<string, string>) => (name: string) => headers[name];
const now = Date.parse('2026-06-01T12:00:00Z');
const stamp = (offsetS: number) => String(now / 1000 + offsetS);

describe('github form', () => {
  it('accepts the HMAC of the body, in upper or lower case hex, and answers the delivery id', () => {
    const signature = mac(body);
    for (const sig of [signature, `sha256=${signature.slice(7).toUpperCase()}`]) {
      expect(verifyDelivery('github', SECRET, reader({ 'x-hub-signature-256': sig, 'x-github-delivery': 'g-1' }), body, now)).toEqual({ deliveryId: 'g-1' });
    }
  });

  it('refuses a missing, malformed or wrong signature (401), and a signed delivery without an id (400)', () => {
    const cases: [Record<string, string>, string, RegExp][] = [
      [{ 'x-github-delivery': 'g' }, 'HOOK_SIGNATURE_INVALID', /the X-Hub-Signature-256 header is missing/],
      [{ 'x-hub-signature-256': 'sha1=abc', 'x-github-delivery': 'g' }, 'HOOK_SIGNATURE_INVALID', /must be 'sha256=' and 64 hex digits/],
      [{ 'x-hub-signature-256': mac('other'), 'x-github-delivery': 'g' }, 'HOOK_SIGNATURE_INVALID', /does not match the body signed with the hook's secret/],
      [{ 'x-hub-signature-256': mac(body) }, 'VALIDATION_FAILED', /The X-GitHub-Delivery header is missing/],
      [{ 'x-hub-signature-256': mac(body), 'x-github-delivery': 'has space' }, 'VALIDATION_FAILED', /1-200 printable characters without spaces/],
    ];
    for (const [headers, code, text] of cases) {
      expect(() => verifyDelivery('github', SECRET, reader(headers), body, now), JSON.stringify(headers)).toThrow(text);
      try {
        verifyDelivery('github', SECRET, reader(headers), body, now);
      } catch (err) {
        expect((err as { code: string }).code).toBe(code);
      }
    }
  });
});

describe('generic form', () => {
  const signed = (ts: string, overrides: Record<string, string> = {}) =>
    reader({ 'x-cairn-timestamp': ts, 'x-cairn-signature': mac(Buffer.concat([Buffer.from(`${ts}.`), body])), 'x-cairn-delivery': 'c-1', ...overrides });

  it('accepts "<timestamp>.<body>" signed within 5 minutes either way', () => {
    for (const offset of [0, -300, 300]) expect(verifyDelivery('generic', SECRET, signed(stamp(offset)), body, now)).toEqual({ deliveryId: 'c-1' });
  });

  it('refuses a delivery signed more than 5 minutes off, a timestamp it does not sign, and one that is not Unix seconds', () => {
    expect(() => verifyDelivery('generic', SECRET, signed(stamp(-301)), body, now)).toThrow(/X-Cairn-Timestamp is 301 s old; at most 300 s is accepted/);
    expect(() => verifyDelivery('generic', SECRET, signed(stamp(301)), body, now)).toThrow(/is 301 s ahead of the server/);
    // The signature of another moment, under this one's timestamp.
    expect(() => verifyDelivery('generic', SECRET, signed(stamp(-600), { 'x-cairn-timestamp': stamp(0) }), body, now)).toThrow(/does not match/);
    expect(() => verifyDelivery('generic', SECRET, signed('2026-06-01T12:00:00Z'), body, now)).toThrow(/must be the sending time in Unix seconds/);
    expect(() => verifyDelivery('generic', SECRET, reader({ 'x-cairn-signature': mac(body) }), body, now)).toThrow(/X-Cairn-Timestamp header is missing/);
  });
});
