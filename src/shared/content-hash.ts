import { createHash } from 'node:crypto';

/** The hash a captured file (or a definition, as JSON) is stored and compared by: `sha256:<hex>`. */
export function contentHash(text: string): string {
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}
