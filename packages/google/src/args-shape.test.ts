// A `functionCall` whose `args` is not an object (a string, an array, a number), as a gateway or
// a model's malformed output may send it: the call keeps the value's JSON in `rawArgs` and gets
// an `argsError`, as the other adapters do, instead of running with `args: {}`. The recorded
// Gemini 3 tool call (src/__fixtures__) with its `args` replaced, served from a local server.
import type { ModelRequest, ModelResponse, ModelStreamPart } from "@toolnexus/core";
import { mockServerPerTest } from "@toolnexus/provider-utils/testing";
import { afterEach, describe, expect, it } from "vitest";
import { google } from "./model.js";
import { fixture, geminiEvent } from "./test-fixtures.js";

const mock = mockServerPerTest(afterEach);
const model = () =>
  google({
    model: "gemini-3-pro-preview",
    baseUrl: `${mock.server?.url}/v1beta`,
    apiKey: "AIzaSyTest-kit-0123456789abcdefghijklmn",
    retryBaseMs: 1,
    retries: 0,
  });
const ASK: ModelRequest = { messages: [{ role: "user", content: "Weather in SF?" }], tools: [] };

interface Reply {
  candidates: { content: { parts: { functionCall: { name: string; args?: unknown } }[] } }[];
}

/** The recorded tool call with `args` replaced (`undefined`: left out). */
function replyWithArgs(args: unknown): Reply {
  const reply = JSON.parse(fixture("google-tool-call-gemini3.json")) as Reply;
  const call = reply.candidates[0]!.content.parts[0]!.functionCall;
  if (args === undefined) delete call.args;
  else call.args = args;
  return reply;
}

async function parts(stream: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const seen: ModelStreamPart[] = [];
  for await (const part of stream) seen.push(part);
  return seen;
}

function finishOf(seen: ModelStreamPart[]): ModelResponse {
  const last = seen.at(-1);
  if (last?.type !== "finish") throw new Error("no finish part");
  return last.response;
}

const cases = [
  ["a string", '{"location":"SF"}', '"{\\"location\\":\\"SF\\"}"'],
  ["an array", ["SF"], '["SF"]'],
  ["a number", 5, "5"],
] as const;

describe("functionCall args that are not an object", () => {
  for (const [what, args, raw] of cases) {
    it(`generate: args ${what} gives an argsError, the JSON kept in rawArgs`, async () => {
      await mock.serve([{ json: replyWithArgs(args) }]);
      const response = await model().generate(ASK);
      expect(response.toolCalls).toHaveLength(1);
      expect(response.toolCalls[0]).toMatchObject({
        name: "weather",
        args: {},
        rawArgs: raw,
        argsError: "arguments must be a JSON object",
      });
    });

    it(`stream: args ${what} gives an argsError, the JSON kept in rawArgs`, async () => {
      await mock.serve([{ chunks: [geminiEvent(replyWithArgs(args))] }]);
      const seen = await parts(model().stream!(ASK));
      const calls = seen.flatMap((p) => (p.type === "tool_call" ? [p.call] : []));
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({
        rawArgs: raw,
        argsError: "arguments must be a JSON object",
      });
      expect(finishOf(seen).toolCalls).toEqual(calls);
    });
  }

  it("args left out is a call without arguments, no argsError", async () => {
    await mock.serve([{ json: replyWithArgs(undefined) }]);
    const [call] = (await model().generate(ASK)).toolCalls;
    expect(call).toMatchObject({ args: {}, rawArgs: "{}" });
    expect(call?.argsError).toBeUndefined();
  });
});
