// For tests: a plain rendering of a headless form, as a page would write it (labels, inputs,
// selects, radios, messages), using only the props the form hands out.
import { createElement as h, type ReactNode } from "react";
import type { SchemaField, SchemaFormState } from "../use-schema-form.js";

function control(field: SchemaField): ReactNode {
  switch (field.control) {
    case "select":
      return h(
        "select",
        field.inputProps,
        field.options.map((o) => h("option", { key: o.value, value: o.value }, o.label)),
      );
    case "textarea":
      return h("textarea", field.inputProps);
    case "radios":
      return h(
        "div",
        field.groupProps,
        field.radios.map((radio) =>
          h(
            "span",
            { key: radio.inputProps.id },
            h("input", radio.inputProps),
            h("label", radio.labelProps, radio.label),
          ),
        ),
      );
    default:
      return h("input", field.inputProps);
  }
}

export function renderField(field: SchemaField): ReactNode {
  const label =
    field.control === "radios"
      ? h("span", field.labelProps, field.label)
      : h("label", field.labelProps, field.label);
  return h(
    "div",
    { key: field.name, "data-field": field.name },
    ...(field.control === "checkbox" ? [control(field), label] : [label, control(field)]),
    field.descriptionProps && h("small", field.descriptionProps, field.description),
    field.invalid && h("p", field.errorProps, field.errors.join(" ")),
  );
}

export function renderForm(form: SchemaFormState, extra: ReactNode = null): ReactNode {
  return h(
    "form",
    form.formProps,
    form.fields.map(renderField),
    form.formErrors.length > 0 && h("p", { role: "alert" }, form.formErrors.join(" ")),
    h("button", { type: "submit", disabled: form.submitting }, "Submit"),
    extra,
  );
}
