// The test side of the chaos kit. The worker side is `@toolnexus/chaos-kit/agent`.
export { Crew, type Member } from "./crew.js";
export { type AnswerLog, type Exec, logWriter, readLogs, startedExecs } from "./exec-log.js";
export { guard, type Leftover } from "./guard.js";
export { countStates, judgeDurability, type Verdict } from "./verdict.js";
export { startWorker, stopWorkers, type Worker, type WorkerOptions } from "./worker.js";
