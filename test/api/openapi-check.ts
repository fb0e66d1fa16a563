/**
 * A structural check of an OpenAPI 3.0 document: the fields 3.0 requires, path parameters
 * declared, every $ref resolvable, and schema objects limited to the 3.0 dialect (no JSON
 * Schema 2020-12 keywords such as `const` or type arrays, which 3.0 tools reject).
 */

const schemaKeywords30 = new Set([
  'title', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength',
  'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'maxProperties', 'minProperties',
  'required', 'enum', 'type', 'allOf', 'oneOf', 'anyOf', 'not', 'items', 'properties',
  'additionalProperties', 'description', 'format', 'default', 'nullable', 'discriminator',
  'readOnly', 'writeOnly', 'xml', 'externalDocs', 'example', 'deprecated', '$ref',
]);
const types30 = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);
const methods = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

type Json = Record<string, any>;

export function openApi30Problems(doc: Json): string[] {
  const problems: string[] = [];
  const schemas: Json = doc.components?.schemas ?? {};

  const checkSchema = (schema: Json, where: string): void => {
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
      problems.push(`${where}: schema is not an object`);
      return;
    }
    for (const key of Object.keys(schema)) {
      if (!schemaKeywords30.has(key) && !key.startsWith('x-')) problems.push(`${where}: keyword '${key}' is not OpenAPI 3.0`);
    }
    if ('$ref' in schema) {
      const match = /^#\/components\/schemas\/(.+)$/.exec(String(schema.$ref));
      if (!match || !(match[1]! in schemas)) problems.push(`${where}: unresolvable $ref ${schema.$ref}`);
    }
    if ('type' in schema && !(typeof schema.type === 'string' && types30.has(schema.type))) {
      problems.push(`${where}: type ${JSON.stringify(schema.type)} is not a single 3.0 type`);
    }
    for (const key of ['exclusiveMinimum', 'exclusiveMaximum']) {
      if (key in schema && typeof schema[key] !== 'boolean') problems.push(`${where}: ${key} must be a boolean in 3.0`);
    }
    if ('nullable' in schema && typeof schema.nullable !== 'boolean') problems.push(`${where}: nullable must be a boolean`);
    for (const [name, sub] of Object.entries(schema.properties ?? {})) checkSchema(sub as Json, `${where}.${name}`);
    if (schema.items) checkSchema(schema.items, `${where}[]`);
    if (typeof schema.additionalProperties === 'object') checkSchema(schema.additionalProperties, `${where}{}`);
    for (const key of ['allOf', 'anyOf', 'oneOf']) {
      (schema[key] ?? []).forEach((sub: Json, i: number) => checkSchema(sub, `${where}.${key}[${i}]`));
    }
    if (schema.not) checkSchema(schema.not, `${where}.not`);
  };

  if (!/^3\.0\.\d+$/.test(String(doc.openapi))) problems.push(`openapi is ${doc.openapi}, not 3.0.x`);
  if (typeof doc.info?.title !== 'string' || typeof doc.info?.version !== 'string') problems.push('info.title and info.version are required');
  if (typeof doc.paths !== 'object') problems.push('paths is required');
  for (const [name, schema] of Object.entries(schemas)) checkSchema(schema as Json, `components.schemas.${name}`);

  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    if (!path.startsWith('/')) problems.push(`path ${path} must start with /`);
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    for (const [method, op] of Object.entries<Json>(item)) {
      if (!methods.has(method)) continue;
      const where = `${method.toUpperCase()} ${path}`;
      const params: Json[] = op.parameters ?? [];
      for (const p of params) {
        if (typeof p.name !== 'string' || !['query', 'header', 'path', 'cookie'].includes(p.in)) problems.push(`${where}: bad parameter ${JSON.stringify(p)}`);
        if (p.in === 'path' && p.required !== true) problems.push(`${where}: path parameter ${p.name} must be required`);
        if (p.schema) checkSchema(p.schema, `${where} parameter ${p.name}`);
      }
      for (const name of templated) {
        if (!params.some((p) => p.in === 'path' && p.name === name)) problems.push(`${where}: path parameter {${name}} not declared`);
      }
      const responses = Object.entries<Json>(op.responses ?? {});
      if (responses.length === 0) problems.push(`${where}: no responses`);
      for (const [status, response] of responses) {
        if (!/^([1-5]\d\d|[1-5]XX|default)$/.test(status)) problems.push(`${where}: response key ${status}`);
        if (typeof response.description !== 'string') problems.push(`${where} ${status}: description is required`);
        for (const [type, media] of Object.entries<Json>(response.content ?? {})) {
          if (media.schema) checkSchema(media.schema, `${where} ${status} ${type}`);
        }
      }
      for (const [type, media] of Object.entries<Json>(op.requestBody?.content ?? {})) {
        if (media.schema) checkSchema(media.schema, `${where} body ${type}`);
      }
    }
  }
  return problems;
}
