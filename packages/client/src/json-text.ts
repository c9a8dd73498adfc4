import { jsonText } from "@toolnexus/core";

// The memory store's event data written without a JSON.stringify call where it can be: on
// Node 20 each call has a fixed cost of about 2,000 machine instructions, more than writing a
// short object takes (core's jsonText writes small plain data itself).

/**
 * `JSON.stringify(data)` for an event's or a row's data object, `"{}"` without any call when
 * there is none or it has no key of its own.
 */
export function dataJson(data: Record<string, unknown> | undefined): string {
  if (data === undefined) return "{}";
  for (const _ in data) return jsonText(data);
  // No key, but an own toJSON (not enumerable) or a class with one still decides the text.
  return Object.getPrototypeOf(data) === Object.prototype && !("toJSON" in data)
    ? "{}"
    : JSON.stringify(data);
}
