// LangGraph.js: the prebuilt ReAct agent (a model node and a ToolNode) driven by a fake chat
// model that plays the script; S5 interrupts inside the tool with a MemorySaver checkpointer
// and resumes with Command({ resume }).
import {
  ARGS_JSON,
  callId,
  counter,
  expectEqual,
  expectFive,
  FANOUT,
  FINAL,
  gate,
  LONG_TURNS,
  PROMPT,
  responseId,
  turnClock,
  turnOf,
} from "../common.mjs";

/** Bytes the saver holds for one thread: every checkpoint, its metadata and pending writes. */
function threadBytes(saver, threadId) {
  let bytes = 0;
  for (const checkpoints of Object.values(saver.storage[threadId] ?? {})) {
    for (const [checkpoint, metadata] of Object.values(checkpoints)) {
      bytes += checkpoint.byteLength + metadata.byteLength;
    }
  }
  for (const [key, writes] of Object.entries(saver.writes)) {
    // Keys are JSON arrays: [threadId, namespace, checkpointId].
    if (JSON.parse(key)[0] !== threadId) continue;
    for (const write of Object.values(writes)) bytes += write[2].byteLength;
  }
  return bytes;
}

/**
 * `deps`: `chatModels` (`@langchain/core/language_models/chat_models`), `messages`
 * (`@langchain/core/messages`), `tools` (`@langchain/core/tools`), `langgraph`
 * (`@langchain/langgraph`), `prebuilt` (`@langchain/langgraph/prebuilt`), `z` (zod) and
 * `version` (the installed versions), from the bench package's peers.mjs.
 */
export function create({
  chatModels,
  messages,
  tools: toolsModule,
  langgraph,
  prebuilt,
  z,
  version,
}) {
  const { BaseChatModel } = chatModels;
  const { AIMessage } = messages;
  const { tool } = toolsModule;
  const { Command, interrupt, MemorySaver } = langgraph;
  const { createReactAgent } = prebuilt;
  const schema = z.object({ a: z.number(), b: z.number() });

  /** A chat model that answers from the last message only; binding tools changes nothing. */
  class ScriptedChatModel extends BaseChatModel {
    constructor(decide) {
      super({});
      this.decide = decide;
    }
    _llmType() {
      return "scripted";
    }
    bindTools() {
      return this;
    }
    async _generate(messages) {
      const last = messages[messages.length - 1];
      const message = this.decide(last._getType() === "tool" ? last : undefined);
      return {
        generations: [
          { text: typeof message.content === "string" ? message.content : "", message },
        ],
      };
    }
  }

  const answer = (text) => new AIMessage({ id: responseId(), content: text });
  // A provider integration parses the arguments' JSON text; so does the script.
  const calls = (ids) =>
    new AIMessage({
      id: responseId(),
      content: "",
      tool_calls: ids.map((id) => ({
        id,
        name: "add",
        args: JSON.parse(ARGS_JSON),
        type: "tool_call",
      })),
    });

  const lastText = (result) => {
    const content = result.messages[result.messages.length - 1].content;
    return typeof content === "string" ? content : JSON.stringify(content);
  };

  const ran = counter();
  const add = tool(
    async ({ a, b }) => {
      ran.n++;
      return a + b;
    },
    { name: "add", description: "Add two numbers", schema },
  );
  const agent = (decide, tools = [add], checkpointer = undefined) =>
    createReactAgent({ llm: new ScriptedChatModel(decide), tools, checkpointer });

  const g1 = agent((result) => {
    if (result === undefined) return calls(["c1"]);
    expectFive("langgraph s1", result.content);
    return answer(FINAL.s1);
  });
  const fanIds = Array.from({ length: FANOUT }, (_, i) => `c${i}`);
  const g2 = agent((result) => {
    if (result === undefined) return calls(fanIds);
    expectFive("langgraph s2", result.content);
    return answer(FINAL.s2);
  });
  const clock = turnClock();
  const g3 = agent((result) => {
    const k = result === undefined ? 0 : turnOf(result.tool_call_id) + 1;
    clock.mark(k);
    if (k < LONG_TURNS) return calls([callId(k)]);
    expectFive("langgraph s3", result.content);
    return answer(FINAL.s3);
  });
  const door = gate();
  const slowAdd = tool(
    async ({ a, b }) => {
      await door.wait();
      ran.n++;
      return a + b;
    },
    { name: "add", description: "Add two numbers, slowly", schema },
  );
  const g4 = agent(
    (result) => {
      if (result === undefined) return calls(["c1"]);
      expectFive("langgraph s4", result.content);
      return answer(FINAL.s4);
    },
    [slowAdd],
  );
  const approvedAdd = tool(
    async ({ a, b }) => {
      const approved = interrupt({ kind: "approval", prompt: "Allow add?" });
      if (approved !== true) return "declined";
      ran.n++;
      return a + b;
    },
    { name: "add", description: "Add two numbers once a human approves", schema },
  );
  const saver = new MemorySaver();
  const g5 = agent(
    (result) => {
      if (result === undefined) return calls(["c1"]);
      expectFive("langgraph s5", result.content);
      return answer(FINAL.s5);
    },
    [approvedAdd],
    saver,
  );
  let threads = 0;

  const input = () => ({ messages: [{ role: "user", content: PROMPT }] });
  const oneRun = async (graph, what, expected, toolRuns, recursionLimit = 25) => {
    const before = ran.n;
    const result = await graph.invoke(input(), { recursionLimit });
    expectEqual(`langgraph ${what} text`, lastText(result), expected);
    if (toolRuns !== undefined)
      expectEqual(`langgraph ${what} tool runs`, ran.n - before, toolRuns);
  };

  return {
    name: "LangGraph.js",
    version,
    ran,
    s1: () => oneRun(g1, "s1", FINAL.s1, 1),
    s2: () => oneRun(g2, "s2", FINAL.s2, FANOUT),
    clock,
    s3: () => oneRun(g3, "s3", FINAL.s3, LONG_TURNS, 2 * LONG_TURNS + 10),
    door,
    s4: () => oneRun(g4, "s4", FINAL.s4, undefined),
    async s5() {
      const before = ran.n;
      const threadId = `t${(++threads).toString(36)}`; // base 36: see responseId
      const config = { configurable: { thread_id: threadId } };
      const halted = await g5.invoke(input(), config);
      if (!(halted.__interrupt__?.length > 0)) {
        throw new Error("langgraph s5: the run did not stop at the interrupt");
      }
      const bytes = threadBytes(saver, threadId);
      const done = await g5.invoke(new Command({ resume: true }), config);
      expectEqual("langgraph s5 text", lastText(done), FINAL.s5);
      expectEqual("langgraph s5 tool runs", ran.n - before, 1);
      await saver.deleteThread(threadId);
      return bytes;
    },
  };
}
