// The packed package installed beside the current `ai` major (test/package/packed-project.ts): the AI
// SDK bridge runs against ai's own mock model from an ESM and a CommonJS script, alone and inside a
// whole Executor task, and TypeScript apps that import every entry point compile under `--strict`
// (ESM and CommonJS, moduleResolution nodenext, node16 and bundler), as do the examples it ships.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeBinary, nodeRequiresEsm, nodeVersion, packedProject, run, writeFiles, type PackedProject } from './packed-project';

let project: PackedProject;

/** The examples of examples/ that the package ships (package.json "files"), which the README names. */
const shippedExamples = ['custom-driver.ts', 'custom-llm-client.ts'];

beforeAll(async () => {
  project = await packedProject();
}, 300_000);

/**
 * The bridge script, as ESM or CommonJS: one `generate()` with a JSON schema through AISDKChatModel and
 * ai's MockLanguageModelV4, then a task whose Planner (the same kind of model) answers at once.
 */
function bridgeScript(format: 'esm' | 'cjs'): string {
  const load =
    format === 'esm'
      ? `import { Executor } from 'plannav';
import { AISDKChatModel } from 'plannav/ai-sdk';
import { FakeBrowserDriver, scriptedPlan } from 'plannav/testing';
import { MockLanguageModelV4 } from 'ai/test';`
      : `const { Executor } = require('plannav');
const { AISDKChatModel } = require('plannav/ai-sdk');
const { FakeBrowserDriver, scriptedPlan } = require('plannav/testing');
const { MockLanguageModelV4 } = require('ai/test');`;
  return `${load}
const reply = (text) => ({
  content: [{ type: 'text', text }],
  finishReason: { unified: 'stop', raw: 'stop' },
  usage: { inputTokens: { total: 12, noCache: 12 }, outputTokens: { total: 3, text: 3 } },
  warnings: [],
});
async function main() {
  const model = new MockLanguageModelV4({ doGenerate: reply('{"answer":"hi"}') });
  const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
  const generated = await new AISDKChatModel({ model }).generate({ messages: [{ role: 'user', content: 'Hi' }], output: { name: 'answer_output', schema } });
  const planner = new MockLanguageModelV4({ doGenerate: reply(scriptedPlan({ done: true, webTask: false, finalAnswer: 'Paris' })) });
  const result = await new Executor({ task: 'What is the capital of France?', llm: new AISDKChatModel({ model: planner }), browser: new FakeBrowserDriver() }).execute();
  console.log(JSON.stringify({
    generated: { text: generated.text, object: generated.object, finishReason: generated.finishReason, usage: generated.usage },
    responseFormat: model.doGenerateCalls[0].responseFormat.type,
    task: { status: result.status, finalAnswer: result.finalAnswer, calls: result.usage.calls },
  }));
}
main().catch((error) => { console.error(error); process.exit(1); });
`;
}

/** Imports every entry point and uses one export of each where the types have to fit together. */
function appSource({ withAISDK }: { withAISDK: boolean }): string {
  return `import { Executor, observe, type BrowserDriver, type LLMClient } from 'plannav';
import { FakeBrowserDriver, ScriptedLLM, scriptedPlan } from 'plannav/testing';
import { PlaywrightDriver, type PlaywrightLaunchOptions } from 'plannav/playwright';
import { openai } from 'plannav/openai';
import { AnthropicChatModel } from 'plannav/anthropic';
import { GeminiChatModel } from 'plannav/gemini';
${withAISDK ? "import { AISDKChatModel } from 'plannav/ai-sdk';\n" : ''}import { createLLM } from 'plannav/models';
import { PuppeteerDriver } from 'plannav/puppeteer';
import { resolveDriver, type BrowserDriver as DriverContract, type ElementRef } from 'plannav/driver';
import { withRetries, type GenerateRequest, type LLMClient as ProviderContract } from 'plannav/provider';

const scripted = new ScriptedLLM({ responses: [scriptedPlan({ done: true, webTask: false, finalAnswer: 'ok' })] });
export const models: LLMClient[] = [
  scripted,
  openai({ model: 'gpt-4.1-mini', apiKey: 'key' }),
  new AnthropicChatModel({ model: 'claude-sonnet-4-5', apiKey: 'key' }),
  new GeminiChatModel({ model: 'gemini-2.5-flash', apiKey: 'key' }),
${withAISDK ? "  new AISDKChatModel({ model: 'openai/gpt-4.1-mini' }),\n" : ''}  createLLM('openai:gpt-4.1-mini', { apiKey: 'key' }),
];
export const launchers: Array<(options?: PlaywrightLaunchOptions) => Promise<BrowserDriver>> = [PlaywrightDriver.launch, PuppeteerDriver.launch];
// The contracts are one type whichever entry names them: a driver of plannav/driver runs the core's Executor.
export const contract: DriverContract = new FakeBrowserDriver() satisfies BrowserDriver;
export const resolved = resolveDriver(contract);
export const elements = async (driver: DriverContract): Promise<ElementRef[]> => [...(await observe(driver)).elements.values()];
export const retried: LLMClient = withRetries(scripted satisfies ProviderContract, { retries: 1 });
export const request: GenerateRequest = { messages: [{ role: 'user', content: 'Hi' }] };
export async function answer(): Promise<string | undefined> {
  const result = await new Executor({ task: 'Say ok', llm: scripted, browser: new FakeBrowserDriver() }).execute();
  return result.finalAnswer;
}
`;
}

/** tsc with one of the configs below; resolves with its status and output (several run side by side). */
function tsc(dir: string, config: string): Promise<{ config: string; status: number | null; output: string }> {
  return new Promise((resolvePromise) => {
    const child = spawn(nodeBinary, [join(project.dir, 'node_modules/typescript/bin/tsc'), '-p', config], { cwd: dir });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (status) => resolvePromise({ config, status, output }));
  });
}

// Each case installs or compiles a whole project (three tsc programs in one): a few tens of seconds idle, minutes on a loaded machine.
describe(`the packed package, installed, under Node ${nodeVersion}`, { timeout: 360_000 }, () => {
  it.each(['esm', 'cjs'] as const)('runs the AI SDK bridge with the current ai major from %s', (format) => {
    const dir = join(project.dir, 'bridge');
    const file = format === 'esm' ? 'bridge.mjs' : 'bridge.cjs';
    writeFiles(dir, { [file]: bridgeScript(format) });
    const result = run(nodeBinary, [file], dir);
    if (format === 'cjs' && !nodeRequiresEsm) {
      // A Node whose require() cannot load ES modules cannot load ai v7 from CommonJS (nor can ai itself):
      // the README says so; the failure must be that one.
      expect(result.stderr).toContain('ERR_REQUIRE_ESM');
      return;
    }
    expect(result.status, `${file} failed under ai ${project.versions.ai}:\n${result.stderr}`).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      generated: { text: '{"answer":"hi"}', object: { answer: 'hi' }, finishReason: 'stop', usage: { inputTokens: 12, outputTokens: 3 } },
      responseFormat: 'json',
      task: { status: 'ok', finalAnswer: 'Paris', calls: 1 },
    });
  });

  it('compiles ESM and CommonJS apps importing every entry point, and the shipped examples, under tsc --strict (nodenext, node16, bundler)', async () => {
    const dir = join(project.dir, 'typescript');
    const options = { strict: true, noEmit: true, target: 'es2022', lib: ['es2022', 'dom'], types: ['node'], forceConsistentCasingInFileNames: true };
    writeFiles(dir, {
      'esm/package.json': JSON.stringify({ type: 'module' }),
      'esm/app.ts': appSource({ withAISDK: true }),
      'cjs/package.json': JSON.stringify({ type: 'commonjs' }),
      'cjs/app.ts': appSource({ withAISDK: true }),
      // node16 models a Node whose require() cannot load ES modules, and ai v7 is ESM-only: a CommonJS app
      // there cannot use plannav/ai-sdk (TS1479), as at run time; every other entry point must compile.
      'cjs/app-node16.ts': appSource({ withAISDK: false }),
      // The examples the README points to, as a user copies them out of node_modules/plannav/examples/.
      ...Object.fromEntries(shippedExamples.map((name) => [`esm/${name}`, readFileSync(join(project.dir, 'node_modules/plannav/examples', name), 'utf8')])),
      // Our declaration files are checked once, here (skipLibCheck: false), for both formats; the other
      // two configs only change how imports resolve.
      'tsconfig.nodenext.json': JSON.stringify({
        compilerOptions: { ...options, module: 'nodenext', moduleResolution: 'nodenext', skipLibCheck: false },
        files: ['esm/app.ts', 'cjs/app.ts', ...shippedExamples.map((name) => `esm/${name}`)],
      }),
      'tsconfig.node16.json': JSON.stringify({
        compilerOptions: { ...options, module: 'node16', moduleResolution: 'node16', skipLibCheck: true },
        files: ['esm/app.ts', 'cjs/app-node16.ts'],
      }),
      'tsconfig.bundler.json': JSON.stringify({
        compilerOptions: { ...options, module: 'preserve', moduleResolution: 'bundler', skipLibCheck: true },
        files: ['esm/app.ts'],
      }),
    });
    const results = await Promise.all(['tsconfig.nodenext.json', 'tsconfig.node16.json', 'tsconfig.bundler.json'].map((config) => tsc(dir, config)));
    for (const { config, status, output } of results) expect(status, `tsc -p ${config}:\n${output}`).toBe(0);
  });
});
