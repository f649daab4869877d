// The build's first half of the types: tsc writes one .d.ts per source file of src/ into .tmp/dts/ (a fresh folder),
// which tsup's type build then bundles into dist/<entry>.d.ts and .d.cts (tsup.config.ts). Bundling tsc's declarations
// costs a few CPU-seconds; tsup's own type build compiled the sources a second time inside rollup-plugin-dts, at three
// to four times the CPU of this pass.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const declarationsDir = '.tmp/dts';

rmSync(declarationsDir, { recursive: true, force: true });
// The bundled types of the last build go too: tsup's clean leaves them, since its type build writes them meanwhile.
if (existsSync('dist')) {
  for (const name of readdirSync('dist')) if (name.endsWith('.d.ts') || name.endsWith('.d.cts')) rmSync(join('dist', name));
}
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const args = ['-p', 'tsconfig.build.json', '--noEmit', 'false', '--declaration', '--emitDeclarationOnly', '--outDir', declarationsDir];
const result = spawnSync(process.execPath, [tsc, ...args], { stdio: 'inherit' });
process.exit(result.status ?? 1);
