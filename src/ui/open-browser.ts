// Opens a URL in the user's default browser with the platform's own opener (open, start,
// xdg-open). Never throws: a machine without a desktop just gets told to open the URL by hand.

import { spawn } from 'node:child_process';

/** The opener command for a platform, with its arguments before the URL. */
export function opener(platform: NodeJS.Platform): { command: string; args: string[] } {
  if (platform === 'darwin') return { command: 'open', args: [] };
  // `start` is a cmd.exe builtin; its first quoted argument is a window title, hence the empty one (Node quotes it as "").
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'start', ''] };
  return { command: 'xdg-open', args: [] };
}

/** Starts the default browser on `url`; resolves with why it could not, if it could not. */
export function openInBrowser(url: string, platform: NodeJS.Platform = process.platform): Promise<{ opened: boolean; reason?: string }> {
  const { command, args } = opener(platform);
  return new Promise((resolve) => {
    try {
      // The URL is one argument and no shell parses it (on Windows cmd does, but the URL holds only [A-Za-z0-9:/?=._-]).
      const child = spawn(command, [...args, url], { stdio: 'ignore', detached: true, windowsHide: true });
      child.once('error', (error) => resolve({ opened: false, reason: `${command}: ${error.message}` }));
      child.once('spawn', () => {
        child.unref();
        resolve({ opened: true });
      });
    } catch (error) {
      resolve({ opened: false, reason: error instanceof Error ? error.message : String(error) });
    }
  });
}
