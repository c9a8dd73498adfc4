// The handler lists answer problems as `data.<path>: <message>`; a form wants them per field.

/** Problems keyed by field path (`env`, `who.age`); ones naming no field go under `""`. */
export type FieldProblems = Record<string, string[]>;

/** Splits `data.env: required` into `{ env: ["required"] }`; others under `""`. */
export function problemsByField(issues: readonly string[]): FieldProblems {
  const problems: FieldProblems = {};
  for (const issue of issues) {
    const match = /^data((?:\.[^:]+)?): (.*)$/s.exec(issue);
    const path = match === null ? "" : (match[1] ?? "").replace(/^\./, "");
    const message = match === null ? issue : (match[2] ?? "");
    const list = problems[path] ?? [];
    list.push(message);
    problems[path] = list;
  }
  return problems;
}

/**
 * Places problems on the form's fields: a path names its own field, or the nearest field above
 * it (a JSON field holding a deeper object); the rest, with their paths, are the form's own.
 */
export function placeProblems(
  names: readonly string[],
  problems: FieldProblems,
): { byField: FieldProblems; rest: string[] } {
  const byField: FieldProblems = {};
  const rest: string[] = [];
  const known = new Set(names);
  for (const [path, messages] of Object.entries(problems)) {
    let target: string | undefined;
    for (let parts = path.split("."); parts.length > 0; parts = parts.slice(0, -1)) {
      const candidate = parts.join(".");
      if (known.has(candidate)) {
        target = candidate;
        break;
      }
    }
    // A form that is one JSON field holds the whole answer: every path is inside it.
    if (target === undefined && known.has("")) target = "";
    if (target === undefined) {
      for (const message of messages) rest.push(path === "" ? message : `${path}: ${message}`);
      continue;
    }
    const here = path === target ? messages : messages.map((m) => `${path}: ${m}`);
    byField[target] = [...(byField[target] ?? []), ...here];
  }
  return { byField, rest };
}
