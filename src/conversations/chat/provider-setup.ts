/**
 * The answer to a plain (non-slash) message while the default assistant has no credential or
 * server configured: it says exactly how to configure one, and never waits for a provider. The
 * names are those `shared/providers/provider-settings.ts` reads, in the environment of
 * `cairn serve` or in `$CAIRN_HOME/config.yaml` (`defaultAssistant`, `assistants.<id>.*`).
 */
export const PROVIDER_SETUP_TEXT = [
  'No AI provider is configured for the default assistant, so this message was not sent to an assistant.',
  '',
  'To configure one, set it in `$CAIRN_HOME/config.yaml` (it applies from the next message on), or in the environment of `cairn serve` and restart it:',
  '- Claude Code (the default assistant): `export ANTHROPIC_API_KEY=<your key>`, or `export CLAUDE_BIN_PATH=<path to claude>` to use its own login',
  '- The Anthropic API: `export CAIRN_DEFAULT_ASSISTANT=anthropic` and `export ANTHROPIC_API_KEY=<your key>`',
  '- An OpenAI-compatible server (OpenAI, Ollama, vLLM …): `export CAIRN_DEFAULT_ASSISTANT=openai-compatible`, `export OPENAI_API_KEY=<your key>` or `export OPENAI_BASE_URL=<server>/v1`, and a model in `assistants.openai-compatible.model`',
  '',
  'See docs/conversations.md ("Plain messages and AI providers"). Slash commands work without a provider: type /help.',
].join('\n');

/** A default assistant that cannot be asked at all (an unknown provider, or one without an adapter). */
export function unusableAssistantText(provider: string, detail: string | undefined): string {
  return [
    `The default assistant '${provider}' cannot answer messages: ${detail ?? 'it is not available'}.`,
    '',
    'Set `defaultAssistant` in `$CAIRN_HOME/config.yaml` (or `CAIRN_DEFAULT_ASSISTANT` in the environment of `cairn serve`) to `claude`, `anthropic` or `openai-compatible`, and restart it.',
  ].join('\n');
}
