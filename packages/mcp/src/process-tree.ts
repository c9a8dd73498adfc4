// Finding and killing a local server's whole process tree. The server runs in its own process
// group (spawned detached), which one kill(-pgid) reaches; a descendant that left the group
// (setsid, its own detached child) is found on Linux by walking /proc by parent pid. Each
// process is remembered with its start time, so a pid reused meanwhile is never signalled.
import { readdirSync, readFileSync } from "node:fs";

/** A process as seen at one moment: its pid and start time (clock ticks since boot). */
export interface ProcessRef {
  pid: number;
  start: string;
}

interface Stat {
  ppid: number;
  pgrp: number;
  state: string;
  start: string;
}

const HAS_PROC = process.platform === "linux";

function stat(pid: number): Stat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: read after the last ")".
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const [state, ppid, pgrp] = fields;
  const start = fields[19];
  if (state === undefined || ppid === undefined || pgrp === undefined || start === undefined) {
    return undefined;
  }
  return { ppid: Number(ppid), pgrp: Number(pgrp), state, start };
}

/** Every running process (zombies left out) with its stat. */
function scan(): Map<number, Stat> {
  const out = new Map<number, Stat>();
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return out;
  }
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const s = stat(pid);
    if (s !== undefined && s.state !== "Z") out.set(pid, s);
  }
  return out;
}

/** Every live descendant of `root` (not `root` itself); empty where there is no /proc. */
export function descendants(root: number): ProcessRef[] {
  if (!HAS_PROC) return [];
  const children = new Map<number, ProcessRef[]>();
  for (const [pid, s] of scan()) {
    const list = children.get(s.ppid) ?? [];
    list.push({ pid, start: s.start });
    children.set(s.ppid, list);
  }
  const out: ProcessRef[] = [];
  const queue = [root];
  const seen = new Set(queue);
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      out.push(child);
      queue.push(child.pid);
    }
  }
  return out;
}

/** True while the process runs (a zombie has ended); without /proc, while a signal reaches it. */
export function running(ref: ProcessRef): boolean {
  if (!HAS_PROC) {
    try {
      process.kill(ref.pid, 0);
      return true;
    } catch {
      return false;
    }
  }
  const s = stat(ref.pid);
  return s !== undefined && s.start === ref.start && s.state !== "Z";
}

/** Signals a remembered process, only if it is still the same process. */
export function signalProcess(ref: ProcessRef, signal: NodeJS.Signals): void {
  if (HAS_PROC && !running(ref)) return;
  try {
    process.kill(ref.pid, signal);
  } catch {
    // Gone already, or not ours to signal.
  }
}

/** Signals every member of a process group; false when the group has no member left. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  if (process.platform === "win32") return false;
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** True while a process of the group runs (zombies do not count where /proc tells them apart). */
export function groupRunning(pgid: number): boolean {
  if (process.platform === "win32") return false;
  if (!HAS_PROC) return signalGroup(pgid, 0);
  for (const s of scan().values()) if (s.pgrp === pgid) return true;
  return false;
}

/** Adds the live descendants of `root` to `into` (by pid), keeping what was seen before. */
export function remember(root: number, into: Map<number, ProcessRef>): void {
  for (const ref of descendants(root)) into.set(ref.pid, ref);
  // Descendants of processes that were already orphaned (re-parented) are found from them.
  for (const ref of [...into.values()]) {
    if (!running(ref)) continue;
    for (const below of descendants(ref.pid)) into.set(below.pid, below);
  }
}

/** The pid's own ref (start time), when it runs. */
export function refOf(pid: number): ProcessRef | undefined {
  if (!HAS_PROC) return { pid, start: "" };
  const s = stat(pid);
  return s === undefined ? undefined : { pid, start: s.start };
}
