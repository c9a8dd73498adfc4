/**
 * Test helpers for adapter authors (import them in tests only; they need `node:http`, and
 * {@link adapterSuite} loads vitest when it is called): a mock HTTP server that answers from a script, byte
 * splitting and SSE framing helpers, and the conformance suite every model adapter runs.
 */
export type {
  AdapterHarness,
  KitCall,
  KitCreateClient,
  KitModelSettings,
  KitOptionsHarness,
  KitRunEvent,
  KitToolImage,
  KitToolResult,
  KitTranslate,
  KitTranslateRequest,
  KitTranslateResult,
  KitTurn,
} from "./adapter-suite.js";
export {
  adapterSuite,
  fromDataUrl,
  KIT_API_KEY,
  KIT_PNG,
  KIT_TRANSLATE_REQUEST,
  KIT_WEATHER_SCHEMA,
  kitModel,
  kitOptions,
  packageVersion,
} from "./adapter-suite.js";
export type { KitErrorReport } from "./adapter-suite-context.js";
export type {
  ByteCut,
  DelayedReply,
  DropReply,
  JsonReply,
  MockHandler,
  MockReply,
  MockServer,
  MockServerSlot,
  RecordedRequest,
  StreamReply,
  TextReply,
} from "./mock-server.js";
export { mockServerPerTest, splitBytes, sseEvent, startMockServer } from "./mock-server.js";
export { collectParts, finishOf, rejectionOf, streamOf } from "./stream-parts.js";
