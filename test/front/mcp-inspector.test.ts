// The MCP Inspector's command-line mode (@modelcontextprotocol/inspector v2, `--cli`), a real client we
// did not write, spawns `plannav mcp --demo` over stdio: `tools/list`, then `tools/call run_task` with
// the demo task. It runs offline; its catalog and secrets go to a temporary HOME.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, cliNodeArgs, repoRoot } from '../helpers/front-cli';
import { BROWSER_TOOLS, DEMO_TASK, TASK_TOOLS } from '../helpers/front-mcp';

/** The Inspector's launcher (its `mcp-inspector` bin). */
const inspectorBin = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector/package.json')), 'clients/launcher/build/index.js');

let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'plannav-inspector-home-'));
});
afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
});

/** Runs `mcp-inspector --cli …inspectorArgs -- <plannav mcp --demo>` and returns its exit code and output. */
function inspect(inspectorArgs: readonly string[], timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [inspectorBin, '--cli', ...inspectorArgs, '--', process.execPath, ...cliNodeArgs, 'mcp', '--demo'], {
    cwd: repoRoot,
    env: cleanEnv({ HOME: home, XDG_CONFIG_HOME: join(home, '.config'), MCP_CATALOG_PATH: join(home, 'mcp.json') }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

describe('MCP Inspector CLI against plannav mcp --demo', () => {
  it('tools/list lists the task and browser tools', { timeout: 60_000 }, async () => {
    const result = await inspect(['--method', 'tools/list'], 50_000);
    expect(result.code, result.stderr).toBe(0);
    const { tools } = JSON.parse(result.stdout) as { tools: { name: string; inputSchema: Record<string, unknown> }[] };
    const names = tools.map((tool) => tool.name);
    for (const name of [...TASK_TOOLS, ...BROWSER_TOOLS]) expect(names, name).toContain(name);
    for (const tool of tools) expect(tool.inputSchema.type, tool.name).toBe('object');
  });

  it('tools/call run_task completes the demo task on the shop', { timeout: 120_000 }, async () => {
    const result = await inspect(['--method', 'tools/call', '--tool-name', 'run_task', '--tool-arg', `task=${DEMO_TASK}`], 110_000);
    expect(result.code, result.stderr).toBe(0);
    const called = JSON.parse(result.stdout) as { isError?: boolean; content?: unknown; structuredContent?: Record<string, unknown> };
    expect(called.isError, JSON.stringify(called.content)).toBeFalsy();
    expect(called.structuredContent?.status).toBe('ok');
    expect(called.structuredContent?.success).toBe(true);
    expect(called.structuredContent?.answer).toEqual(expect.stringContaining('Blue bowl'));
    expect(called.structuredContent?.history_file).toEqual(expect.stringMatching(/history\.json$/));
  });
});
