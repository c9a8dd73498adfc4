// Attribute, event and metric names. `gen_ai.*` and `error.type` come from OpenTelemetry's GenAI
// semantic conventions; `toolnexus.*` names what the conventions have no name for.

export const ATTR = {
  operation: "gen_ai.operation.name",
  provider: "gen_ai.provider.name",
  requestModel: "gen_ai.request.model",
  conversationId: "gen_ai.conversation.id",
  agentName: "gen_ai.agent.name",
  responseId: "gen_ai.response.id",
  finishReasons: "gen_ai.response.finish_reasons",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  tokenType: "gen_ai.token.type",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  errorType: "error.type",
  // Opt-in content (recordContent: true).
  systemInstructions: "gen_ai.system_instructions",
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
  toolArguments: "gen_ai.tool.call.arguments",
  toolResult: "gen_ai.tool.call.result",
  /** How many of the oldest messages `gen_ai.input.messages` left out to stay within its cap. */
  inputMessagesOmitted: "toolnexus.input.messages.omitted",
  // toolnexus's own.
  runId: "toolnexus.run.id",
  runKind: "toolnexus.run.kind",
  runStatus: "toolnexus.run.status",
  runLimit: "toolnexus.run.limit",
  runTurns: "toolnexus.run.turns",
  turn: "toolnexus.turn",
  messageId: "toolnexus.message.id",
  attempt: "toolnexus.tool.attempt",
  suspendedCall: "toolnexus.tool.suspended",
  requestId: "toolnexus.request.id",
  requestKind: "toolnexus.request.kind",
  requestPrompt: "toolnexus.request.prompt",
  answerOutcome: "toolnexus.answer.outcome",
  waitDuration: "toolnexus.human.wait.duration",
  waitMode: "toolnexus.human.wait.mode",
  linkType: "toolnexus.link.type",
} as const;

export const EVENT = {
  suspended: "toolnexus.suspended",
  waited: "toolnexus.human.waited",
} as const;

export const METRIC = {
  operationDuration: "gen_ai.client.operation.duration",
  tokenUsage: "gen_ai.client.token.usage",
  agentDuration: "gen_ai.invoke_agent.duration",
  toolDuration: "gen_ai.execute_tool.duration",
  waitDuration: "toolnexus.human.wait.duration",
} as const;

/** Keys this package adds to the carrier stored with a durable run. */
export const CARRIER = {
  traceparent: "traceparent",
  /** Epoch milliseconds when the carrier was written (for a halted run: when it halted). */
  haltedAt: "toolnexus.halted_at",
  /** JSON object: request id -> epoch milliseconds when its call suspended, still unanswered. */
  askedAt: "toolnexus.asked_at",
  /** `"1"` on a sub-agent's run: its questions are answered (and measured) at a parent. */
  escalates: "toolnexus.escalates",
} as const;

/** The instrumentation scope's name. */
export const SCOPE = "@toolnexus/otel";
