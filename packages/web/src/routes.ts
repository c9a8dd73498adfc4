// Which route a request names, from the path below `basePath`. Matching knows nothing about
// callers or runs: an unknown path is a 404 and a wrong method a 405 for everyone.
import { WebError } from "./errors.js";
import { idOf } from "./guard.js";

export type Route =
  | { name: "listRequests" }
  | { name: "getRequest"; id: string }
  | { name: "answer"; id: string }
  | { name: "getRun"; id: string }
  | { name: "events"; id: string }
  | { name: "cancel"; id: string }
  | { name: "start" };

const noRoute = () => new WebError(404, "not_found", "no such route");

/** `route` when `method` is the one it takes, else a 405 naming that one. */
function only(method: string, allowed: string, route: Route): Route {
  if (method !== allowed) {
    throw new WebError(405, "method_not_allowed", `use ${allowed} here`, {
      headers: { allow: allowed },
    });
  }
  return route;
}

/** The route of `method pathname`, or a 404/405/400 (bad id) WebError. */
export function matchRoute(
  method: string,
  pathname: string,
  basePath: string,
  hasStart: boolean,
): Route {
  if (pathname !== basePath && !pathname.startsWith(`${basePath}/`)) throw noRoute();
  // Split the raw path: an id's own `/` arrives encoded (%2F) and is decoded by idOf.
  const parts = pathname.slice(basePath.length).split("/").slice(1);
  if (parts.length > 0 && parts[parts.length - 1] === "") parts.pop(); // a trailing slash
  const [collection, rawId, action, ...rest] = parts;
  if (rest.length > 0) throw noRoute();
  if (collection === "requests") {
    if (rawId === undefined) return only(method, "GET", { name: "listRequests" });
    if (action === undefined)
      return only(method, "GET", { name: "getRequest", id: idOf(rawId, "request") });
    if (action === "answer")
      return only(method, "POST", { name: "answer", id: idOf(rawId, "request") });
  }
  if (collection === "runs") {
    if (rawId === undefined) {
      if (!hasStart) throw noRoute();
      return only(method, "POST", { name: "start" });
    }
    if (action === undefined)
      return only(method, "GET", { name: "getRun", id: idOf(rawId, "run") });
    if (action === "events") return only(method, "GET", { name: "events", id: idOf(rawId, "run") });
    if (action === "cancel")
      return only(method, "POST", { name: "cancel", id: idOf(rawId, "run") });
  }
  throw noRoute();
}
