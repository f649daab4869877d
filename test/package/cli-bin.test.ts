// The `plannav` command as `npm install plannav` gives it: package.json "bin" points into the packed
// files, the installed node_modules/.bin/plannav runs (help, version, a usage error), and the demo
// runs from the installed package alone (its shop and scripted model ship in dist/), with --json.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };
import { nodeBinary, nodeVersion, packedProject, run, type PackedProject } from './packed-project';

let project: PackedProject;
let out: string;

beforeAll(async () => {
  project = await packedProject();
  out = mkdtempSync(join(tmpdir(), 'plannav-cli-bin-'));
}, 300_000);

afterAll(() => {
  if (out) rmSync(out, { recursive: true, force: true });
});

/** Runs the installed bin's file with Node (as npm's shim does), in the project. */
function plannav(args: readonly string[], timeoutMs = 60_000) {
  const bin = (pkg as { bin?: Record<string, string> }).bin?.plannav ?? '';
  return run(nodeBinary, [join(project.dir, 'node_modules', 'plannav', bin), ...args], project.dir, timeoutMs);
}

describe(`the plannav command, installed, under Node ${nodeVersion}`, { timeout: 120_000 }, () => {
  it('is the package "bin", packed, and linked into node_modules/.bin', () => {
    const bin = (pkg as { bin?: Record<string, string> }).bin;
    expect(bin?.plannav).toEqual(expect.any(String));
    expect(project.packedFiles).toContain((bin?.plannav ?? '').replace(/^\.\//, ''));
    const linked = join(project.dir, 'node_modules', '.bin', process.platform === 'win32' ? 'plannav.cmd' : 'plannav');
    expect(existsSync(linked), linked).toBe(true);
    // npm runs it directly: it needs a shebang.
    expect(readFileSync(join(project.dir, 'node_modules', 'plannav', bin?.plannav ?? ''), 'utf8').startsWith('#!/usr/bin/env node')).toBe(true);
  });

  it('prints help and the version, and a bad flag is exit 2 with one line', () => {
    const help = plannav(['--help']);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain('plannav run');
    const version = plannav(['--version']);
    expect(version.status, version.stderr).toBe(0);
    expect(version.stdout).toContain(pkg.version);
    const bad = plannav(['run', '--no-such-flag']);
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/^plannav: /);
  });

  it('runs the demo from the installed package, printing only NDJSON with --json', () => {
    const demo = plannav(['run', '--demo', '--json', '--out', out], 110_000);
    expect(demo.status, demo.stderr).toBe(0);
    const lines = demo.stdout.trim().split('\n');
    const events = lines.map((line) => JSON.parse(line) as { type: string; status?: string });
    expect(events.at(-1)).toMatchObject({ type: 'summary', status: 'ok' });
    expect(existsSync(join(out, 'history.json'))).toBe(true);
  });
});
