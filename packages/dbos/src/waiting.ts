// Which runs wait for a human, from any process: the agent's pending workflows, each with the
// requests its waiting event holds.
import type { GetWorkflowsInput, WorkflowStatus } from "@dbos-inc/dbos-sdk";
import { type AwaitedRequest, checkId } from "@toolnexus/core";
import { type DbosMessenger, waitingRequests } from "./answer.js";

/** A run that waits for answers. */
export interface WaitingRun {
  runId: string;
  requests: AwaitedRequest[];
}

/** What lists workflows: `DBOS` or a `DBOSClient`. */
export interface DbosLister extends DbosMessenger {
  listWorkflows(input: GetWorkflowsInput): Promise<WorkflowStatus[]>;
}

/** Largest `limit` of `listWaiting` (each run costs one read of its event). */
const MAX_LIST = 1000;

/**
 * The runs of workflow `workflowName` (an agent's `workflowName`) that wait for answers now,
 * oldest first, at most `limit` (default 100, at most 1000) pending workflows looked at.
 */
export async function listWaiting(
  via: DbosLister,
  workflowName: string,
  options: { limit?: number } = {},
): Promise<WaitingRun[]> {
  checkId(workflowName, "workflowName");
  const limit = Math.min(Math.max(1, Math.trunc(options.limit ?? 100)), MAX_LIST);
  const pending = await via.listWorkflows({ workflowName, status: "PENDING", limit });
  const runs = await Promise.all(
    pending.map(async ({ workflowID }) => ({
      runId: workflowID,
      requests: await waitingRequests(via, workflowID),
    })),
  );
  return runs.filter((run) => run.requests.length > 0);
}
