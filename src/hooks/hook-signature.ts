import { createHmac, timingSafeEqual } from 'node:crypto';
import { CairnError } from '../shared/errors.js';
import type { HookSignature } from '../store/schemas/hook.js';

/**
 * Checks a delivery's signature over its raw body, before anything is read from the body or
 * written anywhere (docs/webhooks.md, "Signatures"):
 *
 * - `github`: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, body)>`, delivery id in
 *   `X-GitHub-Delivery`.
 * - `generic`: `X-Cairn-Signature: sha256=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>`, where
 *   `X-Cairn-Timestamp` is the sending time in Unix seconds, at most 5 minutes from the server's
 *   clock either way; delivery id in `X-Cairn-Delivery`.
 *
 * The comparison is constant-time (over the HMACs' bytes: a header of another length is refused
 * before, which tells nothing about the secret).
 */

export const MAX_DELIVERY_AGE_MS = 5 * 60_000;
const DELIVERY_ID = /^[\x21-\x7e]{1,200}$/;

export const signatureHeaders = {
  github: { signature: 'x-hub-signature-256', delivery: 'x-github-delivery' },
  generic: { signature: 'x-cairn-signature', delivery: 'x-cairn-delivery', timestamp: 'x-cairn-timestamp' },
} as const;

export type HeaderReader = (name: string) => string | undefined;

/** The hex HMAC-SHA256 a sender puts after `sha256=` (exported for tests and docs examples). */
export function hmacHex(secret: string, ...parts: (string | Buffer)[]): string {
  const mac = createHmac('sha256', secret);
  for (const part of parts) mac.update(part);
  return mac.digest('hex');
}

function refuse(why: string): CairnError {
  return new CairnError('HOOK_SIGNATURE_INVALID', `The delivery's signature was refused: ${why}. Nothing was started.`);
}

function sameMac(expectedHex: string, header: string | undefined, name: string): void {
  if (header === undefined) throw refuse(`the ${name} header is missing`);
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(header.trim());
  if (!match) throw refuse(`${name} must be 'sha256=' and 64 hex digits`);
  if (!timingSafeEqual(Buffer.from(match[1]!.toLowerCase(), 'hex'), Buffer.from(expectedHex, 'hex'))) {
    throw refuse(`${name} does not match the body signed with the hook's secret`);
  }
}

/** The delivery id of a correctly signed delivery; throws HOOK_SIGNATURE_INVALID (401) or VALIDATION_FAILED (400, no delivery id). */
export function verifyDelivery(
  form: HookSignature,
  secret: string,
  header: HeaderReader,
  rawBody: Buffer,
  now: number,
): { deliveryId: string } {
  if (form === 'github') {
    sameMac(hmacHex(secret, rawBody), header(signatureHeaders.github.signature), 'X-Hub-Signature-256');
    return { deliveryId: deliveryIdOf(header(signatureHeaders.github.delivery), 'X-GitHub-Delivery') };
  }
  const names = signatureHeaders.generic;
  const stamp = header(names.timestamp)?.trim();
  if (stamp === undefined) throw refuse('the X-Cairn-Timestamp header is missing');
  if (!/^\d{1,12}$/.test(stamp)) throw refuse('X-Cairn-Timestamp must be the sending time in Unix seconds');
  sameMac(hmacHex(secret, `${stamp}.`, rawBody), header(names.signature), 'X-Cairn-Signature');
  const age = now - Number(stamp) * 1000;
  if (Math.abs(age) > MAX_DELIVERY_AGE_MS) {
    throw refuse(`X-Cairn-Timestamp is ${Math.round(Math.abs(age) / 1000)} s ${age > 0 ? 'old' : 'ahead of the server'}; at most 300 s is accepted`);
  }
  return { deliveryId: deliveryIdOf(header(names.delivery), 'X-Cairn-Delivery') };
}

function deliveryIdOf(value: string | undefined, name: string): string {
  const id = value?.trim();
  if (!id) throw new CairnError('VALIDATION_FAILED', `The ${name} header is missing: it names the delivery, so that a redelivery starts no second run`);
  if (!DELIVERY_ID.test(id)) throw new CairnError('VALIDATION_FAILED', `The ${name} header must be 1-200 printable characters without spaces`);
  return id;
}
