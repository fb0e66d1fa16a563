import { variableNames } from '../../shared/run-variable-names.js';

/**
 * Which names a run's `config.env` refuses, and why. A run's environment reaches every program
 * its nodes start: bash, bun, uv and Python, git, perl (the spawn helper), Node and the AI CLIs.
 * Three families are refused:
 * - names that load code into those programs or change how they read what they run (the dynamic
 *   loader, the shell's startup files, interpreters' startup and module paths, git's config);
 * - names that redirect them or their secrets elsewhere (base URLs, proxies, certificate
 *   stores, the vendors' settings the AI CLIs read, HOME and XDG folders where their logins and
 *   config live);
 * - names Cairn sets for a node itself (its variables, `INPUTS_*`, `CAIRN_*`): a request could
 *   not change them, so they would be ineffective.
 * Environment names are case-sensitive, and programs read these in the case written here,
 * except where a program reads several cases: proxies (`http_proxy` and `HTTP_PROXY`; Python
 * reads any case) and npm's settings (`npm_config_*`, any case), matched without case.
 */

/** Names refused exactly. */
export const refusedEnvNames = new Map<string, string>([
  ['PATH', 'it decides which bash, bun, uv or AI CLI Cairn starts; extend PATH inside the node instead'],
  ['NODE_OPTIONS', 'it loads code into every Node process a node starts, the AI CLIs included'],
  ['BASH_ENV', 'bash runs the file it names before every bash node'],
  ['ENV', 'sh runs the file it names at start'],
  ['SHELLOPTS', 'it changes how bash parses every node'],
  ['BASHOPTS', 'it changes how bash parses every node'],
  ['IFS', 'it changes how bash splits every node'],
  ['PS4', 'bash evaluates it when tracing'],
  ['CDPATH', 'it changes where cd goes in every script'],
  ['GLOBIGNORE', 'it changes how bash expands every pattern'],
  ['ZDOTDIR', 'zsh runs the startup files of the folder it names'],
  ['GCONV_PATH', 'it loads code into programs through the C library'],
  ['GLIBC_TUNABLES', 'it reconfigures the C library of every program'],
  ['LOCPATH', 'it makes the C library read locale files from another folder'],
  ['NLSPATH', 'it makes programs read message catalogs from another folder'],
  ['HOSTALIASES', 'it changes which address a host name resolves to'],
  ['RES_OPTIONS', 'it reconfigures name resolution'],
  ['LOCALDOMAIN', 'it reconfigures name resolution'],
  ['HOME', 'programs read their config and logins from it (git’s ~/.gitconfig, the AI CLIs’ settings and keys)'],
  ['SHELL', 'programs run their commands with it (git, the AI CLIs’ tools)'],
  ['TMPDIR', 'programs write, and some run, their temporary files there'],
  ['TMP', 'programs write, and some run, their temporary files there'],
  ['TEMP', 'programs write, and some run, their temporary files there'],
  ['EDITOR', 'programs run it to edit a file (git, the AI CLIs)'],
  ['VISUAL', 'programs run it to edit a file (git, the AI CLIs)'],
  ['PAGER', 'programs run it to show their output (git, man)'],
  ['MANPAGER', 'man runs it to show a page'],
  ['LESSOPEN', 'less runs it on every file it opens'],
  ['LESSCLOSE', 'less runs it on every file it closes'],
  ['BROWSER', 'programs run it to open a link (the AI CLIs’ logins)'],
  ['VIRTUAL_ENV', 'uv and Python pick the interpreter of the folder it names'],
  ['JAVA_TOOL_OPTIONS', 'it loads code into every JVM'],
  ['JDK_JAVA_OPTIONS', 'it loads code into every JVM'],
  ['_JAVA_OPTIONS', 'it loads code into every JVM'],
  ['GNUPGHOME', 'git signs and verifies with the keys of the folder it names'],
  ['WGETRC', 'wget reads its settings from the file it names'],
  ['GH_HOST', 'gh and the Copilot CLI send their GitHub token to the host it names'],
  ['GH_ENTERPRISE_TOKEN', 'gh and the Copilot CLI send it to the host GH_HOST names'],
  ['GITHUB_ENTERPRISE_TOKEN', 'gh and the Copilot CLI send it to the host GH_HOST names'],
  ['GH_CONFIG_DIR', 'gh reads its config and token from the folder it names'],
  ['GITHUB_API_URL', 'the bundled fix-github-issue workflow sends the server’s GitHub token to the API it names; set it in the server’s environment instead'],
]);

/** Prefixes refused, in the case programs read them. */
export const refusedEnvPrefixes: readonly (readonly [string, string])[] = [
  ['LD_', 'the dynamic loader reads LD_* variables (LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT) to load code into every program'],
  ['DYLD_', 'the macOS loader reads DYLD_* variables to load code into every program'],
  ['BASH_', 'bash reads BASH_* variables at start (BASH_ENV runs a file before every bash node, BASH_LOADABLES_PATH loads code)'],
  ['GIT_', 'git reads GIT_* variables as its config (GIT_CONFIG_*, GIT_SSH_COMMAND, GIT_ASKPASS, GIT_PAGER, GIT_DIR run commands or point it elsewhere); set the commit identity with GIT_AUTHOR_* / GIT_COMMITTER_*, or put config in the node'],
  ['SSH_', 'ssh (and git over ssh) reads SSH_* variables (SSH_AUTH_SOCK, SSH_ASKPASS)'],
  ['NODE_', 'Node reads NODE_* variables (NODE_OPTIONS loads code into every Node process, the AI CLIs included; NODE_PATH, NODE_EXTRA_CA_CERTS, NODE_TLS_REJECT_UNAUTHORIZED; bun picks .env files by NODE_ENV)'],
  ['BUN_', 'bun reads BUN_* variables as its config (its install folder, its registry)'],
  ['UV_', 'uv reads UV_* variables as its config (its index, its Python)'],
  ['PIP_', 'pip reads PIP_* variables as its config (its index, its certificates)'],
  ['PYTHON', 'Python reads PYTHON* variables at start (PYTHONPATH, PYTHONSTARTUP, PYTHONHOME load code)'],
  ['PERL', 'perl reads PERL5LIB, PERL5OPT, PERLLIB and PERL_* at start (Cairn’s spawn helper is perl)'],
  ['RUBY', 'ruby reads RUBYOPT and RUBYLIB at start to load code'],
  ['GEM_', 'ruby loads its gems from the folders GEM_* names'],
  ['OPENSSL_', 'OpenSSL loads its config (and engines) from where OPENSSL_* points'],
  ['SSL_', 'programs trust the certificates SSL_CERT_FILE / SSL_CERT_DIR name'],
  ['CURL_', 'curl reads its certificates and settings from where CURL_* points'],
  ['AWS_ENDPOINT_URL', 'it sends AWS calls (and their credentials) to another server'],
  ['ANTHROPIC_', 'Claude Code and the Anthropic API client read ANTHROPIC_* (its base URL and key, custom headers); set keys with PUT /api/auth/providers/{provider} or in the server’s environment'],
  ['CLAUDE_', 'Claude Code reads CLAUDE_* (its config folder, login token, Bedrock and Vertex switches)'],
  ['OPENAI_', 'Codex, OpenCode, Pi and the OpenAI-compatible client read OPENAI_* (their base URL and key); set keys with PUT /api/auth/providers/{provider} or in the server’s environment'],
  ['CODEX_', 'Codex reads CODEX_* (its home folder and key)'],
  ['GEMINI_', 'the Gemini CLI reads GEMINI_* (its key, its home folder)'],
  ['GOOGLE_', 'the Gemini CLI reads GOOGLE_* (its base URL, key, Vertex project and credentials)'],
  ['COPILOT_', 'the Copilot CLI reads COPILOT_* (its provider, base URL, token and home)'],
  ['OPENCODE_', 'OpenCode reads OPENCODE_* as its config'],
  ['PI_', 'Pi reads PI_* as its config (its agent folder)'],
  ['XAI_', 'the AI CLIs read it as a provider’s key or setting'],
  ['GROQ_', 'the AI CLIs read it as a provider’s key or setting'],
  ['MISTRAL_', 'the AI CLIs read it as a provider’s key or setting'],
  ['OPENROUTER_', 'the AI CLIs read it as a provider’s key or setting'],
  ['XDG_', 'programs read their config, data and logins from the XDG_* folders (git, the AI CLIs)'],
  ['CAIRN_', 'CAIRN_* names are Cairn’s own'],
  ['INPUTS_', 'INPUTS_* names carry the workflow’s inputs; give them as inputs'],
];

/** Prefixes refused in any case, because the programs that read them do. */
export const refusedEnvPrefixesAnyCase: readonly (readonly [string, string])[] = [
  ['npm_config_', 'npm reads npm_config_* in any case as its config (its registry, its scripts’ shell)'],
];

/** Suffixes refused, in any case where noted. */
export const refusedEnvSuffixes: readonly (readonly [string, string, { anyCase: boolean }])[] = [
  ['_BASE_URL', 'it sends a program’s calls (and its key) to another server', { anyCase: false }],
  ['_PROXY', 'programs send their traffic (and keys) through the proxy it names; curl reads http_proxy and HTTPS_PROXY, Python any case', { anyCase: true }],
  ['_CA_BUNDLE', 'it makes programs trust other certificates (CURL_CA_BUNDLE, REQUESTS_CA_BUNDLE, AWS_CA_BUNDLE)', { anyCase: false }],
];

/** Names under a refused prefix that only say who commits: they run nothing and point nowhere. */
export const acceptedEnvNames = new Set([
  'GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_AUTHOR_DATE', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL', 'GIT_COMMITTER_DATE',
]);

const cairnVariableNames = new Set<string>(variableNames);

/** Why a run's environment refuses `name`, or undefined when it takes it. */
export function refusedEnvName(name: string): string | undefined {
  if (acceptedEnvNames.has(name)) return undefined;
  const exact = refusedEnvNames.get(name);
  if (exact) return exact;
  const prefix = refusedEnvPrefixes.find(([p]) => name.startsWith(p));
  if (prefix) return prefix[1];
  const lower = name.toLowerCase();
  const anyCase = refusedEnvPrefixesAnyCase.find(([p]) => lower.startsWith(p.toLowerCase()));
  if (anyCase) return anyCase[1];
  const suffix = refusedEnvSuffixes.find(([s, , opts]) => (opts.anyCase ? lower.endsWith(s.toLowerCase()) : name.endsWith(s)));
  if (suffix) return suffix[1];
  if (cairnVariableNames.has(name)) return `Cairn sets $${name} for every node itself`;
  return undefined;
}
