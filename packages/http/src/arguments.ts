// Which arguments a call may pass: model input never widens what the tool may reach. An argument
// the tool does not declare is refused (it would become a new query parameter or body field),
// and no argument may set a query key that the URL template already fixes.
import { type JSONSchema, quotedStart } from "@toolnexus/core";

/** Names up to this many characters are quoted whole in an error; longer ones by their start. */
const WHOLE_NAME_CHARS = 80;
/** How many refused names an error lists before `and <n> more`. */
const LISTED_NAMES = 10;

/** A name as an error quotes it: JSON-quoted, whole when short, else its start and its length. */
export function quoteName(name: string): string {
  return name.length <= WHOLE_NAME_CHARS ? JSON.stringify(name) : quotedStart(name);
}

/** Quoted names, at most {@link LISTED_NAMES} of them, then `and <n> more`. */
function listNames(names: readonly string[]): string {
  const listed = names.slice(0, LISTED_NAMES).map(quoteName).join(", ");
  const more = names.length - LISTED_NAMES;
  return more > 0 ? `${listed} and ${more} more` : listed;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A test of whether an argument name is declared: a placeholder, a `query` name, a top-level
 * `properties` key or `patternProperties` match of the input schema. An input schema whose
 * `additionalProperties` is `true` or a schema explicitly accepts every name.
 */
export function declaredNames(
  schema: JSONSchema,
  extra: readonly string[],
): (name: string) => boolean {
  const record = schema as Record<string, unknown>;
  const additional = record.additionalProperties;
  if (additional === true || isObject(additional)) return () => true;
  const properties = isObject(record.properties) ? record.properties : {};
  const patterns: RegExp[] = [];
  if (isObject(record.patternProperties)) {
    for (const pattern of Object.keys(record.patternProperties)) {
      try {
        patterns.push(new RegExp(pattern, "u"));
      } catch {
        // A pattern JavaScript cannot compile declares nothing.
      }
    }
  }
  const named = new Set(extra);
  return (name) =>
    named.has(name) ||
    Object.hasOwn(properties, name) ||
    patterns.some((pattern) => pattern.test(name));
}

/** The error for arguments the tool does not declare, or undefined when there are none. */
export function undeclaredProblem(
  args: Readonly<Record<string, unknown>>,
  isDeclared: (name: string) => boolean,
): string | undefined {
  const undeclared = Object.keys(args).filter(
    (name) => args[name] !== undefined && !isDeclared(name),
  );
  if (undeclared.length === 0) return undefined;
  const [one] = undeclared;
  return undeclared.length === 1
    ? `argument ${quoteName(one as string)} is not declared by the tool's input schema; nothing was sent`
    : `arguments ${listNames(undeclared)} are not declared by the tool's input schema; nothing was sent`;
}

/**
 * The query keys a URL template fixes (`?scope=read` fixes `scope`), decoded and lower-cased:
 * many servers read keys case-insensitively. A key holding a placeholder is not fixed.
 */
export function fixedQueryKeys(template: string): Set<string> {
  const keys = new Set<string>();
  const withoutFragment = template.split("#")[0] ?? "";
  const question = withoutFragment.indexOf("?");
  if (question === -1) return keys;
  for (const pair of withoutFragment.slice(question + 1).split("&")) {
    const equals = pair.indexOf("=");
    const rawKey = equals === -1 ? pair : pair.slice(0, equals);
    if (rawKey === "" || rawKey.includes("{")) continue;
    for (const key of new URLSearchParams(`${rawKey}=`).keys()) keys.add(key.toLowerCase());
  }
  return keys;
}

/** The error for arguments that would set a query key the template fixes. */
export function fixedKeyProblem(names: readonly string[]): string {
  const which =
    names.length === 1
      ? `argument ${quoteName(names[0] as string)}`
      : `arguments ${listNames(names)}`;
  return `${which} would set a query key that the URL template already fixes; nothing was sent`;
}
