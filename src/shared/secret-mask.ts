/**
 * Masking the secrets Cairn knows (the keys it sends to providers, and every secret configured
 * in its config file or environment) in texts it did not write: what a provider says may quote
 * them (a gateway echoing the key in its error, an agent printing its environment), and every
 * such text is masked before it is recorded, streamed or logged.
 */

/** What a secret is replaced with, as the log's redaction writes it. */
export const REDACTED = '[redacted]';

/** A known key shorter than this is not masked: masking "abc" would garble every text. */
const MIN_SECRET_LENGTH = 4;

/**
 * A value found in the environment under a secret-looking name is masked only from this length
 * on, and not when it is a path (SSH_AUTH_SOCK, XAUTHORITY): those are no secret, and masking
 * them would garble outputs that name the file.
 */
const MIN_ENV_SECRET_LENGTH = 8;

/** Words in an environment variable's name that say it holds a secret; matched on the upper-cased name. */
const secretWords = ['KEY', 'TOKEN', 'SECRET', 'PASSWORD', 'PASS', 'CREDENTIAL', 'PRIVATE', 'AUTH'];

/** Whether a variable's name says it holds a secret (`GH_TOKEN`, `OPENAI_API_KEY`, `DB_PASSWORD`). */
export function isSecretLookingKey(name: string): boolean {
  const upper = name.toUpperCase();
  return secretWords.some((word) => upper.includes(word));
}

/** The values of the environment's secret-looking variables, as masking needs them. */
export function secretValuesOfEnv(env: NodeJS.ProcessEnv): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !isSecretLookingKey(name)) continue;
    const trimmed = value.trim();
    if (trimmed.length >= MIN_ENV_SECRET_LENGTH && !/^[/~]/.test(trimmed)) values.push(trimmed);
  }
  return values;
}

/** Replaces each of a fixed set of secrets wherever it appears in a text, or in every string of a value. */
export class SecretMask {
  readonly #secrets: readonly string[];

  constructor(secrets: Iterable<string | undefined>) {
    const kept = new Set<string>();
    for (const secret of secrets) if (secret !== undefined && secret.length >= MIN_SECRET_LENGTH) kept.add(secret);
    // Longest first: a secret that holds another is masked whole, not cut around the shorter one.
    this.#secrets = [...kept].sort((a, b) => b.length - a.length);
  }

  get isEmpty(): boolean {
    return this.#secrets.length === 0;
  }

  /** `text` with every secret replaced by REDACTED. */
  text(text: string): string {
    let out = text;
    for (const secret of this.#secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out;
  }

  /**
   * For text that arrives in pieces (a streamed answer, where a secret may be cut between two
   * chunks): the masked part that can be let go now, and the end to hold until more arrives,
   * which is the shortest end that could still be the start of a secret. Passing each chunk's
   * text as `held + chunk`, and the last `held` through `text()` at the end, masks the joined
   * text as `text()` would mask it whole.
   */
  splitStream(text: string): { emit: string; hold: string } {
    let cut = text.length;
    const longest = this.#secrets[0]?.length ?? 0;
    for (let i = Math.max(0, text.length - longest + 1); i < text.length; i++) {
      const end = text.slice(i);
      if (this.#secrets.some((secret) => secret.startsWith(end))) {
        cut = i;
        break;
      }
    }
    // A whole secret that starts before the cut and ends after it is held with its start.
    for (let moved = true; moved; ) {
      moved = false;
      for (const secret of this.#secrets) {
        const at = text.lastIndexOf(secret, cut - 1);
        if (at !== -1 && at < cut && at + secret.length > cut) {
          cut = at;
          moved = true;
        }
      }
    }
    return { emit: this.text(text.slice(0, cut)), hold: text.slice(cut) };
  }

  /** A copy of `value` with every string in it (object keys included) masked; other values as they are. */
  deep<T>(value: T): T {
    if (this.#secrets.length === 0) return value;
    return this.#deep(value, 0) as T;
  }

  #deep(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.text(value);
    // Provider data is JSON-shaped and shallow; past this depth it is left as it is rather than recursed without end.
    if (typeof value !== 'object' || value === null || depth > 64) return value;
    if (Array.isArray(value)) return value.map((item) => this.#deep(item, depth + 1));
    if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value;
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [this.text(key), this.#deep(item, depth + 1)]));
  }
}
