// Cancels a run; who cancelled comes from the host's session, as for an answer.
import { useCallback, useRef, useState } from "react";
import { type CancelReceipt, postCancel } from "./api.js";
import { useToolnexus } from "./config.js";
import { useMountFlag } from "./mounted.js";

export type CancelStatus = "idle" | "cancelling" | "done" | "error";

export interface CancelState {
  status: CancelStatus;
  /** The handler's receipt: `outcome` `cancelled`, `requested` (a running run stops at its next step), `already_cancelled` or `finished`. */
  receipt: CancelReceipt | undefined;
  error: Error | undefined;
  /** Cancels `runId`; resolves with the receipt, or `undefined` when refused. Never rejects. */
  cancel: (runId: string, reason?: string) => Promise<CancelReceipt | undefined>;
}

/** Cancelling a run, with its status. */
export function useCancel(): CancelState {
  const { getConfig, changed } = useToolnexus();
  const [state, setState] = useState<Pick<CancelState, "status" | "receipt" | "error">>({
    status: "idle",
    receipt: undefined,
    error: undefined,
  });
  const mounted = useRef(true);
  useMountFlag(mounted);
  const cancel = useCallback(
    async (runId: string, reason?: string) => {
      setState({ status: "cancelling", receipt: undefined, error: undefined });
      try {
        const receipt = await postCancel(getConfig(), runId, reason);
        if (mounted.current) setState({ status: "done", receipt, error: undefined });
        changed();
        return receipt;
      } catch (thrown) {
        const error = thrown instanceof Error ? thrown : new Error(String(thrown));
        if (mounted.current) setState({ status: "error", receipt: undefined, error });
        return undefined;
      }
    },
    [getConfig, changed],
  );
  return { ...state, cancel };
}
