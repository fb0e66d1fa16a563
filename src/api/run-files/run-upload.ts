import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import type {} from '@fastify/multipart';
import secureJson from 'secure-json-parse';
import { CairnError } from '../../shared/errors.js';
import { attachmentName, originalName } from './attachment-names.js';
import { checkJsonDepth } from '../requests/json-depth.js';
import { checkWellFormedText } from '../requests/well-formed-text.js';
import { newUploadFolderName } from './upload-folders.js';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../../shared/private-files.js';

/**
 * Receiving a multipart request (a run request: its fields as form fields, `files` as repeated
 * file parts; a chat message: `message` and its files). Files are streamed to a fresh folder under `$CAIRN_HOME/tmp/uploads/`
 * and never held in memory whole; the caller moves the folder into the run once everything is
 * checked, or removes it (`discard`) when anything is refused. A folder left by an API killed
 * mid-upload is removed when the next one starts (upload-folders.ts).
 */

export const MAX_ATTACHMENTS = 5;
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
/** Text fields: one field may be as large as a whole JSON body may be. */
const MAX_FIELDS = 20;

/** Busboy's limits for the run route (`@fastify/multipart` options). */
export function uploadLimits(fieldBytes: number) {
  return {
    files: MAX_ATTACHMENTS,
    fileSize: MAX_ATTACHMENT_BYTES,
    fields: MAX_FIELDS,
    fieldSize: fieldBytes,
    parts: MAX_ATTACHMENTS + MAX_FIELDS,
    headerPairs: 100,
  };
}

/** Fields sent JSON-encoded in one form field each (contract: inputs and config; and tiers, aliases, budget). */
const jsonFields = new Set(['inputs', 'typedInputs', 'config', 'tiers', 'aliases', 'budget']);

const jsonFieldText: Record<string, string> = {
  // Upstream's text for this case; its clients match on it.
  inputs: 'inputs must be a JSON-encoded object of string values',
};

export interface ReceivedFile {
  name: string;
  originalName: string;
  mimeType: string;
  size: number;
}

export interface ReceivedUpload {
  /** The form fields, JSON fields decoded: the same object a JSON body would be. */
  body: Record<string, unknown>;
  files: ReceivedFile[];
  /** The folder holding the files (named by `name`). */
  dir: string;
}

export const uploadText = {
  tooManyFiles: (what: UploadKind) => `Too many files: a ${what} takes at most ${MAX_ATTACHMENTS} attachments`,
  fileTooLarge: (name: string) =>
    `Attachment '${name}' is larger than the ${MAX_ATTACHMENT_BYTES}-byte (10 MB) limit per file`,
  fieldTooLarge: (field: string, limit: number) => `Field '${field}' is larger than the ${limit}-byte limit`,
  tooManyFields: (what: UploadKind) => `Too many form fields: a ${what} has at most ${MAX_FIELDS}`,
  twice: (field: string) => `Field '${field}' is given twice; send each field once`,
  badJson: (field: string) => jsonFieldText[field] ?? `${field} must be JSON-encoded (a JSON object in one form field)`,
  malformed: (why: string) => `The multipart body could not be read: ${why}`,
  prototypeKey: (field: string) =>
    `${field} holds a '__proto__' or 'constructor.prototype' key, which no field accepts; remove it`,
} as const;

/** What a multipart request carries, for its refusals' texts. */
export type UploadKind = 'run request' | 'message';

/** Our refusal for an error the multipart parser raised (its own are 406/413 without our texts). */
function toUploadError(err: unknown, what: UploadKind): CairnError {
  if (err instanceof CairnError) return err;
  const code = (err as { code?: unknown }).code;
  if (code === 'FST_FILES_LIMIT') return new CairnError('PAYLOAD_TOO_LARGE', uploadText.tooManyFiles(what));
  if (code === 'FST_REQ_FILE_TOO_LARGE') return new CairnError('PAYLOAD_TOO_LARGE', uploadText.fileTooLarge('(a file)'));
  if (code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') return new CairnError('PAYLOAD_TOO_LARGE', uploadText.tooManyFields(what));
  if (code === 'FST_INVALID_JSON_FIELD_ERROR') {
    return new CairnError('VALIDATION_FAILED', 'A form field sent as application/json does not parse; send inputs and config as JSON text');
  }
  const why = err instanceof Error ? err.message : String(err);
  return new CairnError('VALIDATION_FAILED', uploadText.malformed(why), undefined, { cause: err });
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * A JSON-encoded field, decoded with the guards the JSON body parser (and the multipart parser, for
 * a part declared application/json) uses: a `__proto__` or `constructor.prototype` key is refused,
 * never silently dropped, and so is nesting deeper than a JSON body may (json-depth.ts).
 */
function decodeField(field: string, value: unknown): unknown {
  if (!jsonFields.has(field)) return value;
  // A part declared application/json comes decoded already (by the multipart parser, same guard).
  const decoded = typeof value === 'string' ? parseJsonField(field, value) : value;
  checkJsonDepth(decoded, field);
  return decoded;
}

function parseJsonField(field: string, text: string): unknown {
  try {
    return secureJson.parse(text, null, { protoAction: 'error', constructorAction: 'error' }) as unknown;
  } catch {
    throw new CairnError('VALIDATION_FAILED', parsesAsJson(text) ? uploadText.prototypeKey(field) : uploadText.badJson(field));
  }
}

/** Discards an upload's folder (a refused request keeps nothing). */
export async function discardUpload(upload: Pick<ReceivedUpload, 'dir'> | undefined): Promise<void> {
  if (upload) await rm(upload.dir, { recursive: true, force: true });
}

/** Reads every part of a multipart request; on any refusal the folder is removed before it throws. */
export async function receiveUpload(
  req: FastifyRequest,
  uploadsRoot: string,
  fieldBytes: number,
  what: UploadKind = 'run request',
): Promise<ReceivedUpload> {
  const upload: ReceivedUpload = { body: {}, files: [], dir: join(uploadsRoot, newUploadFolderName()) };
  await makePrivateDir(upload.dir);
  const taken = new Set<string>();
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        const name = attachmentName(part.filename, taken);
        await pipeline(part.file, createWriteStream(join(upload.dir, name), { flags: 'wx', mode: PRIVATE_FILE_MODE }));
        if (part.file.truncated) throw new CairnError('PAYLOAD_TOO_LARGE', uploadText.fileTooLarge(name));
        upload.files.push({
          name,
          originalName: originalName(part.filename),
          mimeType: part.mimetype || 'application/octet-stream',
          size: part.file.bytesRead,
        });
        continue;
      }
      if (part.valueTruncated) throw new CairnError('PAYLOAD_TOO_LARGE', uploadText.fieldTooLarge(part.fieldname, fieldBytes));
      if (Object.hasOwn(upload.body, part.fieldname)) throw new CairnError('VALIDATION_FAILED', uploadText.twice(part.fieldname));
      upload.body[part.fieldname] = decodeField(part.fieldname, part.value);
      checkWellFormedText(upload.body[part.fieldname], part.fieldname);
    }
    return upload;
  } catch (err) {
    await discardUpload(upload);
    throw toUploadError(err, what);
  }
}
