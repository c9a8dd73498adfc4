import { useChat } from "@ai-sdk/react";
import type { ToolnexusDataParts, ToolnexusRequestData } from "@toolnexus/ai-sdk";
import {
  DefaultChatTransport,
  isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from "ai";
import { useEffect, useMemo, useRef, useState } from "react";
import { Question } from "./Question.js";

type ChatMessage = UIMessage<unknown, ToolnexusDataParts>;
type Part = ChatMessage["parts"][number];

const DEFAULT_PROMPT = "Please ship 2.4.1. Check that the services are healthy first.";

/** The chat's id lives in the address (#chat=…), so a reload resumes the same run. */
function chatIdFromAddress(): string {
  const found = /^#chat=([\w-]{1,64})$/.exec(window.location.hash);
  if (found) return found[1]!;
  const id = crypto.randomUUID();
  window.history.replaceState(null, "", `#chat=${id}`);
  return id;
}

/** What the page kept of the chat (the user's messages and the partial answer) across a reload. */
function keptMessages(chatId: string): ChatMessage[] {
  try {
    const kept = JSON.parse(sessionStorage.getItem(`chat:${chatId}`) ?? "[]") as ChatMessage[];
    return Array.isArray(kept) ? kept : [];
  } catch {
    return [];
  }
}

function json(value: unknown): string {
  try {
    return typeof value === "string" ? value : JSON.stringify(value);
  } catch {
    return String(value);
  }
}

function ApprovalButtons(props: {
  approvalId: string;
  respond: (response: { id: string; approved: boolean; reason?: string }) => void;
}) {
  const [reason, setReason] = useState("");
  const id = `chat-reason-${props.approvalId}`;
  return (
    <div className="control">
      <div className="field">
        <label htmlFor={id}>Reason if you decline (recorded with the answer)</label>
        <input
          id={id}
          value={reason}
          maxLength={1000}
          onChange={(e) => setReason(e.target.value)}
        />
      </div>
      <div className="buttons">
        <button
          type="button"
          className="primary"
          onClick={() => props.respond({ id: props.approvalId, approved: true })}
        >
          Approve
        </button>
        <button
          type="button"
          className="danger"
          onClick={() =>
            props.respond({
              id: props.approvalId,
              approved: false,
              ...(reason.trim() === "" ? {} : { reason: reason.trim() }),
            })
          }
        >
          Decline
        </button>
      </div>
    </div>
  );
}

function RequestPart({ data }: { data: ToolnexusRequestData }) {
  if (data.state === "answered") {
    return (
      <p className="note">
        {data.kind} {data.ok ? "answered" : `declined${data.reason ? ` (${data.reason})` : ""}`}
        {data.answeredBy ? ` by ${data.answeredBy}` : ""}
      </p>
    );
  }
  return (
    <div className="request" data-kind={data.kind}>
      <p className="prompt">{data.prompt}</p>
      <Question
        requestId={data.requestId}
        kind={data.kind}
        prompt={data.prompt ?? data.kind}
        schema={data.schema}
        {...(data.url === undefined ? {} : { url: data.url })}
      />
    </div>
  );
}

function PartView(props: {
  part: Part;
  respond: (response: { id: string; approved: boolean; reason?: string }) => void;
}) {
  const { part } = props;
  if (part.type === "text") {
    return (
      <p data-part="text" className="assistant">
        {part.text}
      </p>
    );
  }
  if (part.type === "reasoning") {
    return (
      <p data-part="reasoning" className="muted">
        {part.text}
      </p>
    );
  }
  if (isToolUIPart(part)) {
    const name = part.type.slice("tool-".length);
    return (
      <div data-part="tool" data-tool={name} data-state={part.state} className="call">
        <p>
          <span className="tool-name">{name}</span> <code>{json(part.input)}</code>{" "}
          <span className="muted">{part.state}</span>
        </p>
        {part.state === "output-available" && (
          <pre className="tool-output">{json(part.output)}</pre>
        )}
        {part.state === "output-error" && <pre className="tool-output error">{part.errorText}</pre>}
        {part.state === "output-denied" && (
          <p className="tool-output error">
            declined{part.approval?.reason ? `: ${part.approval.reason}` : ""}
          </p>
        )}
        {part.state === "approval-requested" && (
          <ApprovalButtons approvalId={part.approval.id} respond={props.respond} />
        )}
      </div>
    );
  }
  if (part.type === "data-toolnexus-request") {
    return (
      <div data-part="request" data-request-state={part.data.state}>
        <RequestPart data={part.data} />
      </div>
    );
  }
  if (part.type === "data-toolnexus-run") {
    return (
      <p data-part="run" data-run-state={part.data.state} className="status" role="status">
        run {part.data.state}
      </p>
    );
  }
  return null;
}

/** The chat: useChat over the demo server's chat handler, resumed after a reload. */
export function Chat() {
  const chatId = useMemo(chatIdFromAddress, []);
  const initial = useMemo(() => keptMessages(chatId), [chatId]);
  const [prompt, setPrompt] = useState(DEFAULT_PROMPT);
  const { messages, sendMessage, addToolApprovalResponse, status, error } = useChat<ChatMessage>({
    id: chatId,
    messages: initial,
    resume: true,
    transport: new DefaultChatTransport({
      api: "/api/chat",
      // The server keeps the run; it reads only the last message.
      prepareSendMessagesRequest: ({ id, messages: all, trigger, messageId }) => ({
        body: { id, trigger, messageId, messages: all.slice(-1) },
      }),
    }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  useEffect(() => {
    sessionStorage.setItem(`chat:${chatId}`, JSON.stringify(messages));
  }, [chatId, messages]);
  const input = useRef<HTMLTextAreaElement>(null);
  const busy = status === "submitted" || status === "streaming";

  return (
    <section id="chat-section" aria-labelledby="chat-title">
      <h2 id="chat-title">Chat</h2>
      <p className="muted" role="status" data-chat-status={status}>
        {busy ? "the assistant is working…" : status === "error" ? "the stream failed" : "ready"}
      </p>
      <ol id="transcript" aria-live="polite">
        {messages.map((message) => (
          <li
            key={message.id}
            className={message.role}
            data-role={message.role}
            data-message={message.id}
          >
            <span className="who">{message.role === "user" ? "you" : "assistant"}</span>
            {message.parts.map((part, i) => (
              <PartView
                // biome-ignore lint/suspicious/noArrayIndexKey: useChat only appends parts and replaces them in place, so a part's position is its identity
                key={`${message.id}-${i}`}
                part={part}
                respond={(response) => void addToolApprovalResponse(response)}
              />
            ))}
          </li>
        ))}
      </ol>
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const text = prompt.trim();
          if (text === "" || busy) return;
          void sendMessage({ text });
          setPrompt("");
          input.current?.focus();
        }}
      >
        <div className="field">
          <label htmlFor="prompt">Ask the release assistant</label>
          <textarea
            id="prompt"
            ref={input}
            value={prompt}
            rows={2}
            onChange={(e) => setPrompt(e.target.value)}
          />
        </div>
        <div className="buttons">
          <button type="submit" className="primary" disabled={busy}>
            Send
          </button>
        </div>
      </form>
    </section>
  );
}
