import { afterAll, expect, it } from "vitest";
import { Crew } from "./crew.js";
import { fixture } from "./test-support.js";
import { stopWorkers } from "./worker.js";

afterAll(() => stopWorkers());

it("a crew starts members by role, and a killed member starts again with its role and options", async () => {
  const crew = new Crew(fixture("member.mjs"), ["db-address"]);
  const [worker] = crew.add("work", { concurrency: 2 });
  crew.add("answer", {}, 2);
  await crew.ready();
  const first = worker!.worker;
  const firstPid = first.child.pid;
  await crew.kill(worker!);
  expect(await first.exited).toBe("SIGKILL");
  const again = await worker!.worker.line<{
    pid: number;
    role: string;
    address: string;
    options: unknown;
  }>((v) => v.role !== undefined);
  expect(again).toMatchObject({ role: "work", address: "db-address", options: { concurrency: 2 } });
  expect(again.pid).not.toBe(firstPid);
  expect([crew.kills, worker!.kills]).toEqual([1, 1]);
  worker!.finished = true;
  expect(crew.pick()?.role).toBe("answer");
  await crew.stop();
  expect(await Promise.all(crew.members.map((m) => m.worker.exited))).toEqual([
    "SIGKILL",
    "SIGKILL",
    "SIGKILL",
  ]);
});
