/** A multipart body as a browser would send it: text fields, then file parts named `files`. */
export function multipartForm(
  fields: Record<string, string>,
  files: { name: string; bytes: Uint8Array | string; type?: string }[] = [],
): FormData {
  const data = new FormData();
  for (const [key, value] of Object.entries(fields)) data.append(key, value);
  for (const file of files) data.append('files', new Blob([file.bytes], { type: file.type ?? 'text/plain' }), file.name);
  return data;
}
