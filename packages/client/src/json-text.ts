// The memory store's event data written without a JSON.stringify call when there is none: on
// Node 20 each call has a fixed cost (about 60 ns even for `{}`), and most of the store's own
// events (started, cancelled) carry no data.

/**
 * `JSON.stringify(data)` for an event's or a row's data object, `"{}"` without the call when
 * there is none or it has no key of its own.
 */
export function dataJson(data: Record<string, unknown> | undefined): string {
  if (data === undefined) return "{}";
  for (const _ in data) return JSON.stringify(data);
  // No key, but an own toJSON (not enumerable) or a class with one still decides the text.
  return Object.getPrototypeOf(data) === Object.prototype && !("toJSON" in data)
    ? "{}"
    : JSON.stringify(data);
}
