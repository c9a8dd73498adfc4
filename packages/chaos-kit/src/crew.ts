// A crew of worker processes in roles (start, answer, work…), each a member the chaos may kill
// at any moment and start again with the same role and options.
import { startWorker, type Worker, type WorkerOptions } from "./worker.js";

export interface Member {
  role: string;
  options: Record<string, unknown>;
  /** The member's current process. */
  worker: Worker;
  /** Times the chaos killed it. */
  kills: number;
  /** Set by the caller once the member's job is done (it is then left alone). */
  finished: boolean;
}

/**
 * Starts each member as `node <script> <role> ...args <options as JSON>`: the argument
 * convention of the durable agent (./agent.ts), `args` being the store's address and the log
 * directory.
 */
export class Crew {
  readonly members: Member[] = [];
  /** Kills so far, all members together. */
  kills = 0;

  constructor(
    private readonly script: string,
    private readonly args: readonly string[],
    private readonly workerOptions: WorkerOptions = {},
  ) {}

  /** Adds and starts `count` members of one role. */
  add(role: string, options: Record<string, unknown> = {}, count = 1): Member[] {
    const added = Array.from({ length: count }, (): Member => {
      const member = { role, options, kills: 0, finished: false } as Member;
      member.worker = this.spawn(member);
      return member;
    });
    this.members.push(...added);
    return added;
  }

  /** Waits until every member (or those given) said `{"ready": true}`. */
  async ready(members: readonly Member[] = this.members): Promise<void> {
    await Promise.all(
      members.map((m) => m.worker.line((v: { ready?: boolean }) => v.ready === true)),
    );
  }

  /** A random member among those not finished (and passing `filter`). */
  pick(filter: (member: Member) => boolean = () => true): Member | undefined {
    const alive = this.members.filter((m) => !m.finished && filter(m));
    return alive[Math.floor(Math.random() * alive.length)];
  }

  /** SIGKILLs the member's process group, waits for its exit, and starts it again. */
  async kill(member: Member): Promise<void> {
    await member.worker.kill("SIGKILL");
    member.kills++;
    this.kills++;
    member.worker = this.spawn(member);
  }

  /** SIGKILLs every member, for good. */
  async stop(): Promise<void> {
    await Promise.all(this.members.map((m) => m.worker.kill("SIGKILL")));
  }

  private spawn(member: Member): Worker {
    return startWorker(
      this.script,
      [member.role, ...this.args, JSON.stringify(member.options)],
      this.workerOptions,
    );
  }
}
