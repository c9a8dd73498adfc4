// Every process one bash call started, found again whatever process group or session it moved
// to. On Linux each call's processes inherit two markers: a variable (`TOOLNEXUS_BASH_CALL=<id>`),
// visible in /proc/<pid>/environ even after a process re-parents to init, and an open file
// descriptor (fd 19, to a deleted file unique to the call; see /proc/<pid>/fd), which
// `env -i` and `setsid` keep. The shell's output pipes count as markers too. A process that
// drops both markers is still caught through its parent while that parent is known (the tree is
// snapshotted by parent pid every few hundred milliseconds while the command runs).
// Elsewhere on POSIX only the command's process group is reachable.
import {
  closeSync,
  constants,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  unlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** The environment variable every process of one bash call inherits. */
export const CALL_MARKER_VAR = "TOOLNEXUS_BASH_CALL";

const POSIX = process.platform !== "win32";
const PROC = process.platform === "linux" && existsSync("/proc/self/stat");

/**
 * The descriptor number the marker file is inherited at: above 9, so the shell's single-digit
 * redirections (`exec 3>&-`, `exec 9>lock`) do not replace it, and below 20, the smallest
 * open-files limit POSIX allows.
 */
export const CALL_MARKER_FD = 19;

/** A marker file one call's processes inherit as {@link CALL_MARKER_FD}. */
export interface CallMarkerFile {
  /** Our descriptor: pass it to spawn's stdio at {@link CALL_MARKER_FD}, then {@link close} it. */
  fd: number;
  /** What /proc/<pid>/fd/<n> reads for a descriptor of this file ("<path> (deleted)"). */
  link: string;
  close(): void;
}

/**
 * Creates, opens (read-only) and deletes a file unique to `callId`, whose descriptor the call's
 * processes inherit: a process keeps it through `env -i`, `setsid` and a re-parent to init,
 * and it reads back in /proc/<pid>/fd as `<path> (deleted)`. Undefined where there is no
 * /proc or no writable temp folder (the environment variable and the tree still work).
 */
export function openCallMarker(callId: string): CallMarkerFile | undefined {
  if (!PROC) return undefined;
  const file = path.join(tmpdir(), `toolnexus-bash-${callId}`);
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_CREAT | constants.O_EXCL, 0o400);
  } catch {
    return undefined;
  }
  let link: string;
  try {
    unlinkSync(file);
    // The kernel's name for it (a symlinked temp folder reads as its target).
    link = readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    closeSync(fd);
    return undefined;
  }
  let open = true;
  return {
    fd,
    link,
    close() {
      if (open) closeSync(fd);
      open = false;
    },
  };
}

/** How often the tree is snapshotted while the command runs (catches `env -i` children). */
const SNAPSHOT_MS = 200;
/** How often a stop checks whether everything is gone. */
const POLL_MS = 50;
/** Freeze-and-kill rounds before a stop gives up on a process it cannot kill. */
const MAX_KILL_ROUNDS = 50;

interface ProcStat {
  ppid: number;
  /** Start time in clock ticks since boot: tells a pid apart from a later reuse of it. */
  start: string;
  zombie: boolean;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ")".
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return {
      ppid: Number(fields[1]),
      start: fields[19] ?? "",
      zombie: fields[0] === "Z" || fields[0] === "X",
    };
  } catch {
    return undefined;
  }
}

function allPids(): number[] {
  try {
    return readdirSync("/proc")
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * Whether `pid` carries the call's marker; undefined when its environment reads empty, which a
 * process in the middle of `execve` shows for a moment (its new memory has no environment yet).
 */
function carries(pid: number, entry: Buffer): boolean | undefined {
  let env: Buffer;
  try {
    env = readFileSync(`/proc/${pid}/environ`);
  } catch {
    return false; // gone, or another user's process (which we could not signal anyway)
  }
  if (env.length === 0) return undefined;
  for (let at = env.indexOf(entry); at !== -1; at = env.indexOf(entry, at + 1)) {
    if ((at === 0 || env[at - 1] === 0) && (env[at + entry.length] ?? 0) === 0) return true;
  }
  return false;
}

/** Looks at empty environments again this many times, a millisecond apart (see `carries`). */
const EMPTY_ENV_RETRIES = 10;
const pause = new Int32Array(new SharedArrayBuffer(4));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The processes of one bash call: the shell `rootPid` and everything descending from it. */
export class CallProcesses {
  readonly #rootPid: number;
  readonly #entry: Buffer;
  /** What /proc/<pid>/fd links of the call's processes read: marker file, output pipes. */
  readonly #links = new Set<string>();
  /** pid → start time of every process seen to belong to the call. */
  readonly #known = new Map<number, string>();
  /** pid → start time of processes whose descriptors hold no marker (they cannot gain one). */
  readonly #unmarked = new Map<number, string>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #stopping: Promise<void> | undefined;

  /**
   * `callId` is the value of {@link CALL_MARKER_VAR} in the command's environment; `markerLink`
   * the {@link CallMarkerFile.link} the command inherited, if any. Call it right after the
   * spawn: it also takes the shell's output pipes (fds 1 and 2) as markers.
   */
  constructor(rootPid: number, callId: string, markerLink?: string) {
    this.#rootPid = rootPid;
    this.#entry = Buffer.from(`${CALL_MARKER_VAR}=${callId}`);
    if (!PROC) return;
    if (markerLink !== undefined) this.#links.add(markerLink);
    for (const fd of [1, 2]) {
      // Only a pipe or socket is the call's own: a file or /dev/null is shared with others.
      const link = readLink(`/proc/${rootPid}/fd/${fd}`);
      if (link !== undefined && /^(?:pipe|socket):\[\d+\]$/.test(link)) this.#links.add(link);
    }
    const start = readStat(rootPid)?.start;
    if (start !== undefined) this.#known.set(rootPid, start);
    this.#timer = setInterval(() => this.#members(false), SNAPSHOT_MS);
    this.#timer.unref();
  }

  /** How the call's processes are found here, for the README and error messages. */
  static get mechanism(): "proc" | "process-group" | "none" {
    return PROC ? "proc" : POSIX ? "process-group" : "none";
  }

  /**
   * Stops every process of the call: SIGTERM, then after `graceMs` whatever is left is frozen
   * (SIGSTOP, so it cannot fork any more) and killed (SIGKILL), round after round until nothing
   * is left. Resolves once they are all gone. Calling it again returns the same stop.
   */
  stop(graceMs: number): Promise<void> {
    this.#stopping ??= this.#stop(graceMs);
    return this.#stopping;
  }

  /** Stops the snapshots (the stop keeps what it already knows). */
  dispose(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #stop(graceMs: number): Promise<void> {
    const living = this.#members(true);
    const group = this.#signalGroup("SIGTERM");
    if (living.length === 0 && !group) return this.dispose();
    for (const pid of living) signal(pid, "SIGTERM");
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline) {
      await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
      if (this.#members(true).length === 0 && !this.#groupAlive()) return this.dispose();
    }
    this.dispose();
    for (let round = 0; round < MAX_KILL_ROUNDS; round++) {
      this.#signalGroup("SIGKILL");
      // Freeze until no new member shows up, so a forking process cannot outrun the kill.
      let frozen = new Set<number>();
      for (;;) {
        const found = this.#members(true).filter((pid) => !frozen.has(pid));
        if (found.length === 0) break;
        for (const pid of found) signal(pid, "SIGSTOP");
        frozen = new Set([...frozen, ...found]);
      }
      for (const pid of frozen) signal(pid, "SIGKILL");
      await sleep(round === 0 ? 5 : POLL_MS);
      if (this.#members(true).length === 0 && !this.#groupAlive()) return;
    }
  }

  /**
   * The live (not zombie) processes of the call: known ones, their descendants by parent pid,
   * and, with `marked`, every process carrying the call's marker.
   */
  #members(marked: boolean): number[] {
    if (!PROC) return [];
    const stats = new Map<number, ProcStat>();
    for (const pid of allPids()) {
      if (pid === process.pid) continue;
      const stat = readStat(pid);
      if (stat !== undefined) stats.set(pid, stat);
    }
    // Forget pids that now belong to an unrelated later process.
    for (const known of [this.#known, this.#unmarked]) {
      for (const [pid, start] of known) {
        if (stats.get(pid)?.start !== start) known.delete(pid);
      }
    }
    if (marked) {
      let unsure: number[] = [];
      for (const [pid, stat] of stats) {
        // Kernel threads (children of kthreadd, pid 2) have no environment, and are not ours.
        if (this.#known.has(pid) || stat.zombie || stat.ppid === 2 || pid === 2) continue;
        const found = carries(pid, this.#entry);
        if (found === true || this.#holdsMarker(pid, stat.start)) {
          this.#known.set(pid, stat.start);
        } else if (found === undefined) unsure.push(pid);
      }
      // An escapee caught in its `execve` (a `setsid sleep` the moment the shell exits) reads
      // empty: missed, it outlived the call (once in 20 runs of the escape test under load).
      // A process started with no environment at all (`env -i`) stays empty: it costs at most
      // the retries here, and is found through its parent instead.
      for (let retry = 0; unsure.length > 0 && retry < EMPTY_ENV_RETRIES; retry++) {
        Atomics.wait(pause, 0, 0, 1);
        unsure = unsure.filter((pid) => {
          const start = stats.get(pid)!.start;
          if (readStat(pid)?.start !== start) return false;
          const found = carries(pid, this.#entry);
          if (found === true) this.#known.set(pid, start);
          return found === undefined;
        });
      }
    }
    for (let grew = true; grew; ) {
      grew = false;
      for (const [pid, stat] of stats) {
        if (!this.#known.has(pid) && this.#known.has(stat.ppid)) {
          this.#known.set(pid, stat.start);
          grew = true;
        }
      }
    }
    return [...this.#known.keys()].filter((pid) => stats.get(pid)?.zombie === false);
  }

  /**
   * Whether one of `pid`'s open descriptors is a marker. Descriptors survive `execve`, `env -i`
   * and `setsid`; a process only gains one by fork (a new pid, looked at anew) or by having it
   * passed over a socket, so a process found without one is not looked at again.
   */
  #holdsMarker(pid: number, start: string): boolean {
    if (this.#links.size === 0 || this.#unmarked.has(pid)) return false;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      return false; // gone, or another user's process (which we could not signal anyway)
    }
    for (const fd of fds) {
      const link = readLink(`/proc/${pid}/fd/${fd}`);
      if (link !== undefined && this.#links.has(link)) return true;
    }
    this.#unmarked.set(pid, start);
    return false;
  }

  /** Signals the command's process group (0: only checks that it still exists). */
  #signalGroup(name: NodeJS.Signals | 0): boolean {
    if (!POSIX) return false;
    try {
      process.kill(-this.#rootPid, name);
      return true;
    } catch {
      return false; // ESRCH: the group is gone
    }
  }

  #groupAlive(): boolean {
    if (PROC) return false; // the group's members are among the call's members
    return this.#signalGroup(0);
  }
}

function readLink(file: string): string | undefined {
  try {
    return readlinkSync(file);
  } catch {
    return undefined;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}
