// The fixture site of the driver conformance kit: a few small pages served on 127.0.0.1 (a free
// port) for one case, with `localhost` on the same port as a second origin for cross-origin frames.
// Pages and routes only, no check; nothing here may listen beyond loopback.

import { LoopbackServer, type RecordedRequest, type ServerReply } from './model-conformance-server';

/** The pages of the fixture site, each served at `/<name>.html`. */
export type FixturePage = 'tabs' | 'target' | 'loaded' | 'frames' | 'child' | 'controls' | 'scroll';

/** The running fixture site of one case. */
export interface FixtureSite {
  /** The main origin, `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** The second origin, `http://localhost:<port>`: another site for the browser, the same server. */
  readonly otherOrigin: string;
  /** The URL of a page on the main origin (or the other one), with an optional query such as `name=same`. */
  url(page: FixturePage, query?: string, origin?: 'main' | 'other'): string;
  /** A URL whose request the server receives and never answers. */
  readonly hangingUrl: string;
  /** How many requests for {@link FixtureSite.hangingUrl} arrived. */
  hangingRequests(): number;
  /** Stops the server and drops every connection, hanging ones included. */
  close(): Promise<void>;
}

const head = (title: string, extra = ''): string =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title><style>body{margin:0;font:16px/1.4 sans-serif}.row{margin:12px}</style>${extra}</head>`;

/** What the page's own listeners saw, read back by the kit's probes. */
const recorder = `<script>window.conformance = { clicks: 0, coveredClicks: 0, inputs: [], submits: 0, submitted: null };</script>`;

const pages: Readonly<Record<FixturePage, (query: URLSearchParams, otherOrigin: string) => string>> = {
  tabs: () =>
    `${head('Tabs')}<body>
<div class="row"><a id="new-tab" href="/target.html?from=link" target="_blank">Open in new tab</a></div>
<div class="row"><button id="popup" onclick="window.open('/target.html?from=script')">Open with script</button></div>
</body></html>`,
  target: () => `${head('Target')}<body><h1>Target page</h1><div class="row"><button>Target button</button></div></body></html>`,
  loaded: () =>
    `${head(
      'Loaded',
      `<script>document.addEventListener('DOMContentLoaded', () => { const button = document.createElement('button'); button.id = 'late'; button.textContent = 'Added at DOMContentLoaded'; document.body.append(button); });</script>`,
    )}<body><h1>Loaded page</h1></body></html>`,
  // The iframes have borders, so an offset that is the border box (not the content box) shows.
  frames: (_query, otherOrigin) =>
    `${head('Frames')}<body>
<div class="row"><button>Top button</button></div>
<iframe id="same" title="Same origin" src="/child.html?name=same" style="position:absolute;left:40px;top:80px;width:320px;height:120px;border:6px solid #888"></iframe>
<iframe id="cross" title="Cross origin" src="${otherOrigin}/child.html?name=cross" style="position:absolute;left:420px;top:90px;width:320px;height:120px;border:3px solid #888"></iframe>
<iframe id="hidden" title="Hidden" src="/child.html?name=hidden" style="display:none"></iframe>
</body></html>`,
  child: (query) => {
    const name = (query.get('name') ?? 'child').replace(/[^a-z]/g, '');
    return `${head(`Child ${name}`, recorder)}<body><button id="frame-button" onclick="conformance.clicks++">Frame button ${name}</button></body></html>`;
  },
  controls: () =>
    `${head('Controls', recorder)}<body>
<div class="row"><button id="save" onclick="conformance.clicks++">Save draft</button></div>
<div class="row"><button id="covered" onclick="conformance.coveredClicks++">Covered button</button></div>
<div class="row"><a id="guide" href="/target.html">Read the guide</a></div>
<div class="row"><input id="name" placeholder="Your name" oninput="conformance.inputs.push(this.value)"></div>
<div class="row"><select id="colour" aria-label="Colour"><option value="r">Red</option><option value="g">Green</option><option value="b">Blue</option></select></div>
<form id="search" class="row" onsubmit="event.preventDefault(); conformance.submits++; conformance.submitted = this.q.value">
<input id="query" name="q" aria-label="Search" value="plannav"> <button>Search</button></form>
</body></html>`,
  scroll: () =>
    `${head('Scroll')}<body>
<div id="box" tabindex="0" aria-label="Scroll box" style="height:150px;width:300px;overflow:auto;border:1px solid #888;margin:12px"><div style="height:1500px">Top of the box</div></div>
<div style="height:4000px">A long page</div>
</body></html>`,
};

const isPage = (name: string): name is FixturePage => Object.prototype.hasOwnProperty.call(pages, name);

/** Starts the fixture site of one case. */
export async function startFixtureSite(): Promise<FixtureSite> {
  let hanging = 0;
  let otherOrigin = '';
  const respond = (request: RecordedRequest): ServerReply => {
    if (request.path === '/hang') {
      hanging++;
      return { hang: true };
    }
    const name = /^\/([a-z]+)\.html$/.exec(request.path)?.[1] ?? '';
    if (!isPage(name)) return { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, raw: 'Not a page of the conformance kit.' };
    return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }, raw: pages[name](request.query, otherOrigin) };
  };
  const server = await LoopbackServer.start(respond);
  // Chromium resolves `localhost` to loopback itself; the server listens on 127.0.0.1 only.
  otherOrigin = server.url.replace('127.0.0.1', 'localhost');
  return {
    origin: server.url,
    otherOrigin,
    url: (page, query, origin = 'main') => `${origin === 'main' ? server.url : otherOrigin}/${page}.html${query ? `?${query}` : ''}`,
    hangingUrl: `${server.url}/hang`,
    hangingRequests: () => hanging,
    close: () => server.close(),
  };
}

/** The origin of a port that nothing listens on: a server is started on a free port and closed. */
export async function closedPortOrigin(): Promise<string> {
  const server = await LoopbackServer.start();
  await server.close();
  return server.url;
}
