// A field's text as typed, turned into the value the answer carries, and the plain-words
// problems with it. Values stay text while typed (a half-typed "1e" is not lost); they are
// read into numbers, choices and JSON only to check them and to submit.
import type { FieldSpec } from "./schema-fields.js";

/** What a field holds while edited: text for most, a boolean for a checkbox. */
export type RawValue = string | boolean;

/** The text an input starts with for a value (an enum's is the choice's index). */
export function rawOf(field: FieldSpec, value: unknown): RawValue {
  switch (field.kind) {
    case "boolean":
      return value === true;
    case "enum": {
      const index = field.choices.findIndex((c) => sameValue(c.value, value));
      return index === -1 ? "" : String(index);
    }
    case "json":
      return value === undefined ? "" : JSON.stringify(value, null, 2);
    default:
      return value === undefined || value === null ? "" : String(value);
  }
}

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** Whether the field was left empty (a checkbox never is). */
export function isEmpty(field: FieldSpec, raw: RawValue): boolean {
  return field.kind !== "boolean" && typeof raw === "string" && raw.trim() === "";
}

/** The value to submit, or `undefined` when empty or unreadable (a problem says why). */
export function answerValueOf(field: FieldSpec, raw: RawValue): unknown {
  if (field.kind === "boolean") return raw === true;
  if (typeof raw !== "string" || isEmpty(field, raw)) return undefined;
  switch (field.kind) {
    case "number":
    case "integer": {
      const number = Number(raw.trim());
      return Number.isFinite(number) ? number : undefined;
    }
    case "enum":
      return field.choices[Number(raw)]?.value;
    case "json":
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        return undefined;
      }
    default:
      return raw;
  }
}

const FORMATS: Record<string, { test: (text: string) => boolean; message: string }> = {
  email: { test: (t) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(t), message: "Enter an email address." },
  uri: { test: isUrl, message: "Enter a full web address, like https://example.com." },
  url: { test: isUrl, message: "Enter a full web address, like https://example.com." },
  date: {
    test: (t) => /^\d{4}-\d{2}-\d{2}$/.test(t) && !Number.isNaN(Date.parse(t)),
    message: "Enter a date as YYYY-MM-DD.",
  },
  "date-time": {
    test: (t) => /^\d{4}-\d{2}-\d{2}T/.test(t) && !Number.isNaN(Date.parse(t)),
    message: "Enter a date and time, like 2026-01-31T09:30:00Z.",
  },
};

function isUrl(text: string): boolean {
  try {
    return /^[a-z][a-z0-9+.-]*:/i.test(text) && new URL(text).protocol !== "";
  } catch {
    return false;
  }
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/** The field's problems in plain words (empty when fine). `required` is whether it must be filled now. */
export function problemsOf(field: FieldSpec, raw: RawValue, required: boolean): string[] {
  if (isEmpty(field, raw)) {
    if (!required) return [];
    return [field.kind === "enum" ? "Choose an option." : "Fill this in."];
  }
  if (typeof raw !== "string") return [];
  const c = field.constraints;
  const problems: string[] = [];
  switch (field.kind) {
    case "text": {
      const length = [...raw].length;
      if (c.minLength !== undefined && length < c.minLength) {
        problems.push(`Use at least ${plural(c.minLength, "character")}.`);
      }
      if (c.maxLength !== undefined && length > c.maxLength) {
        problems.push(`Use at most ${plural(c.maxLength, "character")}.`);
      }
      if (c.pattern !== undefined && !matches(c.pattern, raw)) {
        problems.push(`Use the expected form (pattern ${c.pattern}).`);
      }
      const format = c.format === undefined ? undefined : FORMATS[c.format];
      if (format !== undefined && !format.test(raw)) problems.push(format.message);
      break;
    }
    case "number":
    case "integer": {
      const number = Number(raw.trim());
      if (!Number.isFinite(number)) return ["Enter a number."];
      if (field.kind === "integer" && !Number.isInteger(number)) return ["Enter a whole number."];
      if (c.minimum !== undefined && number < c.minimum) problems.push(`Use ${c.minimum} or more.`);
      if (c.maximum !== undefined && number > c.maximum) problems.push(`Use ${c.maximum} or less.`);
      if (c.exclusiveMinimum !== undefined && number <= c.exclusiveMinimum) {
        problems.push(`Use more than ${c.exclusiveMinimum}.`);
      }
      if (c.exclusiveMaximum !== undefined && number >= c.exclusiveMaximum) {
        problems.push(`Use less than ${c.exclusiveMaximum}.`);
      }
      if (c.multipleOf !== undefined && c.multipleOf > 0 && !isMultiple(number, c.multipleOf)) {
        problems.push(`Use a multiple of ${c.multipleOf}.`);
      }
      break;
    }
    case "enum":
      if (field.choices[Number(raw)] === undefined) problems.push("Choose one of the options.");
      break;
    case "json":
      try {
        JSON.parse(raw);
      } catch {
        problems.push('Enter valid JSON (for example {"name": "value"} or [1, 2]).');
      }
      break;
  }
  return problems;
}

function isMultiple(value: number, step: number): boolean {
  const ratio = value / step;
  return Math.abs(ratio - Math.round(ratio)) < 1e-9;
}

/** A schema pattern (ECMA-262, unanchored); one that does not compile checks nothing here. */
function matches(pattern: string, text: string): boolean {
  try {
    return new RegExp(pattern, "u").test(text);
  } catch {
    return true;
  }
}
