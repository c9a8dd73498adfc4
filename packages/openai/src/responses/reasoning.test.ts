// Reasoning summaries of the Responses API (`reasoning` items' `summary_text` parts and
// `response.reasoning_summary_text.delta` events) as the response's `reasoning` and as
// `reasoning` stream parts. The recorded reply (./__fixtures__/responses-reasoning.json), and a
// stream of it built with the SDK's event types, served from a local server.
import type { ModelRequest, ModelResponse, ModelStreamPart } from "@toolnexus/core";
import { mockServerPerTest } from "@toolnexus/provider-utils/testing";
import type {
  Response,
  ResponseReasoningItem,
  ResponseStreamEvent,
} from "openai/resources/responses/responses";
import { afterEach, describe, expect, it } from "vitest";
import { openaiResponses } from "../index.js";
import { fixture } from "./test-fixtures.js";

const mock = mockServerPerTest(afterEach);
const model = () =>
  openaiResponses({
    model: "gpt-5-mini",
    baseUrl: `${mock.server?.url}/v1`,
    apiKey: "sk-test-responses",
    retryBaseMs: 1,
  });
const ASK: ModelRequest = { messages: [{ role: "user", content: "Compute it" }], tools: [] };

const recorded = () => JSON.parse(fixture("responses-reasoning.json")) as Response;
const reasoningItem = (body: Response) => body.output[0] as ResponseReasoningItem;

/** The recorded reply with a second summary part, as the API sends a multi-part summary. */
function twoPartReply(): Response {
  const body = recorded();
  reasoningItem(body).summary.push({
    type: "summary_text",
    text: "**Checking**\n\n19 × 30 = 570.",
  });
  return body;
}

/** The reply streamed as the API streams it: the reasoning summary deltas, then the message. */
function streamOf(body: Response): string {
  const item = reasoningItem(body);
  const message = body.output[1]!;
  const events: ResponseStreamEvent[] = [];
  let n = 0;
  const seq = () => n++;
  const inProgress = { ...body, status: "in_progress", output: [] } as Response;
  events.push({ type: "response.created", sequence_number: seq(), response: inProgress });
  events.push({
    type: "response.output_item.added",
    sequence_number: seq(),
    output_index: 0,
    item: { ...item, summary: [] },
  });
  item.summary.forEach((part, summary_index) => {
    const common = { item_id: item.id, output_index: 0, summary_index };
    events.push({
      type: "response.reasoning_summary_part.added",
      sequence_number: seq(),
      ...common,
      part: { type: "summary_text", text: "" },
    });
    // Cut in three, as the API streams a summary in many small deltas.
    const third = Math.ceil(part.text.length / 3);
    for (const at of [0, third, 2 * third]) {
      events.push({
        type: "response.reasoning_summary_text.delta",
        sequence_number: seq(),
        ...common,
        delta: part.text.slice(at, at + third),
      } as ResponseStreamEvent);
    }
    events.push({
      type: "response.reasoning_summary_text.done",
      sequence_number: seq(),
      ...common,
      text: part.text,
    });
    events.push({
      type: "response.reasoning_summary_part.done",
      sequence_number: seq(),
      ...common,
      part,
    });
  });
  events.push({ type: "response.output_item.done", sequence_number: seq(), output_index: 0, item });
  const text =
    message.type === "message" && message.content[0]?.type === "output_text"
      ? message.content[0].text
      : "";
  events.push({
    type: "response.output_text.delta",
    sequence_number: seq(),
    item_id: message.id ?? "",
    output_index: 1,
    content_index: 0,
    delta: text,
    logprobs: [],
  });
  events.push({ type: "response.completed", sequence_number: seq(), response: body });
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
}

async function parts(source: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const seen: ModelStreamPart[] = [];
  for await (const part of source) seen.push(part);
  return seen;
}

function finishOf(seen: ModelStreamPart[]): ModelResponse {
  const last = seen.at(-1);
  if (last?.type !== "finish") throw new Error("no finish part");
  return last.response;
}

describe("responses reasoning", () => {
  it("the recorded summary is the reasoning; the reasoning item is kept in providerData as sent", async () => {
    const body = recorded();
    await mock.serve([{ json: body }]);
    const response = await model().generate(ASK);
    expect(response.reasoning).toBe(reasoningItem(body).summary[0]!.text);
    expect(response.text).toBe("12 + 7 = 19\n19 × 3 = 57\n57 × 10 = 570\n\nFinal result: 570");
    expect(response.providerData).toEqual({ "openai-responses": { reasoning: [body.output[0]] } });
  });

  it("summary parts are joined by a blank line, streamed or not", async () => {
    const body = twoPartReply();
    const [first, second] = reasoningItem(body).summary.map((part) => part.text);
    const expected = `${first}\n\n${second}`;
    await mock.serve([{ json: body }, { chunks: [streamOf(body)] }]);
    expect((await model().generate(ASK)).reasoning).toBe(expected);

    const seen = await parts(model().stream!(ASK));
    const deltas = seen.flatMap((p) => (p.type === "reasoning" ? [p.delta] : []));
    // The second summary part follows a blank line (one chunk: the deltas come joined).
    expect(deltas.join("")).toContain(`${first}\n\n**Check`);
    expect(deltas.join("")).toBe(expected);
    const firstText = seen.findIndex((p) => p.type === "text");
    expect(seen.findLastIndex((p) => p.type === "reasoning")).toBeLessThan(firstText);
    const response = finishOf(seen);
    expect(response.reasoning).toBe(expected);
    expect(response.providerData).toEqual({ "openai-responses": { reasoning: [body.output[0]] } });
  });

  it("a reasoning item without a summary (summaries not asked for) gives no reasoning", async () => {
    const body = recorded();
    reasoningItem(body).summary = [];
    await mock.serve([{ json: body }]);
    const response = await model().generate(ASK);
    expect("reasoning" in response).toBe(false);
    expect(response.providerData).toEqual({ "openai-responses": { reasoning: [body.output[0]] } });
  });
});
