// @vitest-environment jsdom
// The headless form rendered as a page would (testing/render-form.ts), driven by keyboard and
// pointer through user-event: kinds, defaults, required, enum, boolean, messages, aria wiring.
import { act, cleanup, configure, render, screen, waitFor } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { createElement as h, type ReactNode } from "react";
import { afterEach, describe, expect, it } from "vitest";
import type { FieldProblems } from "./issues.js";
import { renderForm } from "./testing/render-form.js";
import { type UseSchemaFormOptions, useSchemaForm } from "./use-schema-form.js";

configure({ asyncUtilTimeout: 10_000 });
// jsdom has no CSS.escape, which user-event uses to find a radio's group for arrow keys.
globalThis.CSS ??= {} as typeof CSS;
CSS.escape ??= (text: string) => text.replace(/[^a-zA-Z0-9_-]/g, (c) => `\\${c}`);
afterEach(cleanup);

const SCHEMA = {
  type: "object",
  properties: {
    name: { type: "string", title: "Name", minLength: 2, maxLength: 10, pattern: "^[a-z]+$" },
    email: { type: "string", title: "Email", format: "email" },
    age: { type: "integer", title: "Age", minimum: 18, maximum: 99, default: 30 },
    ratio: { type: "number", description: "A ratio between 0 and 1", exclusiveMaximum: 1 },
    env: { type: "string", title: "Environment", enum: ["staging", "production"] },
    size: {
      title: "Size",
      oneOf: [
        { const: "s", title: "Small" },
        { const: "l", title: "Large" },
      ],
      default: "l",
    },
    notify: { type: "boolean", title: "Notify me", default: true },
    address: {
      type: "object",
      title: "Address",
      properties: { city: { type: "string", title: "City" }, zip: { type: "string" } },
      required: ["city"],
    },
    tags: { type: "array", title: "Tags", items: { type: "string" } },
  },
  required: ["name", "env"],
};

function Form(props: {
  schema: unknown;
  options?: UseSchemaFormOptions;
  onData: (data: Record<string, unknown>) => void;
}): ReactNode {
  const form = useSchemaForm(props.schema, { ...props.options, onSubmit: props.onData });
  return renderForm(form);
}

function setup(schema: unknown = SCHEMA, options: UseSchemaFormOptions = {}) {
  const submitted: Record<string, unknown>[] = [];
  const user = userEvent.setup();
  const view = render(h(Form, { schema, options, onData: (data) => submitted.push(data) }));
  return { user, submitted, view };
}

const messageOf = (element: HTMLElement) =>
  (element.getAttribute("aria-describedby") ?? "")
    .split(" ")
    .map((id) => document.getElementById(id)?.textContent)
    .join(" | ");

const SLOW_SCHEMA = {
  type: "object",
  properties: { q: { type: "string", title: "Q", default: "x" } },
};

/** A form whose submit takes as long as the test says. */
function Slow(props: { onSubmit: (data: Record<string, unknown>) => Promise<void> }): ReactNode {
  return renderForm(useSchemaForm(SLOW_SCHEMA, { onSubmit: props.onSubmit }));
}

describe("useSchemaForm", () => {
  it("renders each kind with its label, default and control", () => {
    setup();
    expect((screen.getByLabelText("Name") as HTMLInputElement).type).toBe("text");
    expect((screen.getByLabelText("Email") as HTMLInputElement).type).toBe("email");
    const age = screen.getByLabelText("Age") as HTMLInputElement;
    expect([age.type, age.inputMode, age.value]).toEqual(["text", "numeric", "30"]);
    // No title: the description is the label.
    expect(screen.getByLabelText("A ratio between 0 and 1").getAttribute("inputmode")).toBe(
      "decimal",
    );
    const env = screen.getByLabelText("Environment") as HTMLSelectElement;
    expect([...env.options].map((o) => o.text)).toEqual(["Choose…", "staging", "production"]);
    expect(env.value).toBe("");
    const size = screen.getByLabelText("Size") as HTMLSelectElement; // oneOf of consts: titles
    expect([...size.options].map((o) => o.text)).toEqual(["Choose…", "Small", "Large"]);
    expect(size.selectedOptions[0]?.text).toBe("Large");
    expect((screen.getByLabelText("Notify me") as HTMLInputElement).checked).toBe(true);
    expect(screen.getByLabelText("City")).toBeTruthy(); // one level of nesting, field by field
    expect(screen.getByLabelText("Zip")).toBeTruthy();
    // An array: a JSON textarea.
    expect(screen.getByLabelText("Tags").tagName).toBe("TEXTAREA");
  });

  it("marks required fields for assistive technology", () => {
    setup();
    expect(screen.getByLabelText("Name").getAttribute("aria-required")).toBe("true");
    expect(screen.getByLabelText("Environment").getAttribute("aria-required")).toBe("true");
    expect(screen.getByLabelText("Email").getAttribute("aria-required")).toBeNull();
    // An optional object's required field is required only once the object is started.
    expect(screen.getByLabelText("City").getAttribute("aria-required")).toBeNull();
    // A checkbox is always answered, true or false: nothing to require.
    const required = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] };
    cleanup();
    setup(required);
    expect(screen.getByLabelText("Ok").getAttribute("aria-required")).toBeNull();
    expect(screen.getByLabelText("Ok").hasAttribute("required")).toBe(false);
  });

  it("a failed submit shows plain messages per field, wired by aria, and focuses the first", async () => {
    const { user, submitted } = setup();
    await user.click(screen.getByRole("button", { name: "Submit" }));
    expect(submitted).toEqual([]);
    const name = screen.getByLabelText("Name");
    expect(document.activeElement).toBe(name);
    expect(name.getAttribute("aria-invalid")).toBe("true");
    expect(messageOf(name)).toBe("Fill this in.");
    expect(messageOf(screen.getByLabelText("Environment"))).toBe("Choose an option.");
    expect(screen.getByLabelText("Email").getAttribute("aria-invalid")).toBe("false");
    expect(screen.getByLabelText("Email").getAttribute("aria-describedby")).toBeNull();
  });

  it("checks as the person types once a field was left: length, pattern, format, range", async () => {
    const { user } = setup();
    const name = screen.getByLabelText("Name");
    await user.type(name, "A");
    expect(name.getAttribute("aria-invalid")).toBe("false"); // not yet: still typing
    await user.tab();
    expect(messageOf(name)).toBe(
      "Use at least 2 characters. Use the expected form (pattern ^[a-z]+$).",
    );
    await user.clear(name);
    await user.type(name, "ann");
    expect(name.getAttribute("aria-invalid")).toBe("false");

    const email = screen.getByLabelText("Email");
    await user.type(email, "not-an-address");
    await user.tab();
    expect(messageOf(email)).toBe("Enter an email address.");

    const age = screen.getByLabelText("Age");
    await user.clear(age);
    await user.type(age, "12.5");
    await user.tab();
    expect(messageOf(age)).toBe("Enter a whole number.");
    await user.clear(age);
    await user.type(age, "1e");
    expect(messageOf(age)).toBe("Enter a number.");
    await user.clear(age);
    await user.type(age, "120");
    expect(messageOf(age)).toBe("Use 99 or less.");

    const ratio = screen.getByLabelText("A ratio between 0 and 1");
    await user.type(ratio, "1");
    await user.tab();
    expect(messageOf(ratio)).toBe("Use less than 1.");

    const tags = screen.getByLabelText("Tags");
    await user.type(tags, "[[1");
    await user.tab();
    expect(messageOf(tags)).toMatch(/^Enter valid JSON/);
  });

  it("is usable by keyboard alone and submits typed data", async () => {
    const { user, submitted } = setup();
    await user.tab();
    expect(document.activeElement).toBe(screen.getByLabelText("Name"));
    await user.keyboard("ann");
    await user.tab(); // email
    await user.tab(); // age
    await user.tab(); // ratio
    await user.keyboard("0.5");
    await user.tab(); // env
    expect(document.activeElement).toBe(screen.getByLabelText("Environment"));
    await user.selectOptions(screen.getByLabelText("Environment"), "production");
    await user.tab(); // size
    await user.tab(); // notify
    expect(document.activeElement).toBe(screen.getByLabelText("Notify me"));
    await user.keyboard(" "); // unchecks
    await user.tab(); // city
    await user.keyboard("Oslo");
    await user.click(screen.getByRole("button", { name: "Submit" }));
    expect(submitted).toEqual([
      {
        name: "ann",
        age: 30,
        ratio: 0.5,
        env: "production",
        size: "l",
        notify: false,
        address: { city: "Oslo" },
      },
    ]);
  });

  it("a second submit while the first is pending sends nothing", async () => {
    const calls: Record<string, unknown>[] = [];
    let release = () => {};
    const user = userEvent.setup();
    render(
      h(Slow, {
        onSubmit: (data) => {
          calls.push(data);
          return new Promise<void>((resolve) => {
            release = resolve;
          });
        },
      }),
    );
    const button = screen.getByRole("button", { name: "Submit" });
    await user.click(button);
    expect((button as HTMLButtonElement).disabled).toBe(true);
    // A keyboard Enter in the field still reaches submit: it must be ignored too.
    await user.type(screen.getByLabelText("Q"), "{Enter}");
    expect(calls).toHaveLength(1);
    await act(async () => release());
    expect((button as HTMLButtonElement).disabled).toBe(false);
  });

  it("Enter in a text field submits the form", async () => {
    const schema = {
      type: "object",
      properties: { q: { type: "string", title: "Q" } },
      required: ["q"],
    };
    const { user, submitted } = setup(schema);
    await user.type(screen.getByLabelText("Q"), "hello{Enter}");
    expect(submitted).toEqual([{ q: "hello" }]);
  });

  it("renders an enum as radios when asked, arrow keys choosing within the group", async () => {
    const schema = {
      type: "object",
      properties: { env: { title: "Environment", enum: ["staging", "production", "dev"] } },
      required: ["env"],
    };
    const { user, submitted } = setup(schema, { enumAs: "radios" });
    const group = screen.getByRole("radiogroup", { name: "Environment" });
    expect(group.getAttribute("aria-required")).toBe("true");
    await user.click(screen.getByRole("button", { name: "Submit" }));
    expect(group.getAttribute("aria-invalid")).toBe("true");
    expect(messageOf(group)).toBe("Choose an option.");
    const staging = screen.getByLabelText("staging");
    expect(document.activeElement).toBe(staging);
    await user.keyboard(" ");
    await user.keyboard("{ArrowDown}");
    expect((screen.getByLabelText("production") as HTMLInputElement).checked).toBe(true);
    await user.click(screen.getByRole("button", { name: "Submit" }));
    expect(submitted).toEqual([{ env: "production" }]);
  });

  it("starts from initial values over defaults, and reads numbers' enums back as numbers", async () => {
    const schema = {
      type: "object",
      properties: {
        level: { type: "integer", title: "Level", enum: [1, 2, 3], default: 1 },
        label: { type: "string", title: "Label", default: "x" },
      },
    };
    const { user, submitted } = setup(schema, { initialValues: { level: 3 } });
    expect((screen.getByLabelText("Level") as HTMLSelectElement).selectedOptions[0]?.text).toBe(
      "3",
    );
    await user.click(screen.getByRole("button", { name: "Submit" }));
    expect(submitted).toEqual([{ level: 3, label: "x" }]);
  });

  it("merges the server's problems by path: on the field, the nearest JSON field, or the form", async () => {
    const serverErrors: FieldProblems = {
      env: ['expected one of "staging", "production"'],
      "tags.0": ["must be string"],
      extra: ["unknown field"],
    };
    setup(SCHEMA, { serverErrors });
    const env = screen.getByLabelText("Environment");
    await waitFor(() => expect(document.activeElement).toBe(env));
    expect(messageOf(env)).toBe('expected one of "staging", "production"');
    expect(messageOf(screen.getByLabelText("Tags"))).toBe("tags.0: must be string");
    expect(screen.getByRole("alert").textContent).toBe("extra: unknown field");
  });

  it("a schema without properties is one JSON field for the whole answer", async () => {
    const { user, submitted } = setup({ type: "object" });
    const field = screen.getByLabelText("Answer (JSON)");
    await user.click(field);
    await user.paste('{"a": 1}');
    await user.click(screen.getByRole("button", { name: "Submit" }));
    expect(submitted).toEqual([{ a: 1 }]);
  });
});
