/**
 * The answer to a plain (non-slash) message while Cairn has no AI provider layer: it says exactly
 * how to configure the provider the layer will use, and never waits for one. The names are those
 * the provider layer reads: `ANTHROPIC_API_KEY` (Claude, the default assistant) and
 * `OPENAI_API_KEY` (Codex), in the environment of `cairn serve` or connected per user with
 * `PUT /api/auth/providers/{provider}`.
 */
export const PROVIDER_SETUP_TEXT = [
  'No AI provider is configured, so this message was not sent to an assistant.',
  '',
  'To configure one, set an API key in the environment of `cairn serve` and restart it:',
  '- Claude (the default assistant): `export ANTHROPIC_API_KEY=<your key>`',
  '- Codex: `export OPENAI_API_KEY=<your key>`',
  '',
  'See docs/conversations.md ("Plain messages and AI providers"). Slash commands work without a provider: type /help.',
].join('\n');
