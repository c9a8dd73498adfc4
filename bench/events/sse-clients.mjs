// The SSE clients of scenario 2, in a process of their own (their memory is not the server's):
// one plain node:http connection per run to GET /runs/:id/events, parsed as Server-Sent Events.
// Reports when every stream has delivered its run's `started` event, then, when every stream
// has ended, the delivery latencies it measured.
import { request } from "node:http";
import { now, stampOf } from "./common.mjs";

const { base, runIds, perRun } = JSON.parse(process.argv[2]);
const total = runIds.length * perRun;
let connected = 0;
const stampLatency = [];
const atLatency = [];
let events = 0;
let eventsAfterGo = 0;
let lastAt = 0;
let failed = 0;
let firstError;

// The parent gone (it failed, or was interrupted): stop rather than wait for it forever.
let finished = false;
process.on("disconnect", () => process.exit(finished ? 0 : 1));
let settled = 0;
/** Once per connection: it delivered `started`, or it failed before. */
const settle = () => {
  if (++settled === total) process.send({ type: "connected", connected });
};
const TERMINAL = new Set(["done", "failed", "cancelled"]);

function follow(runId) {
  return new Promise((resolve) => {
    let seenStart = false;
    let ended = false;
    const fail = (message) => {
      failed++;
      firstError ??= message;
      if (!seenStart) {
        seenStart = true;
        settle();
      }
      resolve();
    };
    let buffer = "";
    const req = request(`${base}/runs/${encodeURIComponent(runId)}/events`, {
      agent: false,
      headers: { authorization: "Bearer bench", accept: "text/event-stream" },
    });
    req.on("response", (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        fail(`HTTP ${res.statusCode} for ${runId}`);
        return;
      }
      res.setEncoding("utf8");
      res.on("data", (chunk) => {
        const at = now();
        buffer += chunk;
        let end = buffer.indexOf("\n\n");
        while (end !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf("\n\n");
          let type;
          let data;
          for (const line of block.split("\n")) {
            if (line.startsWith("event:")) type = line.slice(6).trim();
            else if (line.startsWith("data:")) data = line.slice(5).trim();
          }
          if (type === undefined || data === undefined) continue;
          const event = JSON.parse(data);
          events++;
          // Runs are parked right after `started`: every other event comes after "go" (the
          // parent's message may reach this busy process later than the first of them).
          if (type !== "started") eventsAfterGo++;
          lastAt = at;
          if (type === "started" && !seenStart) {
            seenStart = true;
            connected++;
            settle();
          }
          if (TERMINAL.has(type)) ended = true;
          const recorded = Date.parse(event.at);
          if (type !== "started") atLatency.push(at - recorded);
          if (type === "tool_result") {
            const stamp = stampOf(event);
            if (stamp !== undefined) stampLatency.push(at - stamp);
          }
        }
      });
      res.on("end", () =>
        ended ? resolve() : fail(`the stream of ${runId} ended before the run's end`),
      );
      res.on("error", (error) => fail(String(error)));
    });
    req.on("error", (error) => fail(String(error)));
    req.end();
  });
}

await Promise.all(runIds.flatMap((runId) => Array.from({ length: perRun }, () => follow(runId))));
finished = true;
process.send(
  {
    type: "done",
    events,
    eventsAfterGo,
    lastAt,
    stampLatency,
    atLatency,
    failed,
    firstError,
    rss: process.memoryUsage().rss,
  },
  () => process.disconnect(),
);
