import { readFileSync } from 'node:fs';

/**
 * The version in the package's own package.json. Resolved from this module's location, which is
 * two levels below the package root both in `src/api` (tsx, tests) and in `dist/api` (build).
 */
export function readPackageVersion(): string {
  return readPackageField('version', '0.0.0');
}

/** The package's npm name (what `/api/update-check` asks the registry about). */
export function readPackageName(): string {
  return readPackageField('name', 'cairn');
}

function readPackageField(field: 'name' | 'version', fallback: string): string {
  try {
    const raw = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
    const value = (JSON.parse(raw) as Record<string, unknown>)[field];
    return typeof value === 'string' ? value : fallback;
  } catch {
    return fallback;
  }
}
