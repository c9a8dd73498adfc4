// A headless form for a request's JSON Schema: the fields, their values and messages, and
// props to spread on your own elements (labels, inputs, selects, radios, messages). Messages
// show once a field was left or a submit tried; the server's problems are merged in by path.
import {
  type ChangeEvent,
  type FormEvent,
  useCallback,
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
} from "react";
import { answerValueOf, isEmpty, problemsOf, type RawValue, rawOf } from "./field-values.js";
import { type FieldProblems, placeProblems } from "./issues.js";
import { type FieldSpec, fieldsOf } from "./schema-fields.js";

export interface UseSchemaFormOptions {
  /** Values to start from, as the answer's data (`{ env: "staging" }`); over the schema's defaults. */
  initialValues?: Record<string, unknown>;
  /** The server's problems by path, e.g. `useAnswer().fieldErrors`; focus moves to the first. */
  serverErrors?: FieldProblems;
  /** Called with the answer's data when a submit finds no problem. */
  onSubmit?: (data: Record<string, unknown>) => unknown;
  /** How enums render: a `select` (default) or `radios`; or a count: radios up to that many. */
  enumAs?: "select" | "radios" | number;
  /** The first option of a select with no value yet (default `"Choose…"`). */
  placeholder?: string;
}

/** Which element a field wants. */
export type FieldControl = "input" | "textarea" | "checkbox" | "select" | "radios";

type Changed = ChangeEvent<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>;

/** Props for a field's input, select or textarea (spread them on it). */
export interface FieldInputProps {
  id: string;
  name: string;
  ref: (element: HTMLElement | null) => void;
  onChange: (event: Changed) => void;
  onBlur: () => void;
  value?: string;
  checked?: boolean;
  type?: string;
  required?: boolean;
  minLength?: number;
  maxLength?: number;
  inputMode?: "decimal" | "numeric";
  autoComplete?: "off";
  "aria-invalid": boolean;
  "aria-required"?: boolean;
  "aria-describedby"?: string;
}

/** One radio of an enum shown as radios. */
export interface FieldRadio {
  label: string;
  /** For its `<label>`. */
  labelProps: { htmlFor: string };
  /** For its `<input type="radio">`. */
  inputProps: FieldInputProps;
}

/** One field: what the schema says, its state, and props to spread. */
export interface SchemaField extends FieldSpec {
  /** The id of its input (of its first radio for radios). */
  id: string;
  control: FieldControl;
  /** The text as typed (a checkbox: whether checked; an enum: the choice's index as text). */
  value: RawValue;
  /** The messages to show now: this form's (once left or submitted) and the server's. */
  errors: string[];
  /** The first of `errors`. */
  error: string | undefined;
  invalid: boolean;
  /** For its `<label>` (for radios: the group's caption, e.g. a `<legend>`, with this id). */
  labelProps: { id: string; htmlFor?: string };
  /** For the element showing `description` (present only when there is one). */
  descriptionProps: { id: string } | undefined;
  /** For the element showing `errors`: render it while `invalid`. */
  errorProps: { id: string };
  /** For input, textarea, checkbox and select controls. */
  inputProps: FieldInputProps;
  /** A select's options: `<option value={o.value}>{o.label}</option>`. */
  options: { value: string; label: string }[];
  /** Radios' group element (a `<fieldset>` or `<div>`): role, labels and state. */
  groupProps: {
    role: "radiogroup";
    "aria-labelledby": string;
    "aria-describedby"?: string;
    "aria-invalid": boolean;
    "aria-required"?: boolean;
  };
  /** The radios of a `radios` control. */
  radios: FieldRadio[];
  /** Sets the raw value (text, or a boolean for a checkbox). */
  setValue: (value: RawValue) => void;
}

export interface SchemaFormState {
  fields: SchemaField[];
  /** The answer's data as it stands (empty fields, and numbers or JSON that do not parse, left out). */
  data: Record<string, unknown>;
  /** No field has a problem by this form's checks. */
  isValid: boolean;
  /** The server's problems that name no field of this form, with their paths. */
  formErrors: string[];
  /** For the form element: `onSubmit` and `noValidate` (the messages are this form's). */
  formProps: { onSubmit: (event?: FormEvent) => void; noValidate: true };
  /**
   * Checks every field; with no problem calls `onSubmit(data)`, else focuses the first bad
   * field. Ignored while a promise `onSubmit` returned is pending (no double answers).
   */
  submit: (event?: FormEvent) => void;
  /** How many submits were tried. */
  submitCount: number;
  /** True while `onSubmit`'s promise runs. */
  submitting: boolean;
  /** Back to the defaults, with no message shown. */
  reset: () => void;
  /** Sets a field's raw value by its name (`env`, `who.age`). */
  setValue: (name: string, value: RawValue) => void;
}

function initialRaw(fields: FieldSpec[], initial: Record<string, unknown> | undefined) {
  const raw: Record<string, RawValue> = {};
  for (const field of fields) {
    const given = field.path.reduce<unknown>(
      (at, key) =>
        typeof at === "object" && at !== null ? (at as Record<string, unknown>)[key] : undefined,
      initial,
    );
    raw[field.name] = rawOf(field, given === undefined ? field.defaultValue : given);
  }
  return raw;
}

/** Builds `{ who: { age: 3 } }` from the fields' values, leaving out empty and unreadable ones. */
function dataOf(fields: FieldSpec[], raw: Record<string, RawValue>): Record<string, unknown> {
  let data: Record<string, unknown> = {};
  for (const field of fields) {
    const value = answerValueOf(field, raw[field.name] ?? "");
    if (value === undefined) continue;
    if (field.path.length === 0) {
      if (typeof value === "object" && value !== null && !Array.isArray(value)) {
        data = { ...(value as Record<string, unknown>) };
      }
      continue;
    }
    let at = data;
    for (const key of field.path.slice(0, -1)) {
      at[key] ??= {};
      at = at[key] as Record<string, unknown>;
    }
    at[field.path[field.path.length - 1]!] = value;
  }
  return data;
}

const NO_PROBLEMS: FieldProblems = {};

/** The headless form of `schema` (a request's `data.schema`). */
export function useSchemaForm(
  schema: unknown,
  options: UseSchemaFormOptions = {},
): SchemaFormState {
  const schemaKey = JSON.stringify(schema ?? null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the schema's JSON is its identity
  const specs = useMemo(() => fieldsOf(schema), [schemaKey]);
  const prefix = useId();
  const [raw, setRaw] = useState(() => initialRaw(specs, options.initialValues));
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const [server, setServer] = useState<FieldProblems>({});
  const [submitCount, setSubmitCount] = useState(0);
  const [submitting, setSubmitting] = useState(false);
  // A second click while the first answer is on its way sends nothing.
  const busy = useRef(false);
  const elements = useRef(new Map<string, HTMLElement>());
  const optionsRef = useRef(options);
  optionsRef.current = options;

  // A new schema starts a new form.
  const shownKey = useRef(schemaKey);
  if (shownKey.current !== schemaKey) {
    shownKey.current = schemaKey;
    setRaw(initialRaw(specs, options.initialValues));
    setTouched({});
    setServer({});
    setSubmitCount(0);
  }

  const names = useMemo(() => specs.map((f) => f.name), [specs]);
  const placed = useMemo(
    () => placeProblems(names, options.serverErrors ?? NO_PROBLEMS),
    [names, options.serverErrors],
  );
  // New server problems replace the shown ones, and focus goes to the first field they name.
  useEffect(() => {
    setServer(placed.byField);
    const first = names.find((name) => (placed.byField[name]?.length ?? 0) > 0);
    if (first !== undefined) elements.current.get(first)?.focus();
  }, [placed, names]);

  const required = useCallback(
    (field: FieldSpec, values: Record<string, RawValue>) => {
      if (!field.required) return false;
      if (field.inRequiredObject) return true;
      // An optional object is checked only once one of its fields is filled.
      return specs.some(
        (other) =>
          other.path[0] === field.path[0] &&
          other.kind !== "boolean" &&
          !isEmpty(other, values[other.name] ?? ""),
      );
    },
    [specs],
  );

  const ownProblems = useMemo(() => {
    const problems: Record<string, string[]> = {};
    for (const field of specs) {
      problems[field.name] = problemsOf(field, raw[field.name] ?? "", required(field, raw));
    }
    return problems;
  }, [specs, raw, required]);

  const setValue = useCallback((name: string, value: RawValue) => {
    setRaw((r) => ({ ...r, [name]: value }));
    // The person is fixing it: the server's word on the old value no longer holds.
    setServer((s) => {
      if (s[name] === undefined) return s;
      const { [name]: _dropped, ...rest } = s;
      return rest;
    });
  }, []);

  const submit = useCallback(
    (event?: FormEvent) => {
      event?.preventDefault();
      if (busy.current) return;
      setSubmitCount((n) => n + 1);
      const firstBad = specs.find((f) => (ownProblems[f.name]?.length ?? 0) > 0);
      if (firstBad !== undefined) {
        elements.current.get(firstBad.name)?.focus();
        return;
      }
      const result = optionsRef.current.onSubmit?.(dataOf(specs, raw));
      if (result instanceof Promise) {
        busy.current = true;
        setSubmitting(true);
        const done = () => {
          busy.current = false;
          setSubmitting(false);
        };
        result.then(done, done);
      }
    },
    [specs, ownProblems, raw],
  );

  const reset = useCallback(() => {
    setRaw(initialRaw(specs, optionsRef.current.initialValues));
    setTouched({});
    setServer({});
    setSubmitCount(0);
  }, [specs]);

  const fields = specs.map((spec, index) =>
    fieldState(spec, index, {
      prefix,
      raw: raw[spec.name] ?? "",
      own: touched[spec.name] === true || submitCount > 0 ? (ownProblems[spec.name] ?? []) : [],
      server: server[spec.name] ?? [],
      required: required(spec, raw),
      enumAs: options.enumAs ?? "select",
      placeholder: options.placeholder ?? "Choose…",
      setValue,
      touch: () => setTouched((t) => (t[spec.name] ? t : { ...t, [spec.name]: true })),
      register: (element) => {
        if (element === null) elements.current.delete(spec.name);
        else elements.current.set(spec.name, element);
      },
    }),
  );

  const isValid = specs.every((f) => (ownProblems[f.name]?.length ?? 0) === 0);
  return {
    fields,
    data: dataOf(specs, raw),
    isValid,
    formErrors: placed.rest,
    formProps: { onSubmit: submit, noValidate: true },
    submit,
    submitCount,
    submitting,
    reset,
    setValue,
  };
}

interface FieldContext {
  prefix: string;
  raw: RawValue;
  own: string[];
  server: string[];
  required: boolean;
  enumAs: "select" | "radios" | number;
  placeholder: string;
  setValue: (name: string, value: RawValue) => void;
  touch: () => void;
  register: (element: HTMLElement | null) => void;
}

function controlOf(spec: FieldSpec, enumAs: FieldContext["enumAs"]): FieldControl {
  switch (spec.kind) {
    case "boolean":
      return "checkbox";
    case "json":
      return "textarea";
    case "enum": {
      const radios =
        typeof enumAs === "number" ? spec.choices.length <= enumAs : enumAs === "radios";
      return radios ? "radios" : "select";
    }
    default:
      return "input";
  }
}

const INPUT_TYPES: Record<string, string> = {
  email: "email",
  uri: "url",
  url: "url",
  date: "date",
};

function fieldState(spec: FieldSpec, index: number, ctx: FieldContext): SchemaField {
  const base = `${ctx.prefix}f${index}`;
  const id = `${base}-input`;
  const labelId = `${base}-label`;
  const descriptionId = `${base}-description`;
  const errorId = `${base}-error`;
  const errors = [...ctx.own, ...ctx.server];
  const invalid = errors.length > 0;
  const control = controlOf(spec, ctx.enumAs);
  const describedBy =
    [spec.description === undefined ? undefined : descriptionId, invalid ? errorId : undefined]
      .filter((part) => part !== undefined)
      .join(" ") || undefined;
  const c = spec.constraints;
  // A checkbox is always answered (true or false): `required` there means nothing to ask for.
  const mustFill = ctx.required && control !== "checkbox";
  const aria = {
    "aria-invalid": invalid,
    ...(mustFill ? { "aria-required": true } : {}),
    ...(describedBy === undefined ? {} : { "aria-describedby": describedBy }),
  };
  const setValue = (value: RawValue) => ctx.setValue(spec.name, value);
  const inputProps: FieldInputProps = {
    id,
    name: spec.name || "data",
    ref: ctx.register,
    onBlur: ctx.touch,
    onChange: (event) => {
      const target = event.target;
      setValue(control === "checkbox" ? (target as HTMLInputElement).checked : target.value);
    },
    ...(mustFill ? { required: true } : {}),
    ...aria,
  };
  if (control === "checkbox") {
    inputProps.type = "checkbox";
    inputProps.checked = ctx.raw === true;
  } else {
    inputProps.value = typeof ctx.raw === "string" ? ctx.raw : "";
  }
  if (control === "input") {
    if (spec.kind === "text") {
      inputProps.type = (c.format !== undefined && INPUT_TYPES[c.format]) || "text";
      if (c.minLength !== undefined) inputProps.minLength = c.minLength;
      if (c.maxLength !== undefined) inputProps.maxLength = c.maxLength;
    } else {
      // Text with a numeric keyboard, not type="number": a browser empties a number input that
      // holds "1e" or "12,5", and this form could then not say what is wrong with it.
      inputProps.type = "text";
      inputProps.inputMode = spec.kind === "integer" ? "numeric" : "decimal";
      inputProps.autoComplete = "off";
    }
  }
  const noChoice = typeof ctx.raw !== "string" || ctx.raw === "";
  const options =
    control === "select"
      ? [
          ...(noChoice || !ctx.required ? [{ value: "", label: ctx.placeholder }] : []),
          ...spec.choices.map((choice, i) => ({ value: String(i), label: choice.label })),
        ]
      : [];
  const radios: FieldRadio[] =
    control === "radios"
      ? spec.choices.map((choice, i) => {
          const radioId = i === 0 ? id : `${id}-${i}`;
          // The checked radio (or the first) is the one a submit focuses.
          const focusTarget = noChoice ? i === 0 : ctx.raw === String(i);
          return {
            label: choice.label,
            labelProps: { htmlFor: radioId },
            inputProps: {
              id: radioId,
              name: `${base}-choice`,
              type: "radio",
              value: String(i),
              checked: ctx.raw === String(i),
              ref: focusTarget ? ctx.register : () => {},
              onBlur: ctx.touch,
              onChange: () => setValue(String(i)),
              ...(ctx.required ? { required: true } : {}),
              "aria-invalid": invalid,
            },
          };
        })
      : [];
  return {
    ...spec,
    id,
    control,
    required: ctx.required,
    value: ctx.raw,
    errors,
    error: errors[0],
    invalid,
    labelProps: control === "radios" ? { id: labelId } : { id: labelId, htmlFor: id },
    descriptionProps: spec.description === undefined ? undefined : { id: descriptionId },
    errorProps: { id: errorId },
    inputProps,
    options,
    groupProps: { role: "radiogroup", "aria-labelledby": labelId, ...aria },
    radios,
    setValue,
  };
}
