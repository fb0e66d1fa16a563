import { fileEnvName, type BodyEnvironment } from './body-environment.js';

/** The language a node body is written in: bash, bun (JavaScript/TypeScript) or uv (Python). */
export type BodyRuntime = 'sh' | 'bun' | 'uv';

/**
 * How a bun (JavaScript/TypeScript) or uv (Python) script receives a value: an expression that
 * reads it from the environment (or from its file, for a large value), never the value spliced
 * into the code. A value that is JSON (an object, an array, a number...) is parsed, so
 * `const data = $files.output;` still gets the data; any other output, and every input and
 * variable, arrives as a string.
 *
 * The expression is code: written inside a string literal it is not expanded. Use it as an
 * expression (`const s = $node.output;`), not inside quotes.
 */
export function scriptExpression(
  runtime: Exclude<BodyRuntime, 'sh'>,
  value: { name: string; text: string; parseJson: boolean },
  env: BodyEnvironment,
): string {
  const { name } = value;
  env.place(name, value.text);
  const inFile = !Object.hasOwn(env.env, name);
  const json = value.parseJson && isJson(value.text);
  if (runtime === 'bun') {
    const raw = inFile
      ? `require("node:fs").readFileSync(process.env.${fileEnvName(name)}, "utf8")`
      : `process.env.${name}`;
    return json ? `(JSON.parse(${raw}))` : `(${raw})`;
  }
  const raw = inFile
    ? `open(__import__("os").environ["${fileEnvName(name)}"], encoding="utf-8", newline="").read()`
    : `__import__("os").environ["${name}"]`;
  return json ? `(__import__("json").loads(${raw}))` : `(${raw})`;
}

function isJson(text: string): boolean {
  if (text.trim() === '') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
