// The release assistant's four tools. They are ordinary native tools: the same definitions run
// under the embedded scripted model, under a real provider, in the terminal and in the browser.
import { type JSONSchema, pending, type Tool, type ToolContext } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";
import { z } from "zod";

/** Something a tool noticed while it worked, for the terminal to show under its call. */
export interface ToolNote {
  tool: string;
  callId: string | undefined;
  kind: "context" | "info" | "cancelled";
  text: string;
  /** The context as the tool saw it (only on `kind: "context"`). */
  ctx?: ToolContext;
}

export type Observe = (note: ToolNote) => void;

/** The release every scene ships, and the one a rollback goes back to. */
export const RELEASE = "2.4.1";
export const PREVIOUS_RELEASE = "2.4.0";
export const ENVIRONMENTS = ["staging", "production"] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** fetch_status's own budget: the loop stops any status call still running after this long. */
export const STATUS_TIMEOUT_MS = 1000;

/** What `deploy` asks for, as JSON Schema: the browser builds its form from it, the terminal its prompts. */
export const DEPLOY_ANSWER_SCHEMA: JSONSchema = {
  type: "object",
  properties: {
    env: {
      type: "string",
      title: "Environment",
      description: "Where the release goes",
      enum: [...ENVIRONMENTS],
      default: "staging",
    },
    notify: {
      type: "boolean",
      title: "Announce in #releases",
      default: true,
    },
  },
  required: ["env"],
  additionalProperties: false,
};

/** How long a person has to pick the environment before the request expires. */
export const DEPLOY_ANSWER_WINDOW_MS = 30 * 60_000;

interface ServiceStatus {
  service: string;
  state: "healthy" | "degraded";
  version: string;
  p95Ms: number;
  errorRate: string;
}

/**
 * The status endpoints the assistant checks, simulated in-process so the demo needs no network:
 * `api` and `checkout` answer quickly; `billing` hangs (as a stuck upstream does) and only
 * stops when the caller gives up.
 */
const UPSTREAM: Record<string, { latencyMs: number; status?: ServiceStatus }> = {
  api: {
    latencyMs: 60,
    status: { service: "api", state: "healthy", version: "2.4.0", p95Ms: 180, errorRate: "0.1%" },
  },
  checkout: {
    latencyMs: 90,
    status: {
      service: "checkout",
      state: "healthy",
      version: "2.4.0",
      p95Ms: 240,
      errorRate: "0.3%",
    },
  },
  billing: { latencyMs: Number.POSITIVE_INFINITY },
};

/** Asks a simulated status endpoint; rejects with the signal's reason when it aborts. */
function queryStatus(service: string, signal: AbortSignal | undefined): Promise<ServiceStatus> {
  const upstream = UPSTREAM[service];
  if (upstream === undefined) {
    return Promise.reject(
      new Error(`unknown service "${service}"; known: ${Object.keys(UPSTREAM).join(", ")}`),
    );
  }
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      if (timer !== undefined) clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    if (Number.isFinite(upstream.latencyMs) && upstream.status !== undefined) {
      const status = upstream.status;
      timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve(status);
      }, upstream.latencyMs);
    }
    // billing: no timer at all. Only the abort ends the wait, so the demo shows that the loop's
    // budget, not the tool's goodwill, is what stops a hung call.
  });
}

function reasonOf(reason: unknown): string {
  if (reason instanceof Error) return `${reason.name}: ${reason.message}`;
  return String(reason);
}

/** The deploy's post-release check, deterministic so every run of the demo tells the same story. */
function postDeployCheck(env: string): string {
  return `post-deploy check on ${env}: checkout p95 is 412ms (was 240ms on ${PREVIOUS_RELEASE}), above the 300ms objective; error rate 0.4%`;
}

/**
 * Builds the four tools. `observe` receives what each tool sees and does (its context, its
 * budget, a cancellation), so the terminal can show the tool's side of every call.
 */
export function releaseTools(observe: Observe = () => {}): Tool[] {
  const note = (
    tool: string,
    ctx: ToolContext,
    kind: ToolNote["kind"],
    text: string,
    withCtx = false,
  ) => {
    const entry: ToolNote = { tool, callId: ctx.callId, kind, text };
    if (withCtx) entry.ctx = ctx;
    observe(entry);
  };

  const whoami = nativeTool({
    name: "whoami",
    description:
      "Report which agent is acting and in which session (agent@session), for the release log.",
    ctx: true,
    run: (_args, ctx) => {
      note("whoami", ctx, "context", "sees", true);
      return `${ctx.agent ?? "unknown-agent"}@${ctx.sessionId ?? "no-session"}`;
    },
  });

  const fetchStatus = nativeTool({
    name: "fetch_status",
    description: `Fetch the health of one service (${Object.keys(UPSTREAM).join(", ")}): state, running version, p95 latency and error rate.`,
    input: z.object({
      service: z.string().describe("The service to check, e.g. api or billing"),
    }),
    timeoutMs: STATUS_TIMEOUT_MS,
    ctx: true,
    run: async ({ service }, ctx) => {
      note("fetch_status", ctx, "context", "sees", true);
      // Honour the budget: tell the endpoint how long we can wait, and stop when the signal aborts.
      const budget = ctx.timeout;
      note(
        "fetch_status",
        ctx,
        "info",
        budget === undefined
          ? `asking ${service} for its status (no budget set)`
          : `asking ${service} for its status, deadline ${budget}ms (from ctx.timeout)`,
      );
      const started = performance.now();
      try {
        const status = await queryStatus(service, ctx.signal);
        return `${status.service}: ${status.state}, running ${status.version}, p95 ${status.p95Ms}ms, error rate ${status.errorRate}`;
      } catch (thrown) {
        if (ctx.signal?.aborted) {
          const waited = Math.round(performance.now() - started);
          note(
            "fetch_status",
            ctx,
            "cancelled",
            `ctx.signal aborted after ${waited}ms (${reasonOf(ctx.signal.reason)}): dropped the request to ${service}`,
          );
        }
        throw thrown;
      }
    },
  });

  const deploy = nativeTool({
    name: "deploy",
    description:
      "Deploy a release. Asks the person which environment (staging or production) before it does anything.",
    input: z.object({
      version: z.string().describe("The release to deploy, e.g. 2.4.1"),
    }),
    ctx: true,
    run: ({ version }, ctx) => {
      note("deploy", ctx, "context", "sees", true);
      const answer = ctx.answer;
      if (answer === undefined) {
        return pending({
          kind: "input",
          prompt: `Which environment should ${version} go to?`,
          data: { schema: DEPLOY_ANSWER_SCHEMA, version },
          expiresAt: Date.now() + DEPLOY_ANSWER_WINDOW_MS,
        });
      }
      const env = answer.data?.env;
      if (typeof env !== "string" || !(ENVIRONMENTS as readonly string[]).includes(env)) {
        throw new Error(
          `cannot deploy to ${JSON.stringify(env)}: choose one of ${ENVIRONMENTS.join(", ")}`,
        );
      }
      note("deploy", ctx, "info", `ctx.answer picked ${env}; deploying ${version}`);
      const announced = answer.data?.notify === false ? "" : "; announced in #releases";
      return `deployed ${version} to ${env}${announced}. ${postDeployCheck(env)}`;
    },
  });

  const rollback = nativeTool({
    name: "rollback",
    description:
      "Roll an environment back to an earlier release. A person must approve every rollback.",
    input: z.object({
      env: z.enum(ENVIRONMENTS).describe("The environment to roll back"),
      to: z.string().describe("The release to go back to, e.g. 2.4.0"),
    }),
    needsApproval: true,
    // No `ctx: true`: a plain function gets exactly its arguments; the loop asks for approval.
    run: ({ env, to }) => `rolled ${env} back to ${to}; checkout p95 is 236ms again`,
  });

  return [whoami, fetchStatus, deploy, rollback];
}

/** The changes merged since the previous release, as the changelog writer's `list_changes` reads them. */
export const CHANGES: readonly string[] = [
  "checkout: batch the cart's price lookups (#412)",
  "api: cache product images for a day (#418)",
  "billing: read invoices from the replica (#421)",
];

/** Where `publish_notes` puts the notes (simulated: nothing leaves the process). */
export function changelogUrl(version: string): string {
  return `https://shop.example/changelog/${version}`;
}

/**
 * The changelog writer's own tools (the sub-agent behind `write_release_notes`): it reads what
 * changed, and publishes the notes only with a person's approval. Its tools see their own agent
 * in `ctx.agent`, and the assistant's session.
 */
export function changelogTools(): Tool[] {
  const listChanges = nativeTool({
    name: "list_changes",
    description: `List the changes merged since the previous release (${PREVIOUS_RELEASE}), one line each.`,
    input: z.object({ version: z.string().describe("The release, e.g. 2.4.1") }),
    run: ({ version }) =>
      `${CHANGES.length} changes in ${version} since ${PREVIOUS_RELEASE}: ${CHANGES.join("; ")}`,
  });

  const publishNotes = nativeTool({
    name: "publish_notes",
    description:
      "Publish the release notes of a version to the public changelog page. A person must approve it.",
    input: z.object({ version: z.string().describe("The release whose notes to publish") }),
    needsApproval: true,
    run: ({ version }) => `published the ${version} notes at ${changelogUrl(version)}`,
  });

  return [listChanges, publishNotes];
}
