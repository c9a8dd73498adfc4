import type { Model, ModelRequest, ModelResponse, ModelStreamPart } from "@toolnexus/core";

/** Every part of a model's stream, in order (test helper). */
export async function collectParts(
  parts: AsyncIterable<ModelStreamPart>,
): Promise<ModelStreamPart[]> {
  const out: ModelStreamPart[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

/** The response of a stream's `finish` part; an error when the stream has none (test helper). */
export async function finishOf(parts: AsyncIterable<ModelStreamPart>): Promise<ModelResponse> {
  let final: ModelResponse | undefined;
  for await (const part of parts) if (part.type === "finish") final = part.response;
  if (final === undefined) throw new Error("no finish part");
  return final;
}

/** What `promise` rejects with; an error when it resolves (test helper). */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (thrown) {
    return thrown;
  }
  throw new Error("expected a rejection");
}

/** `model.stream(request)`, for a model that must stream (test helper). */
export function streamOf(
  model: Model,
  request: ModelRequest,
  signal?: AbortSignal,
): AsyncIterable<ModelStreamPart> {
  if (model.stream === undefined) throw new Error("the adapter streams");
  return model.stream(request, signal === undefined ? undefined : { signal });
}
