// The peers of the Node 20 section: the SDKs as installed in this package (bench/), the newest
// that run on Node 20. bench/next/src/peers.mjs is the same list for the Node 22 section. Each
// loader imports the SDK from its own package's node_modules and hands the modules to the
// shared scenario file in src/libs, so both sections run the same scenarios; a child process
// that measures toolnexus and the floor alone loads none of them.
import { version } from "./common.mjs";

const root = new URL("../", import.meta.url);

export const section = { key: "node20", title: "Node 20, current peers" };

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
