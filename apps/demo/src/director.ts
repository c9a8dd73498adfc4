// The embedded model: it plays the release assistant's side of the conversation without a
// network or an API key. It is a pure function of the transcript (like a real model), so a run
// halted in one process is continued by a fresh one, and the story is the same every time.
import { inProcessModel, type SimpleTurn } from "@toolnexus/client";
import type { AssistantMessage, Message, Model, ToolMessage } from "@toolnexus/core";
import { PREVIOUS_RELEASE, RELEASE } from "./tools.js";

/** The sub-agent's tool, as the release assistant calls it. */
export const NOTES_TOOL = "write_release_notes";

export const SCRIPTED_MODEL_ID = "scripted:release-assistant";

/** The request the demo makes when no `--prompt` is given. */
export const DEFAULT_PROMPT = `Please ship ${RELEASE}. Check that the services are healthy first.`;

/** The instructions a real model gets (the scripted one follows the same plan). */
export const SYSTEM_PROMPT = [
  "You are a release assistant for a small web shop.",
  "Before deploying, call whoami (for the release log) and fetch_status for api and billing.",
  "A status call that times out means the status is unknown, not that the service is down.",
  `At the same time, call ${NOTES_TOOL} with the version: a sub-agent, the changelog writer, drafts the`,
  "release notes (pass publish: true only when the person asked for the notes to be published).",
  "Then call deploy with the version; it asks the person which environment.",
  "If the post-deploy check shows a regression, call rollback to the previous release",
  `(${PREVIOUS_RELEASE}); a person approves it. Finish with a short summary.`,
].join(" ");

interface Turn {
  assistant: AssistantMessage;
  results: Map<string, ToolMessage>;
}

/** The changelog writer's instructions (a real model gets them; the scripted one follows them). */
export const NOTES_SYSTEM_PROMPT = [
  "You are the changelog writer, a sub-agent of a release assistant.",
  "Call list_changes for the version, then write short release notes from what it returns.",
  "Only when you are asked to publish them, call publish_notes; a person approves it.",
  "Answer with the notes, and say whether they were published.",
].join(" ");

/** Whether the person asked for the release notes to be published, not just written. */
export function asksToPublish(text: string): boolean {
  return /\bpublish/i.test(text) && /\b(notes|changelog)\b/i.test(text);
}

function lastUserText(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === "user") return message.content;
  }
  return "";
}

/** The assistant turns since the last user message, each with its tool results by name. */
function turnsSinceUser(messages: readonly Message[]): Turn[] {
  let start = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === "user") {
      start = i + 1;
      break;
    }
  }
  const turns: Turn[] = [];
  for (const message of messages.slice(start)) {
    if (message.role === "assistant") turns.push({ assistant: message, results: new Map() });
    else if (message.role === "tool") {
      const turn = turns.at(-1);
      const call = turn?.assistant.toolCalls?.find((c) => c.id === message.callId);
      if (turn !== undefined && call !== undefined) {
        const key = call.name === "fetch_status" ? `fetch_status:${call.args.service}` : call.name;
        turn.results.set(key, message);
      }
    }
  }
  return turns;
}

function requestedVersion(messages: readonly Message[]): string {
  return /\b\d+\.\d+\.\d+\b/.exec(lastUserText(messages))?.[0] ?? RELEASE;
}

/** The next turn of the scripted assistant, decided from what the tools answered so far. */
export function nextTurn(messages: readonly Message[]): SimpleTurn {
  const turns = turnsSinceUser(messages);
  const version = requestedVersion(messages);
  const n = turns.length + 1;
  const id = (i: number) => `call_${n}_${i}`;
  const last = turns.at(-1);

  if (last === undefined) {
    const publish = asksToPublish(lastUserText(messages));
    return {
      id: `msg_${n}`,
      content: `Before I touch anything I'll note who I'm acting as and check api and billing, the two services ${version} changes. Meanwhile the changelog writer drafts the release notes${publish ? " and publishes them, as you asked" : ""}.`,
      toolCalls: [
        { id: id(1), name: "whoami", arguments: {} },
        { id: id(2), name: "fetch_status", arguments: { service: "api" } },
        { id: id(3), name: "fetch_status", arguments: { service: "billing" } },
        {
          id: id(4),
          name: NOTES_TOOL,
          arguments: publish ? { version, publish: true } : { version },
        },
      ],
    };
  }

  const api = last.results.get("fetch_status:api");
  if (api !== undefined) {
    const billing = last.results.get("fetch_status:billing");
    const me = last.results.get("whoami");
    const billingLine =
      billing === undefined || billing.isError
        ? `billing did not answer in time (${billing?.content ?? "no result"}), so its status is unknown rather than down; ${version} only touches its read path, so I'll go ahead`
        : `billing says: ${billing.content}`;
    const notes = last.results.get(NOTES_TOOL);
    const notesLine =
      notes === undefined
        ? ""
        : notes.isError
          ? ` The release notes are not written (${notes.content}).`
          : ` The changelog writer's notes are ready${/\bPublished at\b/.test(notes.content) ? " and published" : ""}.`;
    return {
      id: `msg_${n}`,
      content: `Acting as ${me?.content ?? "an unknown agent"}. ${api.isError ? `api could not be checked (${api.content})` : `api looks fine (${api.content})`}; ${billingLine}.${notesLine} Deploying ${version} needs a target environment, so I'm asking you.`,
      toolCalls: [{ id: id(1), name: "deploy", arguments: { version } }],
    };
  }

  const deployed = last.results.get("deploy");
  if (deployed !== undefined) {
    if (deployed.isError) {
      return {
        id: `msg_${n}`,
        content: deployed.content.startsWith("declined/expired")
          ? `Understood: ${version} was not deployed. Nothing changed anywhere.`
          : `The deploy did not go through (${deployed.content}). Nothing was changed; tell me how you'd like to proceed.`,
      };
    }
    const env = /deployed \S+ to (\w+)/.exec(deployed.content)?.[1] ?? "staging";
    return {
      id: `msg_${n}`,
      content: `${version} is live on ${env}, but the post-deploy check shows checkout p95 at 412ms against a 300ms objective. I recommend rolling ${env} back to ${PREVIOUS_RELEASE}; that needs your approval.`,
      toolCalls: [{ id: id(1), name: "rollback", arguments: { env, to: PREVIOUS_RELEASE } }],
    };
  }

  const rolledBack = last.results.get("rollback");
  if (rolledBack !== undefined) {
    const env = String(last.assistant.toolCalls?.[0]?.args.env ?? "staging");
    return {
      id: `msg_${n}`,
      content: rolledBack.isError
        ? `Rollback not done: ${rolledBack.content.startsWith("declined/expired") ? "it was not approved" : rolledBack.content}. ${version} stays on ${env}; keep an eye on checkout latency, and ask me again if it gets worse.`
        : `Done. ${version} went to ${env}, the checkout latency regression showed up in the post-deploy check, and ${env} is back on ${PREVIOUS_RELEASE} (${rolledBack.content}). Billing's status is still unknown; worth a look before the next attempt.`,
    };
  }

  return { id: `msg_${n}`, content: "I have nothing more to do for this request." };
}

/**
 * The changelog writer's next turn: read what changed, publish when it was asked to (the
 * approval goes up to the person through the release assistant), then answer with the notes.
 */
export function notesTurn(messages: readonly Message[]): SimpleTurn {
  const asked = lastUserText(messages);
  const version = requestedVersion(messages);
  const results = new Map<string, ToolMessage>();
  for (const turn of turnsSinceUser(messages)) {
    for (const [name, message] of turn.results) results.set(name, message);
  }
  const n = turnsSinceUser(messages).length + 1;
  const id = `notes_msg_${n}`;
  const changes = results.get("list_changes");
  if (changes === undefined) {
    return {
      id,
      content: `Reading what changed in ${version} since ${PREVIOUS_RELEASE}.`,
      toolCalls: [{ id: `notes_call_${n}_1`, name: "list_changes", arguments: { version } }],
    };
  }
  if (changes.isError)
    return { id, content: `No notes: the changes could not be read (${changes.content}).` };
  const published = results.get("publish_notes");
  if (asksToPublish(asked) && published === undefined) {
    return {
      id,
      content: `The ${version} notes are drafted; publishing them needs a person's approval.`,
      toolCalls: [{ id: `notes_call_${n}_1`, name: "publish_notes", arguments: { version } }],
    };
  }
  const lines = changes.content.slice(changes.content.indexOf(": ") + 2);
  const outcome =
    published === undefined
      ? ""
      : published.isError
        ? ` Not published: ${published.content.startsWith("declined/expired") ? "the person declined" : published.content}.`
        : ` Published at ${/https:\S+/.exec(published.content)?.[0] ?? "the changelog"}.`;
  return { id, content: `Release notes for ${version}: ${lines}.${outcome}` };
}

/** One scripted turn for whichever agent is asking: the changelog writer or the assistant. */
export function scriptedTurn(messages: readonly Message[]): SimpleTurn {
  const first = messages[0];
  return first?.role === "system" && first.content === NOTES_SYSTEM_PROMPT
    ? notesTurn(messages)
    : nextTurn(messages);
}

/** The embedded model, as a Model the client can drive (both agents share it). */
export function scriptedReleaseModel(): Model {
  return inProcessModel({
    id: SCRIPTED_MODEL_ID,
    generate: ({ messages }) => scriptedTurn(messages),
  });
}
