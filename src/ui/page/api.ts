// How the run page talks to its server: commands are JSON POSTs that carry the token in a header,
// events come over one EventSource (the token in its URL: EventSource cannot send headers).

import type { PageCommandMap, PageEventMap } from '../messages';

/** The token of this launch, from the page's own URL. */
export const token = new URLSearchParams(location.search).get('token') ?? '';

/** A URL of this server with the token, for the event stream and download links. */
export function withToken(path: string, extra: Readonly<Record<string, string>> = {}): string {
  const query = new URLSearchParams({ ...extra, token });
  return `${path}?${query.toString()}`;
}

/** Sends a command; resolves with the server's answer, rejects with its error message. */
export async function command<K extends keyof PageCommandMap>(verb: K, body: PageCommandMap[K]): Promise<unknown> {
  const response = await fetch(`/api/${verb}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-plannav-token': token },
    body: JSON.stringify(body),
    cache: 'no-store',
    credentials: 'omit',
  });
  // An answer is JSON; a refusal or an error is one line of text for people.
  if (!response.ok) throw new Error((await response.text().catch(() => '')).trim() || `The server answered ${response.status}.`);
  return (await response.json()) as unknown;
}

/** Opens the event stream and calls `on` for each event, typed by name; `onConnection` says when it is up or down. */
export function listen(on: { [K in keyof PageEventMap]: (data: PageEventMap[K]) => void }, onConnection: (connected: boolean) => void): EventSource {
  const source = new EventSource(withToken('/events'));
  source.addEventListener('open', () => onConnection(true));
  // EventSource reconnects by itself; the server then sends everything again, starting with `hello`.
  source.addEventListener('error', () => onConnection(false));
  for (const name of Object.keys(on) as (keyof PageEventMap)[]) {
    source.addEventListener(name, (event) => {
      const handler = on[name] as (data: unknown) => void;
      handler(JSON.parse((event as MessageEvent<string>).data));
    });
  }
  return source;
}
