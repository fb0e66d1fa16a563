/**
 * Cairn's bundled model catalog, by credential vendor: what `GET /api/providers/{vendor}/models`
 * answers when the provider cannot be asked, and the cost and reasoning facts added to the ids a
 * provider lists. Prices are USD per million tokens as the vendors publish them; a model without
 * a published price has none here.
 */
export interface CatalogModel {
  id: string;
  displayName: string;
  reasoning: boolean;
  contextWindow?: number;
  inputUsdPerMTok?: number;
  outputUsdPerMTok?: number;
}

export const bundledModelCatalog: Readonly<Record<string, readonly CatalogModel[]>> = {
  anthropic: [
    { id: 'claude-opus-4-7', displayName: 'Claude Opus 4.7', reasoning: true, contextWindow: 200_000, inputUsdPerMTok: 5, outputUsdPerMTok: 25 },
    { id: 'claude-sonnet-4-6', displayName: 'Claude Sonnet 4.6', reasoning: true, contextWindow: 200_000, inputUsdPerMTok: 3, outputUsdPerMTok: 15 },
    { id: 'claude-haiku-4-5', displayName: 'Claude Haiku 4.5', reasoning: true, contextWindow: 200_000, inputUsdPerMTok: 1, outputUsdPerMTok: 5 },
  ],
  openai: [
    { id: 'gpt-5.5', displayName: 'GPT-5.5', reasoning: true },
    { id: 'gpt-5', displayName: 'GPT-5', reasoning: true, contextWindow: 400_000, inputUsdPerMTok: 1.25, outputUsdPerMTok: 10 },
    { id: 'gpt-5-mini', displayName: 'GPT-5 mini', reasoning: true, contextWindow: 400_000, inputUsdPerMTok: 0.25, outputUsdPerMTok: 2 },
    { id: 'gpt-5-nano', displayName: 'GPT-5 nano', reasoning: true, contextWindow: 400_000, inputUsdPerMTok: 0.05, outputUsdPerMTok: 0.4 },
  ],
  'github-copilot': [
    { id: 'gpt-5', displayName: 'GPT-5', reasoning: true },
    { id: 'gpt-5-mini', displayName: 'GPT-5 mini', reasoning: true },
    { id: 'claude-sonnet-4.5', displayName: 'Claude Sonnet 4.5', reasoning: true },
  ],
  google: [
    { id: 'gemini-2.5-pro', displayName: 'Gemini 2.5 Pro', reasoning: true, contextWindow: 1_048_576, inputUsdPerMTok: 1.25, outputUsdPerMTok: 10 },
    { id: 'gemini-2.5-flash', displayName: 'Gemini 2.5 Flash', reasoning: true, contextWindow: 1_048_576, inputUsdPerMTok: 0.3, outputUsdPerMTok: 2.5 },
    { id: 'gemini-2.5-flash-lite', displayName: 'Gemini 2.5 Flash-Lite', reasoning: true, contextWindow: 1_048_576, inputUsdPerMTok: 0.1, outputUsdPerMTok: 0.4 },
  ],
};
