// The README's quick starts, copied verbatim into the throwaway project that has the packed package
// (test/package/packed-project.ts): both compile under `tsc --strict`, and the scripted one (ScriptedLLM,
// no key) runs in the system Chromium and prints an answer. The `openai` one needs a key: it runs
// against a local server that refuses it, and must say so and fail, as a user's first try might.
// PLANNAV_README points the test at another README (to try new blocks before they go in).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeBinary, nodeVersion, packedProject, run, writeFiles, type PackedProject, type Run } from './packed-project';
import { extractQuickstartBlocks, type QuickstartName } from './quickstart-blocks';

const readme = process.env.PLANNAV_README || 'README.md';

describe('the quick-start extractor', () => {
  const block = (name: string) => `<!-- quickstart: ${name} -->\n\`\`\`ts\nconsole.log('${name}');\n\`\`\`\n`;

  it('takes each marked ```ts block as it is', () => {
    expect(extractQuickstartBlocks(`# Title\n\n${block('scripted')}\ntext\n\n${block('openai')}`)).toEqual({
      scripted: "console.log('scripted');\n",
      openai: "console.log('openai');\n",
    });
  });

  it('says which block is missing and what the test looks for', () => {
    expect(() => extractQuickstartBlocks(block('scripted'))).toThrow(
      'README.md has no `openai` quick start: the test expects a line `<!-- quickstart: openai -->` with a ```ts fence on the very next line',
    );
  });

  it('refuses a marker that is not right above a ```ts fence, or a block left open', () => {
    expect(() => extractQuickstartBlocks(`<!-- quickstart: scripted -->\n\n\`\`\`ts\nx\n\`\`\`\n${block('openai')}`)).toThrow(
      /line 1: .* must be followed on the next line by a ```ts fence/,
    );
    expect(() => extractQuickstartBlocks(`${block('openai')}<!-- quickstart: scripted -->\n\`\`\`ts\nx\n`)).toThrow(/block is never closed/);
  });
});

describe(`the quick starts of ${readme}, under Node ${nodeVersion}`, { timeout: 180_000 }, () => {
  let blocks: Record<QuickstartName, string>;
  let dir: string;

  beforeAll(async () => {
    // First, so a README without the blocks fails at once with the extractor's message.
    blocks = extractQuickstartBlocks(readFileSync(readme, 'utf8'), readme);
    const project: PackedProject = await packedProject();
    dir = join(project.dir, 'quickstart');
    writeFiles(dir, {
      'package.json': JSON.stringify({ type: 'module' }),
      'scripted.ts': blocks.scripted,
      'openai.ts': blocks.openai,
      // What a user's project would have. Our declaration files are checked with skipLibCheck: false
      // by install.test.ts; here the question is whether the snippets themselves compile.
      'tsconfig.json': JSON.stringify({
        compilerOptions: {
          strict: true,
          target: 'es2022',
          lib: ['es2022', 'dom'],
          module: 'nodenext',
          moduleResolution: 'nodenext',
          types: ['node'],
          skipLibCheck: true,
          outDir: 'out',
          rootDir: '.',
        },
        files: ['scripted.ts', 'openai.ts'],
      }),
    });
  }, 300_000);

  it('compile under tsc --strict (lib es2022 and dom, module nodenext)', () => {
    const result = run(nodeBinary, [join(dir, '..', 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], dir);
    expect(result.status, `The README's quick starts do not compile:\n${result.stdout}${result.stderr}`).toBe(0);
  });

  it('the scripted one runs in headless Chromium, offline and without a key, and prints the answer', () => {
    const result = run(nodeBinary, ['out/scripted.js'], dir, 120_000);
    expect(result.status, `The scripted quick start failed:\n${result.stdout}\n${result.stderr}`).toBe(0);
    // It prints the result's status and final answer.
    const lastLine = result.stdout.trim().split('\n').at(-1) ?? '';
    expect(lastLine, `The scripted quick start should end by printing "ok <answer>"; it printed:\n${result.stdout}`).toMatch(/^ok \S/);
  });
});

/**
 * Runs Node on `args` in `dir` with `env` added, without blocking the event loop (the test's own
 * server has to answer meanwhile); kills it after `timeoutMs`.
 */
function runNode(args: readonly string[], dir: string, env: Readonly<Record<string, string>>, timeoutMs: number): Promise<Run> {
  return new Promise((resolvePromise) => {
    const child = spawn(nodeBinary, args, { cwd: dir, env: { ...process.env, ...env, FORCE_COLOR: '0', NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolvePromise({ status, stdout, stderr });
    });
  });
}

describe(`the openai quick start of ${readme} with a key the server refuses, under Node ${nodeVersion}`, { timeout: 180_000 }, () => {
  it("prints the model's error and exits non-zero", async () => {
    const refusal = 'Incorrect API key provided: sk-wrong. You can find your API key at your account page.';
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () =>
        response
          .writeHead(401, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: refusal, type: 'invalid_request_error', code: 'invalid_api_key' } })),
      );
    });
    await new Promise<void>((resolvePromise) => server.listen(0, '127.0.0.1', resolvePromise));
    try {
      const { port } = server.address() as { port: number };
      const dir = join((await packedProject()).dir, 'quickstart');
      const result = await runNode(['out/openai.js'], dir, { OPENAI_API_KEY: 'sk-wrong', OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1` }, 120_000);
      const output = `${result.stdout}\n${result.stderr}`;
      expect(output, 'the quick start should print why it failed').toContain(refusal);
      expect(result.status, `the quick start should exit non-zero when the task fails; it printed:\n${output}`).not.toBe(0);
      expect(result.status, `killed after 120 s:\n${output}`).not.toBeNull();
    } finally {
      server.close();
    }
  });
});
