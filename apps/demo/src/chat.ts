// The chat's two protocols over the demo's store: the AI SDK's UI message stream for the page's
// `useChat` (under /api/chat) and AG-UI for any AG-UI client (POST /api/agent). Both start a run
// through the inbox (it runs here to its first halt) and then only follow the store: the worker
// process continues the run once someone answers, and the stream shows it as it is recorded.
import { createAgUiHandler, promptOf } from "@toolnexus/ag-ui";
import { createChatHandler } from "@toolnexus/ai-sdk";
import type { SqliteStore } from "@toolnexus/store-sqlite";
import { WebError } from "@toolnexus/web";
import type { Inbox } from "./inbox.js";
import { isSubAgentRun } from "./setup.js";

/** Where `useChat`'s DefaultChatTransport posts (and resumes from `/api/chat/:id/stream`). */
export const CHAT_API = "/api/chat";
/** Where an AG-UI client (HttpAgent) posts its RunAgentInput. */
export const AG_UI_PATH = "/api/agent";
/** The longest prompt the page may send (the scripted model reads only the version in it). */
const MAX_PROMPT_CHARS = 4000;

type Handler = (request: Request) => Promise<Response>;

/** Who may do what: the one local person, everything but answering inside a sub-agent's run. */
function allow(_caller: unknown, access: { action: string; runId?: string }): boolean {
  return !(access.action === "answer" && access.runId !== undefined && isSubAgentRun(access.runId));
}

function log500(log: (text: string) => void) {
  return (error: unknown, { errorId }: { errorId: string }) =>
    log(`✗ ${errorId}: ${error instanceof Error ? error.message : String(error)}`);
}

export function chatHandler(
  inbox: Inbox,
  store: SqliteStore,
  identity: string,
  log: (text: string) => void,
): Handler {
  return createChatHandler({
    store,
    api: CHAT_API,
    identify: () => ({ id: identity }),
    allow,
    maxPromptChars: MAX_PROMPT_CHARS,
    start: ({ prompt }) => {
      if (prompt.trim() === "") throw new WebError(400, "bad_request", "say what to release");
      return { runId: inbox.start(prompt).runId };
    },
    onError: log500(log),
  });
}

export function agUiHandler(
  inbox: Inbox,
  store: SqliteStore,
  identity: string,
  log: (text: string) => void,
): Handler {
  return createAgUiHandler({
    store,
    path: AG_UI_PATH,
    identify: () => ({ id: identity }),
    allow,
    start: ({ input }) => {
      const prompt = promptOf(input);
      if (prompt.trim() === "" || prompt.length > MAX_PROMPT_CHARS) {
        throw new WebError(
          400,
          "bad_request",
          `say what to release, in at most ${MAX_PROMPT_CHARS} characters`,
        );
      }
      return { runId: inbox.start(prompt).runId };
    },
    onError: log500(log),
  });
}
