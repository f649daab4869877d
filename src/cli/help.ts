// The usage text of every command, printed by `--help` (exit 0) and after an unknown command.
// Keep it in step with the flags in commands.ts and with docs/guides/cli.md.

const runFlags = `Model:
  --model provider:model      the model, through createLLM (openai:gpt-4.1-mini, anthropic:claude-sonnet-4-5,
                              gemini:gemini-2.5-flash, ollama:qwen2.5:7b, …); its key from the usual
                              environment variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, …)
  --planner-model p:m         the Planner's model (default: --model)
  --extractor-model p:m       the model extract_content uses (default: --model)
  --demo                      serve the demo shop on 127.0.0.1 and use its scripted model (no key);
                              the task may then be left out

Browser:
  --start-url url             open this page before the task starts
  --headed                    show the browser window (default: headless)
  --cdp-url url               drive a running Chromium (http://127.0.0.1:9222) instead of launching one
  --ws-endpoint url           drive a Playwright browser server instead of launching one
  --allow host                only these hosts may be loaded (repeatable, or comma-separated)
  --deny host                 these hosts may never be loaded (repeatable)
  --scope navigation|all-requests
                              what --allow/--deny check: page loads (default) or every request
  --vision                    send the model a screenshot with each step
  --storage-state file.json   start the launched browser logged in, from a saved storage state
  --save-storage-state file.json
                              save the browser's storage state (cookies, localStorage) at the end
                              (mode 0600; it holds session secrets)

Task:
  --secrets-file file         a dotenv file (NAME=value): the model sees the names, never the values
  --max-steps n               the most Navigator steps (default 100; 20 with --demo)
  --output-schema file.json   a JSON Schema: the answer's structured data must have this shape

Output:
  --out dir                   where history.json, run.gif and report.html go (default: a new folder
                              under the OS temp folder)
  --trace                     also save a Playwright trace of the run there, as trace.zip, linked from
                              the report (npx playwright show-trace trace.zip); not with --cdp-url
  --json                      print the run's events as NDJSON on stdout, one per line, and a last
                              {"type":"summary",…} line; nothing else goes to stdout`;

/** Usage text by command; `main` is the overview. */
export const helpText: Readonly<Record<string, string>> = {
  main: `plannav: browser agents from the command line

Usage: plannav <command> [flags]

Commands:
  run "<task>"               run a task in a browser with a model, and save its history, GIF and report
  replay <history.json>      run a saved history again, without a model
  export <history.json>      write a saved history as a Playwright test (--playwright)
  report <history.json>      write a saved history's GIF and HTML report
  demo                       run the demo task on the demo shop with the scripted model (no key)
  ui                         open a local page to run, watch and steer tasks
  mcp                        serve plannav as an MCP server (stdio, or --http)

Flags:
  -h, --help                 help for plannav or for a command (plannav run --help)
  --version                  the version of plannav

Exit codes: 0 done and successful, 1 failed, 2 bad usage (or a missing API key), 130 cancelled (Ctrl-C).
Docs: docs/guides/cli.md in the package.`,

  run: `Usage: plannav run "<task>" [flags]

Runs the task with a Planner and a Navigator in a browser. Prints a line per plan and per action,
then a summary; the history, a GIF and an HTML report of the run are saved (see --out).
On a terminal: press p to pause, r to resume. Ctrl-C cancels the task (the history is still
saved, exit 130); a second Ctrl-C quits at once. The agent's questions are asked on the terminal.

${runFlags}

Examples:
  plannav run --demo
  plannav run "Find the opening hours of the city library" --model openai:gpt-4.1-mini
  plannav run "Log in and download my last invoice" --model anthropic:claude-sonnet-4-5 \\
    --start-url https://shop.example --allow shop.example --secrets-file .env.shop --out runs/invoice

Exit codes: 0 done and successful, 1 failed, 2 bad usage (or a missing API key), 130 cancelled.`,

  demo: `Usage: plannav demo [flags]

The same as plannav run --demo: serves a small web shop on 127.0.0.1 and runs the demo task
(find the cheapest blue item under $25 in the Kitchen section and add it to the cart) with the
demo's scripted model. No key and no network needed. Takes the flags of plannav run.`,

  replay: `Usage: plannav replay <history.json> [flags]

Runs a saved history again, action by action, without a model.

Flags:
  --var name=value            a value for a recorded field or {{name}} placeholder (repeatable)
  --on-failure stop|skip|ask-model
                              what an action that cannot be done the recorded way does (default stop)
  --model provider:model      the model for --on-failure ask-model
  --headed                    show the browser window
  --demo                      serve the demo shop first and replay on it (for a history of plannav demo)
  --json                      NDJSON events on stdout and a last {"type":"summary",…} line

Exit codes: 0 every action replayed, 1 failed, 2 bad usage, 130 cancelled.`,

  export: `Usage: plannav export <history.json> --playwright [--out file.spec.ts]

Writes a saved history as a Playwright test script (to stdout unless --out).

Flags:
  --playwright                write a Playwright test (the only format, required)
  --out file                  the file to write`,

  report: `Usage: plannav report <history.json> [--out dir]

Writes run.gif and report.html for a saved history (default: beside the history file).

Flags:
  --out dir                   the folder to write them in`,

  ui: `Usage: plannav ui [--port n] [--no-open] [--demo]

Serves a local page on 127.0.0.1 to run tasks, watch each step, pause, resume, stop, answer the
agent's questions and download the run's files. Only the URL printed (with its token) opens it.

Flags:
  --port n                    the port (default: a free one)
  --no-open                   do not open the page in the default browser
  --demo                      serve the demo shop and use its scripted model`,

  mcp: `Usage: plannav mcp [--http] [--port n] [--host h] [--token t] [--demo] [run flags]

Serves plannav as an MCP server: run_task (a whole task), replay_history, export_playwright and
browser tools. stdio by default.

Flags:
  --http                      streamable HTTP at /mcp instead of stdio
  --port n, --host h          where HTTP listens (default 127.0.0.1 and a free port)
  --token t                   the bearer token HTTP requires (or PLANNAV_MCP_TOKEN); required off loopback
  --demo                      serve the demo shop and use its scripted model
  --model, --allow, --deny, --secrets-file, --max-steps, --headed, --cdp-url
                              as for plannav run: the run_task set-up; a caller may narrow, never widen it`,
};
