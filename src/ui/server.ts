// `plannav ui`'s server: one page on 127.0.0.1 to watch and steer a run, its event stream and its
// commands. Only the browser that opened the printed URL may use it: token, Host and Origin checked.

import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rmdir, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { RunConfig, RunSession } from '../front/index';
import { ConfigError, PlannavError } from '../index';
import { EventHub } from './event-stream';
import { openInBrowser } from './open-browser';
import { runPageHtml, runPageScriptHash, runPageStyleHash } from './page/generated/run-page';
import { checkRequest } from './request-guard';
import { PageCommandError, RunController } from './run-controller';

/** Options of {@link startRunPage}. */
export interface RunPageOptions {
  /** The port on 127.0.0.1. @defaultValue a free one */
  readonly port?: number | undefined;
  /** The address to listen on: loopback only, so no other machine can reach the page. @defaultValue '127.0.0.1' */
  readonly host?: '127.0.0.1' | undefined;
  /** Serve the demo shop and use its scripted model (no key). Same as `config.demo`. @defaultValue false */
  readonly demo?: boolean | undefined;
  /** Open the page in the default browser. @defaultValue false */
  readonly open?: boolean | undefined;
  /** The run set-up the page starts from (models, browser, URL policy, secrets); the page's settings override its model and browser fields. */
  readonly config?: RunConfig | undefined;
  /** In demo mode, milliseconds each model call waits first, so pause and stop can be seen (tests). @defaultValue 0 */
  readonly demoStepDelayMs?: number | undefined;
  /** Where each run's files (history, GIF, report) are kept, one folder per run; kept after close(). @defaultValue a new folder under the OS temp folder (removed at close() if no run used it) */
  readonly outDir?: string | undefined;
  /** Opens a browser session from a config; for tests. @defaultValue src/front's openRunSession */
  readonly openSession?: ((config: RunConfig, signal?: AbortSignal) => Promise<RunSession>) | undefined;
}

/** A running run page. */
export interface RunPage {
  /** The page's address, token included: `http://127.0.0.1:<port>/?token=…`. */
  readonly url: string;
  /** The token every request must carry. */
  readonly token: string;
  readonly port: number;
  /** Where the runs' files are kept. */
  readonly outDir: string;
  /** Stops the run in progress, closes the browser session and the server. Idempotent. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * The Content-Security-Policy of the page: the HTML report's (`default-src 'none'`, images only
 * as `data:`), plus exactly the page's own inline script and style (by hash) and requests to
 * its own origin. No other script, style, frame, form target or base URL can load.
 */
export const runPagePolicy =
  `default-src 'none'; script-src '${runPageScriptHash}'; style-src '${runPageStyleHash}'; img-src data:; connect-src 'self'; ` +
  `base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/**
 * Headers of every response. No `Access-Control-*` header is ever sent: no other site may read
 * anything here. What is not the page (JSON, the event stream, files, errors) may run and load nothing.
 */
const baseHeaders: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none'",
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/**
 * Headers of a response with content (the page, the events, a command's answer, a file): its type
 * is what it says, and no other site may even embed it.
 */
const contentHeaders: Readonly<Record<string, string>> = { ...baseHeaders, 'x-content-type-options': 'nosniff', 'cross-origin-resource-policy': 'same-origin' };

/** Headers of the page: its policy, and no framing by any site (no clickjacking of its buttons). */
const pageHeaders: Readonly<Record<string, string>> = {
  ...contentHeaders,
  'content-security-policy': runPagePolicy,
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'content-type': 'text/html; charset=utf-8',
};

const settingsSchema = z
  .object({
    model: z.string().max(200),
    plannerModel: z.string().max(200),
    extractorModel: z.string().max(200),
    headless: z.boolean(),
    cdpUrl: z.string().max(2000),
    allowedHosts: z.array(z.string().min(1).max(300)).max(100),
    maxSteps: z.number().int().min(0).max(10_000),
  })
  .partial()
  .strict();

const commandSchemas = {
  run: z.object({ task: z.string().max(20_000), settings: settingsSchema.optional() }).strict(),
  'follow-up': z.object({ task: z.string().min(1).max(20_000) }).strict(),
  pause: z.object({}).strict(),
  resume: z.object({}).strict(),
  stop: z.object({}).strict(),
  answer: z.object({ questionId: z.string().min(1).max(200), text: z.string().max(20_000) }).strict(),
  'open-history': z.object({ name: z.string().max(300).optional(), history: z.unknown() }).strict(),
  replay: z.object({}).strict(),
  'new-session': z.object({}).strict(),
} as const;

type Verb = keyof typeof commandSchemas;
const isVerb = (verb: string): verb is Verb => Object.hasOwn(commandSchemas, verb);

/** The largest body a command may have: a saved history can be long; every other command is small. */
const maxBodyBytes = (verb: Verb): number => (verb === 'open-history' ? 32 * 1024 * 1024 : 256 * 1024);

const downloads = {
  history: { type: 'application/json; charset=utf-8', name: 'history.json' },
  gif: { type: 'image/gif', name: 'run.gif' },
  report: { type: 'text/html; charset=utf-8', name: 'report.html' },
} as const;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function sendJson(response: ServerResponse, body: unknown): void {
  response.writeHead(200, { ...contentHeaders, 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

/**
 * A refusal or an error: one line of plain text for people, and nothing else. It holds no data of
 * the page, so it goes without the content headers, and a refused cross-site request (a form, an
 * image) still shows its status in the browser's network log.
 */
function sendError(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { ...baseHeaders, 'content-type': 'text/plain; charset=utf-8' }).end(`${message}\n`);
}

/** Reads a JSON body of at most `limit` bytes. */
async function readJson(request: IncomingMessage, limit: number): Promise<unknown> {
  const type = request.headers['content-type'] ?? '';
  // A form or text/plain post from another site would be a "simple" request: only JSON is accepted.
  if (!/^application\/json\s*(?:;|$)/i.test(type)) throw new HttpError(415, 'Send the command as JSON (content-type: application/json).');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new HttpError(413, `The request body is larger than ${limit} bytes.`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text.trim()) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, 'The request body is not valid JSON.');
  }
}

/** Runs one command; its answer is the JSON the page gets back. */
async function runCommand(controller: RunController, verb: Verb, body: unknown): Promise<unknown> {
  const parsed = commandSchemas[verb].safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HttpError(400, `Command ${verb}: ${issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'invalid body'}.`);
  }
  const input = parsed.data as Record<string, unknown>;
  switch (verb) {
    case 'run': {
      const { task, settings } = parsed.data as z.infer<(typeof commandSchemas)['run']>;
      return controller.run(task, settings);
    }
    case 'follow-up':
      return controller.followUp(input.task as string);
    case 'pause':
      controller.pause();
      return { ok: true };
    case 'resume':
      controller.resume();
      return { ok: true };
    case 'stop':
      controller.stop();
      return { ok: true };
    case 'answer':
      controller.answer(input.questionId as string, input.text as string);
      return { ok: true };
    case 'open-history':
      return controller.openHistory((input.name as string | undefined) ?? 'history.json', input.history);
    case 'replay':
      return controller.replayOpened();
    case 'new-session':
      await controller.newSession();
      return { ok: true };
  }
}

/** The status and message a failed command answers with. */
function failure(error: unknown): { status: number; message: string } {
  if (error instanceof HttpError || error instanceof PageCommandError) return { status: error.status, message: error.message };
  // A bad setting (an unknown provider, a missing key, a bad CDP URL) is the page's to fix.
  if (ConfigError.isInstance(error)) return { status: 400, message: (error as Error).message };
  if (PlannavError.isInstance(error)) return { status: 500, message: (error as Error).message };
  return { status: 500, message: error instanceof Error ? error.message : String(error) };
}

async function sendDownload(response: ServerResponse, path: string | undefined, kind: keyof typeof downloads): Promise<void> {
  const info = path ? await stat(path).catch(() => undefined) : undefined;
  if (!path || !info?.isFile()) return sendError(response, 404, `The last run has no ${kind} file to download.`);
  const { type, name } = downloads[kind];
  response.writeHead(200, {
    ...contentHeaders,
    'content-type': type,
    'content-length': String(info.size),
    // An attachment: the report is never rendered in this page's origin.
    'content-disposition': `attachment; filename="${name}"`,
  });
  createReadStream(path).pipe(response);
}

/**
 * Starts the run page: a server on 127.0.0.1 that serves one page to watch and steer a run
 * (step cards, a live view of the browser, pause, resume, stop, the agent's questions, follow-up
 * tasks, downloads, a saved history replayed), its Server-Sent Events and its JSON commands.
 *
 * Safe by default: loopback only; a random token in the URL that every request must carry (a
 * header on commands, `?token=` on the page, the event stream and downloads); the Host header must
 * name this server (no DNS rebinding) and an Origin header this page (no cross-site request); no
 * CORS header ever; a strict Content-Security-Policy.
 * @throws `ConfigError` for a host other than 127.0.0.1, or a port that is taken.
 */
export async function startRunPage(options: RunPageOptions = {}): Promise<RunPage> {
  const host = options.host ?? '127.0.0.1';
  if (host !== '127.0.0.1') {
    throw new ConfigError(`The run page listens on 127.0.0.1 only, got host ${JSON.stringify(host)}: open it on this machine.`, { field: 'host' });
  }
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ConfigError(`Option \`port\` must be an integer from 0 to 65535 (0 for a free one), got ${String(port)}.`, { field: 'port' });
  }
  const token = randomBytes(32).toString('base64url');
  const outDir = options.outDir ?? (await mkdtemp(join(tmpdir(), 'plannav-ui-')));
  const config: RunConfig = {
    ...options.config,
    demo: options.demo ?? options.config?.demo,
    demoStepDelayMs: options.demoStepDelayMs ?? options.config?.demoStepDelayMs,
  };
  const hub = new EventHub();
  const controller = new RunController({ config, workFolder: outDir, hub, openSession: options.openSession });
  let listening = 0;

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const method = request.method ?? 'GET';
    const decision = checkRequest({ method, url: request.url ?? '/', headers: request.headers }, { port: listening, token });
    if (!decision.allowed) return sendError(response, decision.status, decision.reason);
    const { pathname } = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (method === 'GET' && (pathname === '/' || pathname === '/index.html')) {
      response.writeHead(200, pageHeaders).end(runPageHtml);
      return;
    }
    if (method === 'GET' && pathname === '/events') {
      hub.attach(response, contentHeaders, [{ type: 'hello', data: controller.hello() }]);
      return;
    }
    const download = /^\/download\/(history|gif|report)$/.exec(pathname)?.[1] as keyof typeof downloads | undefined;
    if (method === 'GET' && download) return sendDownload(response, await controller.download(download), download);
    const verb = /^\/api\/([a-z-]+)$/.exec(pathname)?.[1];
    if (verb !== undefined) {
      if (method !== 'POST') return sendError(response, 405, 'Commands are POST requests.');
      if (!isVerb(verb)) return sendError(response, 404, `There is no command ${JSON.stringify(verb)}.`);
      const body = await readJson(request, maxBodyBytes(verb));
      return sendJson(response, await runCommand(controller, verb, body));
    }
    sendError(response, method === 'GET' ? 404 : 405, 'Not found.');
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      const { status, message } = failure(error);
      if (!response.headersSent) sendError(response, status, message);
      else response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new ConfigError(`Port ${port} on ${host} is taken: choose another with --port, or 0 for a free one.`, { field: 'port', cause: error })
          : error,
      ),
    );
    server.listen(port, host, resolve);
  });
  listening = (server.address() as AddressInfo).port;
  const url = `http://${host}:${listening}/?token=${token}`;

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await controller.close();
      hub.close();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      // The runs' files are the user's to keep; a folder of our own that no run used goes.
      if (options.outDir === undefined) await rmdir(outDir).catch(() => undefined);
    })();
    return closing;
  };
  try {
    await controller.prepare();
  } catch (error) {
    await close();
    throw error;
  }
  if (options.open) await openInBrowser(url);
  return { url, token, port: listening, outDir, close, [Symbol.asyncDispose]: close };
}
