// Answers one request. Who answered is never sent: the handler takes it from the host's
// session. A 400 `invalid_answer` comes back as problems per field, for the form to show.
import { useCallback, useRef, useState } from "react";
import { type AnswerBody, type AnswerReceipt, postAnswer } from "./api.js";
import { useToolnexus } from "./config.js";
import { ToolnexusHttpError } from "./errors.js";
import { type FieldProblems, problemsByField } from "./issues.js";
import { useMountFlag } from "./mounted.js";

export type AnswerStatus = "idle" | "submitting" | "answered" | "error";

export interface AnswerState {
  status: AnswerStatus;
  /** The handler's receipt after an answer was recorded. */
  receipt: AnswerReceipt | undefined;
  /** The refusal (a `ToolnexusHttpError` for one from the handler: 400, 409…). */
  error: Error | undefined;
  /** A 400's problems by field path (`env`), those naming no field under `""`. */
  fieldErrors: FieldProblems;
  /**
   * Sends the answer; resolves with the receipt, or `undefined` when refused (see `error`).
   * Never rejects, so a click handler need not catch.
   */
  answer: (requestId: string, body: AnswerBody) => Promise<AnswerReceipt | undefined>;
  /** Yes, with the form's data. */
  approve: (
    requestId: string,
    data?: Record<string, unknown>,
  ) => Promise<AnswerReceipt | undefined>;
  /** No, with reason `declined`. */
  decline: (requestId: string) => Promise<AnswerReceipt | undefined>;
  /** Back to `idle`, forgetting the last receipt and errors. */
  reset: () => void;
}

const NONE: FieldProblems = {};

/** Answering, with its status and the server's problems mapped per field. */
export function useAnswer(): AnswerState {
  const { getConfig, changed } = useToolnexus();
  const [state, setState] = useState<
    Pick<AnswerState, "status" | "receipt" | "error" | "fieldErrors">
  >({ status: "idle", receipt: undefined, error: undefined, fieldErrors: NONE });
  const mounted = useRef(true);
  // Set again on mount: React's strict mode runs the effect's cleanup once in development.
  useMountFlag(mounted);

  const answer = useCallback(
    async (requestId: string, body: AnswerBody) => {
      setState({ status: "submitting", receipt: undefined, error: undefined, fieldErrors: NONE });
      try {
        const receipt = await postAnswer(getConfig(), requestId, body);
        if (mounted.current) {
          setState({ status: "answered", receipt, error: undefined, fieldErrors: NONE });
        }
        changed();
        return receipt;
      } catch (thrown) {
        const error = thrown instanceof Error ? thrown : new Error(String(thrown));
        const fieldErrors =
          error instanceof ToolnexusHttpError && error.status === 400
            ? problemsByField(error.issues)
            : NONE;
        if (mounted.current) setState({ status: "error", receipt: undefined, error, fieldErrors });
        return undefined;
      }
    },
    [getConfig, changed],
  );
  const approve = useCallback(
    (requestId: string, data?: Record<string, unknown>) =>
      answer(requestId, data === undefined ? { ok: true } : { ok: true, data }),
    [answer],
  );
  const decline = useCallback(
    (requestId: string) => answer(requestId, { ok: false, reason: "declined" }),
    [answer],
  );
  const reset = useCallback(
    () => setState({ status: "idle", receipt: undefined, error: undefined, fieldErrors: NONE }),
    [],
  );
  return { ...state, answer, approve, decline, reset };
}
