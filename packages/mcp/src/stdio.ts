// A local server over stdio, started once and stopped with its whole process tree.
//
// The SDK's own stdio transport is not used: with it, version negotiation probes on a second,
// throw-away copy of the server (started, then killed, its children orphaned), and `close()`
// stops only the direct child. This one is probed in place (one process per server), runs the
// server in its own process group, and kills the group plus every descendant on close.
import { type ChildProcess, spawn } from "node:child_process";
import { PassThrough } from "node:stream";
import { type JSONRPCMessage, ReadBuffer, serializeMessage } from "@modelcontextprotocol/client";
import {
  groupRunning,
  type ProcessRef,
  refOf,
  remember,
  running,
  signalGroup,
  signalProcess,
} from "./process-tree.js";

/** How long a server gets to exit after its stdin closes, and again after SIGTERM. */
const GRACE_MS = 1_000;
const POSIX = process.platform !== "win32";

export interface StdioParams {
  command: string;
  args: readonly string[];
  /** The whole environment of the process (nothing else is inherited). */
  env: Record<string, string>;
  cwd?: string;
  stderr: "pipe" | "inherit";
  /** The longest line (one message) read from stdout; a longer one closes the transport. */
  maxMessageBytes?: number;
}

/** Transports whose processes are still running: killed if the host exits without `close()`. */
const live = new Set<StdioTransport>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const transport of live) transport.killNow();
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** The MCP stdio transport of one local server process. */
export class StdioTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcess | undefined;
  private readonly buffer: ReadBuffer;
  private readonly stderrStream: PassThrough | null;
  /** Descendants seen while the server ran, so they are found after it exits too. */
  private readonly tree = new Map<number, ProcessRef>();
  private closed = false;
  private closing: Promise<void> | undefined;
  private closeReported = false;
  private exit: Promise<void> = Promise.resolve();
  private ended = false;

  constructor(private readonly params: StdioParams) {
    this.buffer = new ReadBuffer(
      params.maxMessageBytes === undefined ? undefined : { maxBufferSize: params.maxMessageBytes },
    );
    this.stderrStream = params.stderr === "pipe" ? new PassThrough() : null;
  }

  /** The server's stderr when piped (available before `start`, so nothing early is lost). */
  get stderr(): PassThrough | null {
    return this.stderrStream;
  }

  /** The server process's pid once started. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** Whether `close()` was called: a closed transport never starts a process. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Whether the server process started and has exited (on its own or killed). */
  get hasExited(): boolean {
    return this.ended;
  }

  start(): Promise<void> {
    if (this.closed) {
      return Promise.reject(new Error("the server was stopped before it started"));
    }
    if (this.child !== undefined) return Promise.reject(new Error("the server is already started"));
    return new Promise<void>((resolve, reject) => {
      const child = spawn(this.params.command, [...this.params.args], {
        env: this.params.env,
        ...(this.params.cwd === undefined ? {} : { cwd: this.params.cwd }),
        stdio: ["pipe", "pipe", this.params.stderr === "inherit" ? "inherit" : "pipe"],
        // Its own process group, so one signal reaches everything it starts.
        detached: POSIX,
        shell: false,
        windowsHide: true,
      });
      this.child = child;
      this.exit = new Promise<void>((done) => child.once("exit", () => done()));
      child.once("error", (error) => {
        reject(error);
        this.onerror?.(error);
        this.reportClose();
      });
      child.once("spawn", () => {
        live.add(this);
        installExitHook();
        resolve();
      });
      child.once("exit", () => {
        this.ended = true;
        live.delete(this);
        // Output written just before the exit may still be in the pipe: read it, then report.
        if (child.stdout?.readableEnded !== false) this.reportClose();
        else {
          child.stdout.once("end", () => this.reportClose());
          sleep(GRACE_MS).then(() => this.reportClose());
        }
      });
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("data", (chunk: Buffer) => {
        try {
          this.buffer.append(chunk);
        } catch (error) {
          // A line longer than the buffer's limit: the stream cannot be trusted any more.
          this.onerror?.(error as Error);
          void this.close();
          return;
        }
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.buffer.readMessage();
          } catch (error) {
            this.onerror?.(error as Error);
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      });
      child.stdout?.on("error", (error) => this.onerror?.(error));
      if (this.stderrStream !== null) child.stderr?.pipe(this.stderrStream);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (this.closed || stdin === undefined || stdin === null || stdin.destroyed) {
      return Promise.reject(new Error("the server is not connected"));
    }
    return new Promise<void>((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /**
   * Stops the server and everything it started: stdin is closed (the polite way), then the
   * process group and every descendant get SIGTERM, then SIGKILL. Resolves when they are gone.
   */
  close(): Promise<void> {
    this.closed = true;
    this.closing ??= this.terminate().finally(() => this.reportClose());
    return this.closing;
  }

  /** The last resort when the host exits: SIGKILL the group and the known descendants, now. */
  killNow(): void {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    remember(pid, this.tree);
    signalGroup(pid, "SIGKILL");
    for (const ref of this.tree.values()) signalProcess(ref, "SIGKILL");
    this.child?.kill("SIGKILL");
  }

  private async terminate(): Promise<void> {
    const child = this.child;
    const pid = child?.pid;
    if (child === undefined || pid === undefined) return;
    const leader = refOf(pid);
    const leaderRuns = () => child.exitCode === null && child.signalCode === null;
    remember(pid, this.tree);
    try {
      child.stdin?.end();
    } catch {
      // Already closed.
    }
    if (leaderRuns()) await Promise.race([this.exit, sleep(GRACE_MS)]);
    if (leaderRuns()) remember(pid, this.tree);
    this.signalAll(pid, leader, "SIGTERM");
    await this.settle(pid, leaderRuns);
    if (leaderRuns()) remember(pid, this.tree);
    this.signalAll(pid, leader, "SIGKILL");
    // After SIGKILL the leader's exit is near; the bound only guards against a stuck kernel.
    if (leaderRuns()) await Promise.race([this.exit, sleep(5 * GRACE_MS)]);
    live.delete(this);
    for (const stream of [child.stdin, child.stdout, child.stderr]) {
      try {
        stream?.destroy();
      } catch {
        // Nothing to release.
      }
    }
    this.buffer.clear();
  }

  private signalAll(pid: number, leader: ProcessRef | undefined, signal: NodeJS.Signals): void {
    if (POSIX) signalGroup(pid, signal);
    else if (leader !== undefined) this.child?.kill(signal);
    for (const ref of this.tree.values()) signalProcess(ref, signal);
  }

  /** Waits until the group and the known descendants are gone, at most the grace period. */
  private async settle(pid: number, leaderRuns: () => boolean): Promise<void> {
    const until = Date.now() + GRACE_MS;
    while (Date.now() < until) {
      const anyDescendant = [...this.tree.values()].some(running);
      if (!leaderRuns() && !(POSIX && groupRunning(pid)) && !anyDescendant) return;
      await sleep(25);
    }
  }

  private reportClose(): void {
    if (this.closeReported) return;
    this.closeReported = true;
    this.onclose?.();
  }
}
