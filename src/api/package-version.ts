import { readFileSync } from 'node:fs';
import { packagePath } from '../shared/package-root.js';

/**
 * The version in the package's own package.json.
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
    const raw = readFileSync(packagePath('package.json'), 'utf8');
    const value = (JSON.parse(raw) as Record<string, unknown>)[field];
    return typeof value === 'string' ? value : fallback;
  } catch {
    return fallback;
  }
}
