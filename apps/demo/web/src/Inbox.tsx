import { type RequestView, useCancel, useRequests } from "@toolnexus/react";
import { Question } from "./Question.js";

/** One waiting request, answered here by whoever opens the page. */
function RequestCard({ request }: { request: RequestView }) {
  const cancel = useCancel();
  const schema = (request.data as { schema?: unknown } | undefined)?.schema;
  const titleId = `request-${request.id}`;
  return (
    <article
      className="request"
      data-kind={request.kind}
      data-request={request.id}
      aria-labelledby={titleId}
    >
      <div className="card-head">
        <span className="kind">{request.kind}</span>
        {request.route && <span className="muted"> from {request.route.agent}</span>}
      </div>
      <p className="prompt" id={titleId}>
        {request.prompt}
      </p>
      <p className="meta">
        run <code>{request.runId}</code>
        {request.expiresAt && <> · expires {new Date(request.expiresAt).toLocaleTimeString()}</>}
      </p>
      <Question
        requestId={request.id}
        kind={request.kind}
        prompt={request.prompt}
        schema={schema}
        {...(request.url === undefined ? {} : { url: request.url })}
      />
      <div className="buttons">
        <button
          type="button"
          className="danger"
          disabled={cancel.status === "cancelling"}
          onClick={() => cancel.cancel(request.runId, "cancelled from the inbox")}
        >
          Cancel this run
        </button>
        {cancel.status === "done" && <span role="status">Run {cancel.receipt?.outcome}.</span>}
        {cancel.error && (
          <span className="error" role="alert">
            {cancel.error.message}
          </span>
        )}
      </div>
    </article>
  );
}

/** Every request waiting for a person, across runs and processes (polled). */
export function Inbox() {
  const { requests, loading, error } = useRequests(undefined, { pollMs: 700, maxPollMs: 2000 });
  return (
    <section id="inbox-section" aria-labelledby="inbox-title">
      <h2 id="inbox-title">
        Waiting for you <span className="badge">{requests.length}</span>
      </h2>
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      {!loading && requests.length === 0 && (
        <p id="empty" className="empty">
          Nothing is waiting. Ask the assistant in the chat, or run <code>pnpm demo --durable</code>{" "}
          in a terminal.
        </p>
      )}
      <div id="inbox">
        {requests.map((request) => (
          <RequestCard key={request.id} request={request} />
        ))}
      </div>
    </section>
  );
}
