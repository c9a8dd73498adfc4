// Helpers of the kit's own tests.
import { readFileSync, watch } from "node:fs";
import { fileURLToPath } from "node:url";

/** The path of a fixture script under src/fixtures. */
export const fixture = (name: string) =>
  fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

/** Whether the process is gone: no such pid, or a zombie nobody has reaped yet. */
export function gone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

/** Resolves once every pid is gone; a SIGKILLed process dies as soon as it is scheduled. */
export async function allGone(pids: readonly number[]): Promise<boolean> {
  for (let tries = 0; tries < 1000; tries++) {
    if (pids.every(gone)) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return false;
}

/** Resolves once `check` holds, tested now and after each change in `dir`. */
export function whenChanged(dir: string, check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(dir, () => {
      if (!check()) return;
      watcher.close();
      resolve();
    });
    if (check()) {
      watcher.close();
      resolve();
    }
  });
}
