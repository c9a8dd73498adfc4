import type { Tool, ToolContext, ToolResult } from "@toolnexus/core";
import { ok, pending } from "@toolnexus/core";
import { type Args, ArgumentError, defineBuiltin } from "./define.js";
import type { BuiltinToolOptions } from "./options.js";

/** One question as the model asks it. */
export interface QuestionItem {
  question: string;
  header?: string;
  options?: string[];
  multiple?: boolean;
}

/**
 * The `prompt` of a question Request, byte-identical across the toolnexus ports: each
 * question's text in order, with ` (options: a, b, c)` when it has options, joined by "\n"
 * (no trailing newline). `header` is not rendered.
 */
export function renderQuestionPrompt(questions: readonly QuestionItem[]): string {
  return questions
    .map((item) =>
      Array.isArray(item.options) && item.options.length > 0
        ? `${item.question} (options: ${item.options.join(", ")})`
        : item.question,
    )
    .join("\n");
}

function checkQuestions(value: unknown): QuestionItem[] {
  if (value === undefined || value === null) throw new ArgumentError("questions is required");
  if (!Array.isArray(value)) throw new ArgumentError("questions must be an array");
  if (value.length === 0) throw new ArgumentError("questions must not be empty");
  value.forEach((item: unknown, i) => {
    const at = `questions[${i}]`;
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      throw new ArgumentError(`${at} must be an object`);
    }
    const q = item as Record<string, unknown>;
    if (typeof q.question !== "string") throw new ArgumentError(`${at}.question must be a string`);
    if (q.header !== undefined && typeof q.header !== "string") {
      throw new ArgumentError(`${at}.header must be a string`);
    }
    if (
      q.options !== undefined &&
      (!Array.isArray(q.options) || q.options.some((o) => typeof o !== "string"))
    ) {
      throw new ArgumentError(`${at}.options must be an array of strings`);
    }
    if (q.multiple !== undefined && typeof q.multiple !== "boolean") {
      throw new ArgumentError(`${at}.multiple must be a boolean`);
    }
  });
  return value as QuestionItem[];
}

/**
 * `question`: asks the human. The first call suspends with a `kind: "question"` Request
 * (`prompt` rendered by {@link renderQuestionPrompt}, `data.questions` the questions as given);
 * the re-execution with `ctx.answer` returns `JSON.stringify(answer.data ?? {})`.
 */
export function questionTool(options: BuiltinToolOptions = {}): Tool {
  return defineBuiltin(
    {
      name: "question",
      description:
        'Ask the host one or more questions. Suspends via a kind:"question" Request (§10); the host\'s waitFor resolves it and the answer is returned to the model.',
      inputSchema: {
        type: "object",
        properties: {
          questions: {
            type: "array",
            description: "Questions to ask",
            items: {
              type: "object",
              properties: {
                question: { type: "string" },
                header: { type: "string" },
                options: { type: "array", items: { type: "string" } },
                multiple: { type: "boolean" },
              },
              required: ["question"],
            },
          },
        },
        required: ["questions"],
        additionalProperties: false,
      },
      async run(args: Args, ctx: ToolContext): Promise<ToolResult> {
        if (ctx.answer !== undefined) return ok(JSON.stringify(ctx.answer.data ?? {}));
        const questions = checkQuestions(args.questions);
        return pending({
          kind: "question",
          prompt: renderQuestionPrompt(questions),
          data: { questions: args.questions as unknown[] },
        });
      },
    },
    options,
  );
}
