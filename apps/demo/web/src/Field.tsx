import type { SchemaField } from "@toolnexus/react";

/** One field of a request's form: the headless form's props on plain elements. */
export function Field({ field }: { field: SchemaField }) {
  let control: React.ReactNode;
  if (field.control === "select") {
    control = (
      <select {...field.inputProps}>
        {field.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    );
  } else if (field.control === "radios") {
    control = (
      <div {...field.groupProps}>
        {field.radios.map((r) => (
          <label key={r.inputProps.id} {...r.labelProps}>
            <input {...r.inputProps} /> {r.label}
          </label>
        ))}
      </div>
    );
  } else if (field.control === "textarea") {
    control = <textarea {...field.inputProps} />;
  } else {
    control = <input {...field.inputProps} />;
  }
  const checkbox = field.control === "checkbox";
  return (
    <div className={checkbox ? "field checkbox" : "field"}>
      {checkbox ? control : null}
      {field.control === "radios" ? (
        <span {...field.labelProps}>{field.label}</span>
      ) : (
        // biome-ignore lint/a11y/noLabelWithoutControl: labelProps carries htmlFor, the control's id
        <label {...field.labelProps}>{field.label}</label>
      )}
      {checkbox ? null : control}
      {field.descriptionProps && (
        <small className="hint" {...field.descriptionProps}>
          {field.description}
        </small>
      )}
      {field.invalid && (
        <p className="error" {...field.errorProps}>
          {field.errors.join(" ")}
        </p>
      )}
    </div>
  );
}
