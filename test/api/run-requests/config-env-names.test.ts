import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusedEnvName } from '../../../src/store/schemas/run-env-names.js';
import { makeTestApp, type TestApp } from '../../helpers/app.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { writeHomeWorkflow } from '../../helpers/workflows.js';

/**
 * The names `config.env` refuses because they redirect or reconfigure the programs a run starts
 * (git, the shells, the interpreters, the AI CLIs), through the run route: a 400 naming the key
 * and saying why, and no run. Names are matched as a POSIX environment reads them: in their case,
 * except where the programs read any case (proxies, npm's settings).
 */

let home: TempHome;
let t: TestApp;
beforeAll(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
  await writeHomeWorkflow(home, 'plain', 'name: plain\ndescription: p\nnodes:\n  - id: a\n    bash: "true"\n');
});
afterAll(async () => {
  await home.close();
});

async function run(env: Record<string, string>) {
  const res = await t.app.inject({ method: 'POST', url: '/api/workflows/plain/run', payload: { config: { env } } });
  return { status: res.statusCode, body: res.json() as Record<string, any> };
}

const refused: [string, RegExp][] = [
  ['GIT_CONFIG_COUNT', /git reads GIT_\* variables as its config/],
  ['GIT_CONFIG_KEY_0', /GIT_CONFIG_\*/],
  ['GIT_CONFIG_PARAMETERS', /git reads/],
  ['GIT_SSH_COMMAND', /git reads/],
  ['GIT_ASKPASS', /git reads/],
  ['GIT_PAGER', /git reads/],
  ['GIT_EXEC_PATH', /git reads/],
  ['GIT_DIR', /git reads/],
  ['ANTHROPIC_BASE_URL', /ANTHROPIC_\*/],
  ['ANTHROPIC_API_KEY', /ANTHROPIC_\*/],
  ['ANTHROPIC_CUSTOM_HEADERS', /ANTHROPIC_\*/],
  ['OPENAI_BASE_URL', /OPENAI_\*/],
  ['OPENAI_API_KEY', /OPENAI_\*/],
  ['CLAUDE_CONFIG_DIR', /Claude Code reads CLAUDE_\*/],
  ['CLAUDE_CODE_USE_BEDROCK', /Bedrock/],
  ['CODEX_HOME', /Codex reads/],
  ['GEMINI_API_KEY', /Gemini CLI reads GEMINI_\*/],
  ['GOOGLE_GEMINI_BASE_URL', /Gemini CLI reads GOOGLE_\*/],
  ['GOOGLE_APPLICATION_CREDENTIALS', /GOOGLE_\*/],
  ['COPILOT_PROVIDER_BASE_URL', /Copilot CLI/],
  ['OPENCODE_CONFIG', /OpenCode/],
  ['PI_CODING_AGENT_DIR', /Pi reads/],
  ['OPENROUTER_API_KEY', /provider’s key/],
  ['XAI_API_KEY', /provider’s key/],
  ['MY_SERVICE_BASE_URL', /another server/],
  ['HOME', /~\/\.gitconfig/],
  ['XDG_CONFIG_HOME', /XDG_\*/],
  ['XDG_DATA_HOME', /XDG_\*/],
  ['NODE_OPTIONS', /it loads code into every Node process/],
  ['NODE_PATH', /Node reads NODE_\*/],
  ['NODE_EXTRA_CA_CERTS', /NODE_EXTRA_CA_CERTS/],
  ['NODE_TLS_REJECT_UNAUTHORIZED', /Node reads/],
  ['NODE_ENV', /\.env files by NODE_ENV/],
  ['PERL5LIB', /perl reads/],
  ['PERL5OPT', /perl reads/],
  ['PERLLIB', /perl reads/],
  ['PERL_MB_OPT', /perl reads/],
  ['PYTHONPATH', /Python reads/],
  ['PYTHONSTARTUP', /Python reads/],
  ['PYTHONHOME', /Python reads/],
  ['RUBYOPT', /ruby reads/],
  ['RUBYLIB', /ruby reads/],
  ['GEM_HOME', /gems/],
  ['BUN_INSTALL', /bun reads/],
  ['BUN_CONFIG_REGISTRY', /bun reads/],
  ['UV_INDEX_URL', /uv reads/],
  ['UV_PYTHON', /uv reads/],
  ['PIP_INDEX_URL', /pip reads/],
  ['VIRTUAL_ENV', /interpreter/],
  ['NPM_CONFIG_REGISTRY', /npm reads/],
  ['npm_config_registry', /npm reads/],
  ['Npm_Config_Script_Shell', /npm reads/],
  ['SSH_AUTH_SOCK', /ssh/],
  ['SSH_ASKPASS', /ssh/],
  ['TMPDIR', /temporary files/],
  ['TMP', /temporary files/],
  ['TEMP', /temporary files/],
  ['SHELL', /run their commands with it/],
  ['EDITOR', /to edit a file/],
  ['VISUAL', /to edit a file/],
  ['PAGER', /to show their output/],
  ['LESSOPEN', /less runs it/],
  ['BROWSER', /to open a link/],
  ['HTTP_PROXY', /through the proxy/],
  ['HTTPS_PROXY', /through the proxy/],
  ['ALL_PROXY', /through the proxy/],
  ['NO_PROXY', /through the proxy/],
  ['http_proxy', /through the proxy/],
  ['https_proxy', /through the proxy/],
  ['all_proxy', /through the proxy/],
  ['no_proxy', /through the proxy/],
  ['Https_Proxy', /Python any case/],
  ['CURL_CA_BUNDLE', /curl reads/],
  ['CURL_HOME', /curl reads/],
  ['REQUESTS_CA_BUNDLE', /trust other certificates/],
  ['AWS_CA_BUNDLE', /trust other certificates/],
  ['AWS_ENDPOINT_URL', /AWS calls/],
  ['SSL_CERT_FILE', /SSL_CERT_FILE/],
  ['SSL_CERT_DIR', /SSL_CERT_DIR/],
  ['OPENSSL_CONF', /OpenSSL/],
  ['BASH_ENV', /bash runs the file/],
  ['BASH_LOADABLES_PATH', /bash reads BASH_\*/],
  ['ZDOTDIR', /zsh/],
  ['CDPATH', /cd/],
  ['GLIBC_TUNABLES', /C library/],
  ['HOSTALIASES', /resolves/],
  ['JAVA_TOOL_OPTIONS', /JVM/],
  ['GNUPGHOME', /signs/],
  ['GH_HOST', /GitHub token/],
  ['GITHUB_API_URL', /GitHub token/],
  ['LD_PRELOAD', /dynamic loader/],
  ['PATH', /decides which bash/],
];

describe('config.env refuses the names that redirect or reconfigure the programs a run starts', () => {
  it.each(refused)('refuses %s with a 400 naming it and why, and queues nothing', async (name, why) => {
    const { status, body } = await run({ [name]: 'x' });
    expect(status).toBe(400);
    expect(body.code).toBe('VALIDATION_FAILED');
    expect(body.error).toContain(`config.env key '${name}' is not accepted: `);
    expect(body.error).toMatch(why);
    expect(await t.store.listRuns({ limit: 10 })).toEqual([]);
  });

  it.each([
    ['GIT_AUTHOR_NAME', 'says who commits'],
    ['GIT_COMMITTER_EMAIL', 'says who commits'],
    ['git_config_count', 'git reads GIT_CONFIG_COUNT only in capitals'],
    ['home', 'programs read HOME only in capitals'],
    ['Path', 'the loader and shells read PATH only in capitals'],
    ['MY_API_TOKEN', 'a name of the user’s own'],
    ['GITHUB_TOKEN', 'a token a bash node passes to gh; it sends it to github.com only'],
    ['PROXY_HOST', 'not a proxy variable: only a _PROXY suffix is'],
    ['BASE_URL_OF_DOCS', 'only a _BASE_URL suffix is'],
  ])('accepts %s (%s)', async (name) => {
    expect(refusedEnvName(name)).toBeUndefined();
    const { status, body } = await run({ [name]: 'x' });
    expect(status, JSON.stringify(body)).toBe(200);
  });
});
