import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { packagePath } from '../../shared/package-root.js';

/**
 * The dashboard's built files (`npm run build` writes them to `dist/web/`, scripts/build-web.mjs),
 * read once when the API starts: a few hundred kilobytes, served from memory. `index.html` names
 * the assets by their content hash, so an asset never changes under its name and is cached for
 * good; the page itself is asked for again every time.
 */

export interface WebFile {
  body: Buffer;
  contentType: string;
}

export interface WebFiles {
  /** The page every dashboard address answers with; undefined when the dashboard was not built. */
  index: Buffer | undefined;
  /** Hashed assets by their path under the site root (`/assets/main-3F2A.js`). */
  assets: ReadonlyMap<string, WebFile>;
  /** Where the files were looked for (named in the answer when they are missing). */
  root: string;
}

const contentTypes: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.map': 'application/json; charset=utf-8',
};

/** `dist/web/` of the package (found from the package root: this module may sit in a bundled chunk). */
export function defaultWebRoot(): string {
  return packagePath('dist', 'web');
}

export function readWebFiles(root: string = defaultWebRoot()): WebFiles {
  const indexPath = join(root, 'index.html');
  const index = existsSync(indexPath) ? readFileSync(indexPath) : undefined;
  const assets = new Map<string, WebFile>();
  const assetDir = join(root, 'assets');
  if (existsSync(assetDir)) {
    for (const name of readdirSync(assetDir)) {
      const contentType = contentTypes[extname(name)];
      if (contentType === undefined) continue;
      assets.set(`/assets/${name}`, { body: readFileSync(join(assetDir, name)), contentType });
    }
  }
  return { index, assets, root };
}
