// `plannav ui` and `plannav mcp` live in their own modules (src/ui/command.ts, src/mcp/command.ts),
// loaded only when asked for: the MCP SDK and the run page's bundle stay out of every other command.

import { exitCodes, writeLine, type CliIo, type CommandHandler } from './io';

/** What the command module of `plannav ui` or `plannav mcp` exports. */
interface CommandModule {
  readonly uiCommand?: CommandHandler;
  readonly mcpCommand?: CommandHandler;
}

/**
 * Where each command module is: beside the sources when the command runs from src/ (tsx), and
 * beside dist/cli.js in the built package (tsup.config.ts builds them as dist/ui-command.js and
 * dist/mcp-command.js). A path in a variable, so this compiles before the modules exist.
 */
function modulePath(command: 'ui' | 'mcp'): string {
  const fromSources = import.meta.url.endsWith('.ts');
  return fromSources ? `../${command}/command.ts` : `./${command}-command.js`;
}

/** Runs `plannav ui` or `plannav mcp` from its module; says so and fails when the module cannot be loaded. */
export async function dispatchCommand(command: 'ui' | 'mcp', args: string[], io: CliIo): Promise<number> {
  let loaded: CommandModule;
  try {
    loaded = (await import(modulePath(command))) as CommandModule;
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
    const missingItself = reason.includes(modulePath(command).replace(/^\.\.?\//, ''));
    // A missing module of its own: this build has no such command; else what it needs is missing (an optional peer).
    writeLine(io.stderr, `plannav: plannav ${command} is not available${missingItself ? ' in this build' : `: ${reason}`}`);
    return exitCodes.failed;
  }
  const handler = command === 'ui' ? loaded.uiCommand : loaded.mcpCommand;
  if (typeof handler !== 'function') {
    writeLine(io.stderr, `plannav: plannav ${command} is not available in this build.`);
    return exitCodes.failed;
  }
  return handler(args, io);
}
