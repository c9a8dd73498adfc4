// The peers of the Node 22 section: the SDKs as installed in this package (bench/next/), the
// newest releases, some of which need Node 22 (ai 7, @openai/agents 0.15 and later); LangGraph's
// newest run on Node 20 and are the same versions as in bench/. bench/src/peers.mjs is the same
// list for the Node 20 section. Each loader imports the SDK from this package's node_modules and
// hands the modules to the shared scenario file in bench/src/libs; the harness, the scenarios,
// toolnexus and the floor are bench/'s.
import { version } from "../../src/common.mjs";

const root = new URL("../", import.meta.url);

export const section = { key: "node22", title: "Node 22, newest peers" };

export const peers = {
  aiSdk: async () => ({
    ai: await import("ai"),
    aiTest: await import("ai/test"),
    z: (await import("zod")).z,
    version: version("ai", root),
  }),
  openaiAgents: async () => ({
    agents: await import("@openai/agents"),
    z: (await import("zod")).z,
    version: version("@openai/agents", root),
  }),
  langgraph: async () => ({
    chatModels: await import("@langchain/core/language_models/chat_models"),
    messages: await import("@langchain/core/messages"),
    tools: await import("@langchain/core/tools"),
    langgraph: await import("@langchain/langgraph"),
    prebuilt: await import("@langchain/langgraph/prebuilt"),
    z: (await import("zod")).z,
    version: `@langchain/langgraph@${version("@langchain/langgraph", root)} + @langchain/core@${version("@langchain/core", root)}`,
  }),
};
