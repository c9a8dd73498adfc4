// Tools the tests serve: each one exercises one part of the contract.
import { pending, type Tool } from "@toolnexus/core";
import { nativeTool } from "@toolnexus/native";

export const SECRET = "sk-live-do-not-leak-4242";

export function testTools(
  log: string[] = [],
  hooks: { started?: () => void; aborted?: () => void } = {},
): Tool[] {
  return [
    nativeTool({
      name: "add",
      description: "Add two numbers",
      input: {
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
      },
      run: (args) => Number(args.a) + Number(args.b),
    }),
    nativeTool({
      name: "deploy",
      description: "Deploy a service, asking which environment first",
      input: { type: "object", properties: { service: { type: "string" } }, required: ["service"] },
      ctx: true,
      run: (args, ctx) => {
        const service = String(args.service);
        if (ctx.answer === undefined) {
          return pending({
            kind: "input",
            prompt: `Which environment should ${service} go to?`,
            data: {
              schema: {
                type: "object",
                properties: { env: { type: "string", enum: ["staging", "production"] } },
                required: ["env"],
              },
            },
            state: { service, nonce: "n-42" },
          });
        }
        log.push(`deploy ${service} ${String(ctx.answer.data?.env)} pid ${process.pid}`);
        return `deployed ${service} to ${String(ctx.answer.data?.env)} (state ${JSON.stringify(ctx.resumeState)})`;
      },
    }),
    {
      ...nativeTool({
        name: "wipe",
        description: "Wipe a disk (asks for approval first)",
        input: { type: "object", properties: { disk: { type: "string" } }, required: ["disk"] },
        run: (args) => `wiped ${String(args.disk)}`,
      }),
      needsApproval: true,
      approvalPrompt: (args: Record<string, unknown>) => `Wipe ${String(args.disk)}?`,
    },
    nativeTool({
      name: "login",
      description: "Needs the user to sign in at a link",
      ctx: true,
      run: (_args, ctx) =>
        ctx.answer === undefined
          ? pending({
              kind: "authorization",
              prompt: "Sign in to Acme",
              url: "https://acme.example/authorize?x=1",
            })
          : "signed in",
    }),
    nativeTool({
      name: "count",
      description: "Counts to n, reporting progress",
      input: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
      ctx: true,
      run: (args, ctx) => {
        const n = Number(args.n);
        for (let i = 1; i <= n; i++) ctx.progress?.({ progress: i, total: n, message: `at ${i}` });
        return `counted to ${n}`;
      },
    }),
    {
      ...nativeTool({
        name: "guarded",
        description: "Its approval rule asks a policy service, which fails quoting its key",
        run: () => "guarded ran",
      }),
      needsApproval: () => {
        throw new Error(`policy service refused key ${SECRET}`);
      },
    },
    {
      name: "report",
      description: `Makes a report (key ${SECRET})`,
      source: "custom",
      inputSchema: {
        type: "object",
        properties: { key: { type: "string", default: SECRET, description: `e.g. ${SECRET}` } },
      },
      execute: async () => ({
        output: "report ready",
        isError: false,
        parts: [
          {
            type: "resource",
            uri: `https://files.example/report.pdf?api_key=${SECRET}`,
            mimeType: "application/pdf",
          },
          {
            type: "resource",
            uri: `https://files.example/r.txt?api_key=${SECRET}`,
            text: `body ${SECRET}`,
          },
        ],
      }),
    },
    nativeTool({
      name: "leaky",
      description: "Fails with a message that quotes its API key",
      run: () => {
        throw new Error(`upstream refused key ${SECRET}`);
      },
    }),
    nativeTool({
      name: "whoami",
      description: "Says what the call's context knows about the caller",
      ctx: true,
      run: (_args, ctx) =>
        JSON.stringify({ mcp: ctx.extra?.mcp, timeout: ctx.timeout, callId: typeof ctx.callId }),
    }),
    nativeTool({
      name: "hang",
      description: "Never finishes unless its signal aborts",
      ctx: true,
      run: (_args, ctx) =>
        new Promise<string>((_resolve, reject) => {
          hooks.started?.();
          ctx.signal?.addEventListener("abort", () => {
            hooks.aborted?.();
            reject(new Error("aborted"));
          });
        }),
    }),
  ];
}
