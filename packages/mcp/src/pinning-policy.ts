// What loadMcp does with a server whose tools differ from the approved fingerprint: refuse the
// server, warn and go on, or ask the host. Checked when the server starts and each time it
// says its tool list changed.
import type { McpServerFingerprint } from "./pinning.js";
import {
  compareFingerprints,
  fingerprintTools,
  McpToolsChangedError,
  type PinnedToolDefinition,
} from "./pinning.js";

/** The host's verdict on a change: refuse the server's tools, or accept the new ones. */
export type McpPinVerdict = "refuse" | "accept";

/** Options of tool pinning (`LoadMcpOptions.pin`). */
export interface McpPinOptions {
  /**
   * The approved fingerprints by server name (as {@link fingerprintTools} or
   * `McpServerInfo.fingerprint` gave them), or a function that looks one up. A server with
   * none is trusted as it is (and `onFingerprint` hears its fingerprint, to store).
   */
  fingerprints?:
    | Readonly<Record<string, McpServerFingerprint>>
    | ((
        server: string,
      ) => McpServerFingerprint | undefined | Promise<McpServerFingerprint | undefined>);
  /**
   * What a change does: `"refuse"` (default: the server fails with the change as its reason,
   * and its tools answer with an error), `"warn"` (`onWarn` hears it, the new tools are used),
   * or a function that decides.
   */
  onChange?:
    | "refuse"
    | "warn"
    | ((change: McpToolsChangedError) => McpPinVerdict | Promise<McpPinVerdict>);
  /** Hears a change accepted under `"warn"`. Default: `console.warn` of its message. */
  onWarn?: (change: McpToolsChangedError) => void;
  /** Hears each server's fingerprint when it has none approved or a change was accepted. */
  onFingerprint?: (server: string, fingerprint: McpServerFingerprint) => void | Promise<void>;
}

/**
 * Checks `tools` (the ones the server offers) against the approved fingerprint. Resolves with the
 * fingerprint when they may be used; throws {@link McpToolsChangedError} when they are refused.
 */
export async function checkPins(
  server: string,
  tools: readonly PinnedToolDefinition[],
  pin: McpPinOptions,
  /** The fingerprint accepted earlier in this session, which a later list is compared with. */
  accepted?: McpServerFingerprint,
): Promise<McpServerFingerprint> {
  const current = fingerprintTools(tools);
  const { fingerprints } = pin;
  const approved =
    accepted ??
    (typeof fingerprints === "function" ? await fingerprints(server) : fingerprints?.[server]);
  if (approved === undefined) {
    await pin.onFingerprint?.(server, current);
    return current;
  }
  const changes = compareFingerprints(approved, current);
  if (changes.length === 0) return current;
  const change = new McpToolsChangedError(server, changes, current);
  const policy = pin.onChange ?? "refuse";
  const verdict: McpPinVerdict =
    policy === "warn" ? "accept" : policy === "refuse" ? "refuse" : await policy(change);
  if (verdict !== "accept") throw change;
  if (policy === "warn") (pin.onWarn ?? ((c) => console.warn(c.message)))(change);
  await pin.onFingerprint?.(server, current);
  return current;
}
