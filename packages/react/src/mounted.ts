import { useEffect } from "react";

/** Keeps `ref.current` true while mounted, so a late answer does not set state after unmount. */
export function useMountFlag(ref: { current: boolean }): void {
  useEffect(() => {
    ref.current = true;
    return () => {
      ref.current = false;
    };
  }, [ref]);
}
