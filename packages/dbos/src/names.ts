// Where a run meets the outside world in DBOS's system database: the topic its answers arrive on
// (DBOS.send / recv) and the event that shows what it waits for (DBOS.setEvent / getEvent).

/** The `recv` topic of every answer to a run; an answer carries its request's id. */
export const ANSWER_TOPIC = "toolnexus.answer";

/** The workflow event holding the requests a run waits for now (`[]` once answered). */
export const WAITING_EVENT = "toolnexus.waiting";

/** The DBOS workflow name of the agent `name` (what `listWorkflows({ workflowName })` takes). */
export function workflowNameOf(name: string): string {
  return `toolnexus.${name}`;
}
