import type { Settings } from '../shared/config.js';
import { CairnError } from '../shared/errors.js';
import type { Run } from '../store/schemas/run.js';
import type { Store } from '../store/store.js';
import { envDefaultAssistantOf, modelLayerOfPrefs, modelLayerOfRunBindings, type ModelLayer, type ModelLayers } from '../models/model-layers.js';
import { readInstallModelLayer, readRepositoryModelLayer } from '../workflow/project/model-layer-files.js';

/**
 * The model settings a run's AI nodes bind with, read when its scheduler is built: the install
 * config as the file reads now, the repository config of the run's checkout, the preferences of
 * the user who started it, and the run's own layer stored when it was queued (the same on resume).
 */
export async function readRunModelLayers(
  run: Pick<Run, 'user_id' | 'metadata'>,
  workingPath: string | null,
  deps: { store: Pick<Store, 'getAiPrefs'>; settings: Pick<Settings, 'paths' | 'providers'> },
): Promise<ModelLayers> {
  const problems: string[] = [];
  // A config file that does not read fails the run's AI nodes, saying which file; other nodes run.
  const read = (fn: () => ModelLayer | undefined): ModelLayer | undefined => {
    try {
      return fn();
    } catch (err) {
      if (!(err instanceof CairnError)) throw err;
      problems.push(err.message);
      return undefined;
    }
  };
  return {
    install: read(() => readInstallModelLayer(deps.settings.paths.config, envDefaultAssistantOf(deps.settings.providers))),
    repository: read(() => readRepositoryModelLayer(workingPath)),
    user: run.user_id ? modelLayerOfPrefs(await deps.store.getAiPrefs(run.user_id)) : undefined,
    run: modelLayerOfRunBindings(run.metadata.model_bindings),
    ...(problems.length > 0 ? { problems } : {}),
  };
}
