// A refusal from the handler, with its typed body, so a page can switch on `code` and show the
// problems it lists next to the fields they name.
import type { WebErrorBody, WebErrorCode } from "@toolnexus/web";

/** The handler answered with an error status (or something that was not its JSON). */
export class ToolnexusHttpError extends Error {
  readonly status: number;
  /** The handler's code, or `"unreadable"` when the body was not its error JSON. */
  readonly code: WebErrorCode | "unreadable";
  /** Every problem the handler listed (`data.env: required`…). */
  readonly issues: readonly string[];
  /** For `answer_conflict`: `answered`, `expired` or `cancelled`. */
  readonly reason: string | undefined;
  constructor(status: number, body: unknown) {
    const error = errorOf(body);
    super(error?.message ?? `the server answered ${status} without a readable error`);
    this.name = "ToolnexusHttpError";
    this.status = status;
    this.code = error?.code ?? "unreadable";
    this.issues = Array.isArray(error?.issues) ? error.issues.map(String) : [];
    this.reason = typeof error?.reason === "string" ? error.reason : undefined;
  }
}

function errorOf(body: unknown): WebErrorBody["error"] | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const error = (body as { error?: unknown }).error;
  if (typeof error !== "object" || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return typeof code === "string" && typeof message === "string"
    ? (error as WebErrorBody["error"])
    : undefined;
}
