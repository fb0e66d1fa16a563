import { readFileSync } from 'node:fs';

/**
 * The version in the package's own package.json. Resolved from this module's location, which is
 * two levels below the package root both in `src/api` (tsx, tests) and in `dist/api` (build).
 */
export function readPackageVersion(): string {
  try {
    const raw = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
    const version = (JSON.parse(raw) as { version?: unknown }).version;
    return typeof version === 'string' ? version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}
