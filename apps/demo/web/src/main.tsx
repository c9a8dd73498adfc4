import { ToolnexusProvider } from "@toolnexus/react";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { Chat } from "./Chat.js";
import { Inbox } from "./Inbox.js";
import { initialState } from "./initial.js";
import "../style.css";

function App() {
  const { you } = initialState();
  return (
    <ToolnexusProvider baseUrl="/api">
      <header>
        <div>
          <h1>
            Release assistant <span className="muted">chat and inbox</span>
          </h1>
          <p className="muted">
            The chat starts a run and follows it live; any person answers its questions in the inbox
            or in the chat; a worker process continues the run. Same SQLite file as{" "}
            <code>pnpm demo --durable</code>, <code>pending</code> and <code>resume</code>.
          </p>
        </div>
        <p className="muted">answering as {you}</p>
      </header>
      <main>
        <Chat />
        <Inbox />
      </main>
    </ToolnexusProvider>
  );
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
