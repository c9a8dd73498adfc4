// The types the trust and limit scenarios of the adapter suite share (both files use them; kept
// apart so neither imports the other's types back).
import type { Model, ModelRequest } from "@toolnexus/core";
import type { FetchFunction } from "./http.js";
import type { MockReply, RecordedRequest } from "./mock-server.js";

/** An error a provider reports, with every field it may carry. */
export interface KitErrorReport {
  /** The HTTP status it stands for (Google puts it in the body, others in the response). */
  status: number;
  message: string;
  /** The provider's error type (`error.type`, Google's `status`). */
  type: string;
  /** The provider's error code (`error.code`, Google's `ErrorInfo` reason). */
  code: string;
}

/** What the trust scenarios need from the harness and the suite around them. */
export interface TrustContext {
  provider: string;
  apiKey: string;
  /** Builds the model; the scenarios pass headers and caps too. */
  model(settings: {
    baseUrl: string;
    retries: number;
    headers?: Record<string, string>;
    maxErrorBodyBytes?: number;
    maxEventBytes?: number;
    maxResponseBytes?: number;
    fetch?: FetchFunction;
  }): Model;
  /** A 2xx reply of the text turn, JSON or streamed as the request asks. */
  okReply(request: RecordedRequest): MockReply;
  errorReport: {
    http(status: number, report: KitErrorReport): unknown;
    body(report: KitErrorReport): unknown;
    stream(report: KitErrorReport): string;
  };
  baseUrlEnv: { variable: string; model(apiKey: string): Model };
  request: ModelRequest;
  expectedText: string;
}
