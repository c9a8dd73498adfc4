/** What the server wrote into the page (see server.ts): who answers, and the demo's command. */
export interface InitialState {
  you: string;
  command: string;
}

export function initialState(): InitialState {
  const text = document.getElementById("initial-state")?.textContent ?? "";
  try {
    const parsed = JSON.parse(text) as Partial<InitialState>;
    return { you: parsed.you ?? "you", command: parsed.command ?? "pnpm demo" };
  } catch {
    return { you: "you", command: "pnpm demo" };
  }
}
