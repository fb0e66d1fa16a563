/**
 * The API's limits on the files of one multipart request (src/api/run-files/run-upload.ts): at
 * most 5, each at most 10 MB. The page refuses past them with the texts the API gives, so the
 * person reads the same words whichever side said no; the API still checks, and its refusal is
 * shown as it says it.
 */

export const MAX_ATTACHMENTS = 5;
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

/** What the request carries, as the API's texts name it. */
export type UploadKind = 'run request' | 'message';

export function tooManyFiles(kind: UploadKind): string {
  return `Too many files: a ${kind} takes at most ${MAX_ATTACHMENTS} attachments`;
}

export function fileTooLarge(name: string): string {
  return `Attachment '${name}' is larger than the ${MAX_ATTACHMENT_BYTES}-byte (10 MB) limit per file`;
}

/** Why these files cannot go in one request, or undefined when they can. */
export function attachmentProblem(files: readonly File[], kind: UploadKind): string | undefined {
  if (files.length > MAX_ATTACHMENTS) return tooManyFiles(kind);
  const large = files.find((file) => file.size > MAX_ATTACHMENT_BYTES);
  return large ? fileTooLarge(large.name) : undefined;
}
