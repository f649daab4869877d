// The shared run set-up of the front doors (`plannav run`, `plannav mcp`, `plannav ui`): not a
// public entry point. The command-line, MCP and run-page code import it from here.

export { booleanFlag, choiceFlag, integerFlag, listFlag, runConfigFromFlags, runFlagOptions, stringFlag, UsageError, type FlagValues } from './flags';
export { checkRunConfig, MissingApiKeyError, type RunConfig } from './run-config';
export { openRunSession, type ExtraExecutorOptions, type RunSession } from './run-session';
export { saveRunFiles, type RunFiles } from './run-files';
export { readSecretsFile } from './secrets-file';
export { outputSchemaFromJson } from './output-schema';
export { demoTask } from '../demo/demo-task';
export { scriptedShopper, shopperQuestion, type ScriptedShopperOptions } from '../demo/scripted-shopper';
export { startDemoShop, type DemoShop, type DemoShopOptions } from '../demo/server';
export { openReplaySession, type ReplayConfig, type ReplaySession } from './replay-session';
