// Which protocol a server speaks: the 2025 handshake (`initialize`), a pinned 2026 version, or
// "auto", where the SDK probes with `server/discover` and falls back to `initialize`.
import type { Client, Transport } from "@modelcontextprotocol/client";
import type { ActiveSpec } from "./connection.js";
import { StdioTransport } from "./stdio.js";

/** The SDK client options that pick the protocol (none for the 2025 handshake). */
export function versionOptions(protocol: ActiveSpec["protocol"]): Record<string, unknown> {
  if (protocol === "2025") return {};
  return {
    versionNegotiation: { mode: protocol === "auto" ? ("auto" as const) : { pin: protocol } },
  };
}

/** The protocol a connected client speaks: the negotiated 2026 version, or "2025". */
export function negotiatedProtocol(client: Client): string | undefined {
  return client.getProtocolEra() === "modern" ? client.getNegotiatedProtocolVersion() : "2025";
}

/**
 * Whether a failed "auto" start is a stdio server that exited when asked `server/discover`
 * (some SDKs' servers end on any request before `initialize`): it is gone, so it must be
 * started again with the 2025 handshake.
 */
export function probeKilled(
  spec: ActiveSpec,
  transport: Transport | undefined,
  protocol: string | undefined,
): boolean {
  return (
    spec.kind === "local" &&
    spec.protocol === "auto" &&
    transport instanceof StdioTransport &&
    transport.hasExited &&
    protocol === undefined
  );
}
