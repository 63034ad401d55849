/**
 * Clean-ups that must also run on Ctrl-C, when no `finally` does: scratch databases to drop, a git worktree to
 * remove. On SIGINT every registered clean-up runs, and the process exits (130) once all of them have finished, so
 * that one finishing first does not cut the others short.
 */

const pending = new Set<() => Promise<void>>();
let interrupted = false;

function onInterrupt(): void {
  if (interrupted) return;
  interrupted = true;
  void Promise.allSettled([...pending].map((cleanup) => cleanup())).finally(() => process.exit(130));
}

/**
 * Registers `cleanup` to run on Ctrl-C, and returns it wrapped: call that instead of `cleanup` once the resource
 * is no longer needed; it runs `cleanup` at most once (later calls return the same promise) and unregisters it.
 */
export function cleanupOnInterrupt(cleanup: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  const once = (): Promise<void> => {
    if (running === undefined) {
      pending.delete(once);
      if (pending.size === 0 && !interrupted) process.off('SIGINT', onInterrupt);
      running = cleanup();
    }
    return running;
  };
  if (pending.size === 0) process.on('SIGINT', onInterrupt);
  pending.add(once);
  return once;
}
