// The embedded model: it plays the release assistant's side of the conversation without a
// network or an API key. It is a pure function of the transcript (like a real model), so a run
// halted in one process is continued by a fresh one, and the story is the same every time.
import { inProcessModel, type SimpleTurn } from "@toolnexus/client";
import type { AssistantMessage, Message, Model, ToolMessage } from "@toolnexus/core";
import { PREVIOUS_RELEASE, RELEASE } from "./tools.js";

export const SCRIPTED_MODEL_ID = "scripted:release-assistant";

/** The request the demo makes when no `--prompt` is given. */
export const DEFAULT_PROMPT = `Please ship ${RELEASE}. Check that the services are healthy first.`;

/** The instructions a real model gets (the scripted one follows the same plan). */
export const SYSTEM_PROMPT = [
  "You are a release assistant for a small web shop.",
  "Before deploying, call whoami (for the release log) and fetch_status for api and billing.",
  "A status call that times out means the status is unknown, not that the service is down.",
  "Then call deploy with the version; it asks the person which environment.",
  "If the post-deploy check shows a regression, call rollback to the previous release",
  `(${PREVIOUS_RELEASE}); a person approves it. Finish with a short summary.`,
].join(" ");

interface Turn {
  assistant: AssistantMessage;
  results: Map<string, ToolMessage>;
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
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === "user") return /\b\d+\.\d+\.\d+\b/.exec(message.content)?.[0] ?? RELEASE;
  }
  return RELEASE;
}

/** The next turn of the scripted assistant, decided from what the tools answered so far. */
export function nextTurn(messages: readonly Message[]): SimpleTurn {
  const turns = turnsSinceUser(messages);
  const version = requestedVersion(messages);
  const n = turns.length + 1;
  const id = (i: number) => `call_${n}_${i}`;
  const last = turns.at(-1);

  if (last === undefined) {
    return {
      id: `msg_${n}`,
      content: `Before I touch anything I'll note who I'm acting as and check api and billing, the two services ${version} changes.`,
      toolCalls: [
        { id: id(1), name: "whoami", arguments: {} },
        { id: id(2), name: "fetch_status", arguments: { service: "api" } },
        { id: id(3), name: "fetch_status", arguments: { service: "billing" } },
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
    return {
      id: `msg_${n}`,
      content: `Acting as ${me?.content ?? "an unknown agent"}. ${api.isError ? `api could not be checked (${api.content})` : `api looks fine (${api.content})`}; ${billingLine}. Deploying ${version} needs a target environment, so I'm asking you.`,
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
        ? `Rollback not done: ${rolledBack.content.startsWith("declined/expired") ? "you declined it" : rolledBack.content}. ${version} stays on ${env}; keep an eye on checkout latency, and ask me again if it gets worse.`
        : `Done. ${version} went to ${env}, the checkout latency regression showed up in the post-deploy check, and ${env} is back on ${PREVIOUS_RELEASE} (${rolledBack.content}). Billing's status is still unknown; worth a look before the next attempt.`,
    };
  }

  return { id: `msg_${n}`, content: "I have nothing more to do for this request." };
}

/** The embedded model, as a Model the client can drive. */
export function scriptedReleaseModel(): Model {
  return inProcessModel({ id: SCRIPTED_MODEL_ID, generate: ({ messages }) => nextTurn(messages) });
}
