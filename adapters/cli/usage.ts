// The usage text of every command, and how a usage error is reported: one place, so `toolfs --help`, `toolfs acp
// --help`, `toolfs mcp --help` and every usage error show the same text.
import { COMPOSITIONS } from "../acp/composition.ts";
import type { CliHost } from "./host.ts";

/** The environment variable that holds the bearer token HTTP clients must send. */
export const TOKEN_VARIABLE = "TOOLFS_MCP_TOKEN";

/** The lines `toolfs --help` shows for mcp: the command, and its options. */
export const MCP_USAGE: { readonly command: string; readonly options: string } = {
  command: `  toolfs mcp [--root DIR]... [--backend node|memory|overlay] [--http HOST:PORT] [sandbox options]
                              serve the tools over the Model Context Protocol (stdio unless --http)`,
  options: `mcp options:
  --root DIR            a workspace root (repeatable; the first is where relative paths start, and a path in
                        another is written NAME/path, NAME being its folder's name); without one, the
                        client's roots are used
  --sandbox MODE        read-only | workspace-write (default: writes inside the roots and temp directories)
                        | full-access
  --read-scope SCOPE    workspace (the default for mcp, as the reference filesystem server: read, glob, grep
                        and bash see only the roots and temp directories) | anywhere (the default under
                        full-access)
  --deny GLOB, --network, --bash-env NAME   as above
                        bash (node backend) runs confined by bubblewrap, or is not offered where it cannot be;
                        only full-access without --deny or --read-scope workspace runs it unconfined
  --backend overlay     writes are kept in memory, apart from the files: the client reads them as the resource
                        toolfs://overlay/changes.patch, and the commit tool applies them once the user approves
  --http HOST:PORT      Streamable HTTP at http://HOST:PORT/mcp (HOST defaults to 127.0.0.1); a non-loopback
                        HOST requires ${TOKEN_VARIABLE}, the bearer token every request must carry
  --max-message-bytes N the longest message read: a stdio line (default 10 MiB; longer is answered -32600)
                        or an HTTP request body (default 4 MiB; larger gets 413)
  --max-sessions N      with --http: sessions open at once (default 256); a new one closes the one idle
                        longest, and gets 503 only when every session is busy
  --idle-timeout SECONDS  with --http: a session idle this long is closed (default 1800)`,
};

/** The whole usage text. */
export const USAGE: string = `Usage:
  toolfs <tool> '<json args>' [<tool> '<json args>' ...] [options]
  toolfs tools [options]      print the tool definitions as JSON
  toolfs prompt [options]     print the system-prompt guidance
  toolfs acp [--composition NAME] (--model PROVIDER:MODEL | --script FILE) [acp options]
                              serve an Agent Client Protocol agent on stdin/stdout (logs go to stderr)
${MCP_USAGE.command}

Runs the calls in order, in one session (a read authorizes a later edit), and prints what the model sees.
apply_patch, delete and move run when a call names them (toolfs tools lists the default set).

Options:
  --root DIR            workspace and working directory (default: the current directory)
  --backend node|memory|overlay
                        memory loads DIR into an in-memory volume first; nothing is written back.
                        overlay reads DIR where nothing was written and keeps every write in memory; after
                        the calls it prints the changes as a patch, and leaves DIR as it was
  --commit              with --backend overlay: then apply the changes to DIR, each only if nobody changed
                        that file meanwhile (otherwise nothing is applied and the conflicts are listed)
  --sandbox MODE        read-only | workspace-write | full-access (default: no sandbox); under read-only and
                        workspace-write, bash runs confined by bubblewrap, or is not offered where it cannot be
  --read-scope SCOPE    anywhere (default) | workspace: read, glob, grep and bash see only the workspace and
                        the writable roots
  --deny GLOB           a path no tool may read or write and bash cannot see, in every mode (.env, *.pem,
                        ~/.ssh, /abs/path); repeat for more
  --network             let a confined bash use the network (default: none)
  --bash-env NAME       a variable bash inherits besides PATH, HOME, USER, SHELL, LANG, LC_*, TERM, TZ, TMPDIR
                        (the rest of the environment, API keys included, is left out); NAME_* for a prefix,
                        * for everything; repeat for more
  --approve yes|no      answer sandbox escalation requests without asking
  --json                one JSON result per call, one per line
  --help                this text

acp options:
  --composition NAME    the tools and limits offered: ${Object.keys(COMPOSITIONS).join(", ")} (default bash-glob-grep)
  --model PROVIDER:MODEL  openai:MODEL (any Chat Completions server) or anthropic:MODEL
  --base-url URL        the API root, e.g. http://127.0.0.1:8080/v1 for a local server
  --api-key-env NAME    read the key from NAME (default OPENAI_API_KEY or ANTHROPIC_API_KEY;
                        with --base-url and no key set, none is sent)
  --context-window N    the model's window in tokens (default 128000 openai, 200000 anthropic)
  --max-tokens N        the longest reply in tokens (anthropic default 8192)
  --max-steps N         model requests per prompt before it stops (default 64)
  --permission-mode M   ask (default): ask before every write, edit and bash; allow-edits: ask before bash;
                        allow-all: never ask
  --script FILE         replay this model script (JSON: {"turns": [...]}) instead of calling a model
  --backend overlay     each session's writes stay in memory until the user types /commit; /changes shows
                        them as a patch, /undo takes back the last turn; bash is not offered
  --sandbox, --read-scope, --deny, --network, --bash-env   as above, for every session

${MCP_USAGE.options}

Example:
  toolfs read '{"path":"README.md"}' edit '{"path":"README.md","old_string":"a","new_string":"b"}'`;

/** Reports a usage error on stderr, with the usage text; resolves to the status, 2. */
export function usage(host: CliHost, message: string): number {
  host.err(`toolfs: ${message}\n\n${USAGE}\n`);
  return 2;
}
