import { useAnswer, useSchemaForm } from "@toolnexus/react";
import { useState } from "react";
import { Field } from "./Field.js";

export interface QuestionProps {
  requestId: string;
  kind: string;
  prompt: string;
  /** The request's JSON Schema, for an input question. */
  schema?: unknown;
  url?: string;
}

/**
 * A person's answer to one request, through @toolnexus/web: a form from an input question's
 * schema, Approve/Decline (with a reason) for an approval, a link for an authorization.
 */
export function Question(props: QuestionProps) {
  const answer = useAnswer();
  const [reason, setReason] = useState("");
  const form = useSchemaForm(props.schema, {
    serverErrors: answer.fieldErrors,
    onSubmit: (data) => answer.approve(props.requestId, data),
  });
  if (answer.status === "answered") {
    return <p role="status">Answered{answer.receipt?.duplicate ? " (already recorded)" : ""}.</p>;
  }
  const failure = answer.error && (
    <p className="error" role="alert">
      {answer.error.message}
    </p>
  );
  const busy = answer.status === "submitting";
  if (props.kind === "input") {
    return (
      <form {...form.formProps} aria-label={props.prompt}>
        {form.fields.map((field) => (
          <Field key={field.name} field={field} />
        ))}
        {form.formErrors.length > 0 && (
          <p className="error" role="alert">
            {form.formErrors.join(" ")}
          </p>
        )}
        {failure}
        <div className="buttons">
          <button
            type="submit"
            className="primary"
            disabled={busy}
            // The field keeps the focus until the click lands: a message shown on its blur would
            // otherwise move this button from under the pointer.
            onMouseDown={(event) => event.preventDefault()}
          >
            Send answer
          </button>
          <button type="button" disabled={busy} onClick={() => answer.decline(props.requestId)}>
            Decline
          </button>
        </div>
      </form>
    );
  }
  const safeUrl =
    props.url !== undefined && /^https?:\/\//i.test(props.url) ? props.url : undefined;
  const reasonId = `reason-${props.requestId}`;
  return (
    <div className="control">
      {props.kind === "authorization" && safeUrl && (
        <a className="authorize" href={safeUrl} target="_blank" rel="noopener noreferrer">
          Open the sign-in page
        </a>
      )}
      <div className="field">
        <label htmlFor={reasonId}>Reason if you decline (optional)</label>
        <input
          id={reasonId}
          value={reason}
          maxLength={1000}
          onChange={(e) => setReason(e.target.value)}
        />
      </div>
      {failure}
      <div className="buttons">
        <button
          type="button"
          className="primary"
          disabled={busy}
          onClick={() => answer.approve(props.requestId)}
        >
          {props.kind === "authorization" ? "Done, continue" : "Approve"}
        </button>
        <button
          type="button"
          className="danger"
          disabled={busy}
          onClick={() =>
            answer.answer(props.requestId, {
              ok: false,
              reason: "declined",
              ...(reason.trim() === "" ? {} : { data: { reason: reason.trim() } }),
            })
          }
        >
          Decline
        </button>
      </div>
    </div>
  );
}
