// The surface of each entry point, read from the built declarations (dist/<name>.d.ts) as a user's editor reads
// them: the core stays small (an app author's autocomplete), and each name has one home, but for the two contracts
// the core shares with the entries of those who implement them. Needs dist/: scripts/test.mjs builds first.
import { existsSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { entries, specifierOf } from '../../scripts/entries.mjs';

/** The most names the core entry `plannav` may export (issue 22: about 60 to 80). */
const MAX_CORE_NAMES = 80;

/**
 * Names exported by two entries on purpose: the contracts an app passes in, also in the entry of those who implement
 * them; and the options sibling adapters share, so that each adapter's entry stands alone (an OpenAI user does not
 * import from plannav/anthropic).
 */
const SHARED: Record<string, string[]> = {
  BrowserDriver: ['plannav', 'plannav/driver'],
  PageState: ['plannav', 'plannav/driver'],
  LLMClient: ['plannav', 'plannav/provider'],
  HttpModelOptions: ['plannav/openai', 'plannav/anthropic', 'plannav/gemini'],
  FetchFunction: ['plannav/openai', 'plannav/anthropic', 'plannav/gemini', 'plannav/models'],
  SettleOptions: ['plannav/playwright', 'plannav/puppeteer'],
  ChromiumDriverOptions: ['plannav/playwright', 'plannav/puppeteer'],
  ChromiumLaunchOptions: ['plannav/playwright', 'plannav/puppeteer'],
  DownloadsOptions: ['plannav/playwright', 'plannav/puppeteer'],
};

/** Every entry's exported names, from one program over all the built declarations. */
function exportedNames(): Map<string, string[]> {
  const files = entries.map((entry) => `dist/${entry.name}.d.ts`);
  const missing = files.filter((file) => !existsSync(file));
  if (missing.length > 0) throw new Error(`${missing.join(', ')} missing: run npm run build first`);
  const program = ts.createProgram(files, {
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  });
  const checker = program.getTypeChecker();
  return new Map(
    entries.map((entry, index) => {
      const source = program.getSourceFile(files[index] as string);
      const module = source && checker.getSymbolAtLocation(source);
      if (!module) throw new Error(`${files[index]} is not a module`);
      return [specifierOf(entry), checker.getExportsOfModule(module).map((symbol) => symbol.name)];
    }),
  );
}

const names = exportedNames();
const core = names.get('plannav') ?? [];

describe('the entry points of the built package', () => {
  it(`the core entry exports at most ${MAX_CORE_NAMES} names`, () => {
    expect(core.length, `plannav exports ${core.length} names:\n${[...core].sort().join(', ')}`).toBeLessThanOrEqual(MAX_CORE_NAMES);
    // It still has what an app author starts from.
    expect(core).toEqual(expect.arrayContaining(['Executor', 'defineAction', 'observe', 'act', 'extract', 'HistoryReplay', 'Collector', 'PlannavError']));
  });

  it('no name is exported by two entries, but the shared contracts (BrowserDriver, PageState, LLMClient) and adapter options', () => {
    const homes = new Map<string, string[]>();
    for (const [specifier, exported] of names) for (const name of exported) homes.set(name, [...(homes.get(name) ?? []), specifier]);
    const twice = Object.fromEntries([...homes].filter(([name, where]) => where.length > 1 && !SHARED[name]));
    expect(twice).toEqual({});
    for (const [name, where] of Object.entries(SHARED)) expect(homes.get(name)?.sort(), name).toEqual([...where].sort());
  });

  it('replay and collect have one way in each, and the testing errors are in plannav/testing only', () => {
    const everywhere = new Set([...names.values()].flat());
    for (const dropped of ['replayHistory', 'collect']) expect(everywhere.has(dropped), dropped).toBe(false);
    for (const name of ['CassetteError', 'CassetteMismatchError', 'CassetteErrorOptions', 'CassetteMismatchErrorOptions']) {
      expect(names.get('plannav/testing'), name).toContain(name);
      expect(core, name).not.toContain(name);
    }
    // The driver author's and the model-client author's names are not in the app author's entry.
    for (const name of ['ElementRef', 'pageScriptExpression', 'elementLookupExpression', 'resolveDriver', 'FrameSnapshot']) {
      expect(names.get('plannav/driver'), name).toContain(name);
    }
    for (const name of ['ChatMessage', 'GenerateRequest', 'GenerateResult', 'withRetries', 'chatModelErrorFromStatus', 'ChatModelRateLimitError']) {
      expect(names.get('plannav/provider'), name).toContain(name);
    }
  });
});
