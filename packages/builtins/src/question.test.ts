import { createClient } from "@toolnexus/client";
import { scriptedModel } from "@toolnexus/client/testing";
import type { Request } from "@toolnexus/core";
import { describe, expect, it } from "vitest";
import { questionTool, renderQuestionPrompt } from "./question.js";
import { callThroughClient } from "./test-support.js";

const questions = [
  { question: "Pick a color?", header: "Color", options: ["red", "green"] },
  { question: "Confirm?", options: [] },
];

describe("question", () => {
  it("renders the prompt byte for byte as the contract says", () => {
    expect(renderQuestionPrompt(questions)).toBe("Pick a color? (options: red, green)\nConfirm?");
    expect(renderQuestionPrompt([{ question: "Only?" }])).toBe("Only?");
  });

  it("asks through waitFor as a kind:'question' Request and returns the answer's data", async () => {
    const seen: Request[] = [];
    const run = await callThroughClient(
      [questionTool()],
      "question",
      { questions },
      {
        waitFor: (request) => {
          seen.push(request);
          return { id: request.id, ok: true, data: { answers: ["red"] } };
        },
      },
    );
    expect(seen).toHaveLength(1);
    expect(seen[0]).toEqual({
      id: expect.stringMatching(/^pnd_/),
      kind: "question",
      prompt: "Pick a color? (options: red, green)\nConfirm?",
      data: { questions },
    });
    expect(run.output).toBe('{"answers":["red"]}');
    expect(run.isError).toBe(false);
    expect(run.fedBack).toBe('{"answers":["red"]}');
  });

  it("an answer without data is {}; a declined one is the loop's error", async () => {
    const empty = await callThroughClient(
      [questionTool()],
      "question",
      { questions },
      { waitFor: (request) => ({ id: request.id, ok: true }) },
    );
    expect(empty.output).toBe("{}");
    const declined = await callThroughClient(
      [questionTool()],
      "question",
      { questions },
      { waitFor: (request) => ({ id: request.id, ok: false, reason: "declined" }) },
    );
    expect(declined.output).toBe("declined/expired: Pick a color? (options: red, green)\nConfirm?");
  });

  it("without waitFor the run halts durably and resumes with the answer", async () => {
    const model = scriptedModel([
      { toolCalls: [{ id: "q1", name: "question", arguments: { questions } }] },
      { content: "thanks" },
    ]);
    const client = createClient({ model, tools: [questionTool()] });
    const halted = await client.run("ask me");
    expect(halted.status).toBe("pending");
    if (halted.status !== "pending") return;
    expect(halted.pending).toMatchObject({
      kind: "question",
      prompt: "Pick a color? (options: red, green)\nConfirm?",
      data: { questions },
    });
    const done = await client.resume({
      id: halted.pending.id,
      ok: true,
      data: { answers: ["green", "yes"] },
    });
    expect(done.status).toBe("done");
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({
      role: "tool",
      content: '{"answers":["green","yes"]}',
    });
  });

  it("rejects malformed questions", async () => {
    const tool = questionTool();
    expect((await tool.execute({})).output).toBe("question: questions is required");
    expect((await tool.execute({ questions: [] })).output).toBe(
      "question: questions must not be empty",
    );
    expect((await tool.execute({ questions: [{ header: "x" }] })).output).toBe(
      "question: questions[0].question must be a string",
    );
    expect((await tool.execute({ questions: [{ question: "q", options: [1] }] })).output).toBe(
      "question: questions[0].options must be an array of strings",
    );
  });
});
