/**
 * Counts the files moved into place in one directory (inotify IN_MOVED_TO / IN_CREATE, which fs.watch
 * reports as "rename"). An atomic write (temp file + rename) is one event under the final name, so
 * this counts how many times a hook wrote a file, not just what the file holds at the end.
 */
import fs from 'node:fs';
import { paced } from './pace';

export interface WriteCounter {
  /** Events seen for this file name so far. */
  count(name: string): number;
  /** Waits until `name` was seen at least `atLeast` times (up to `timeoutMs`, paced), then a little longer for stragglers. */
  settle(name: string, atLeast?: number, timeoutMs?: number): Promise<number>;
  close(): void;
}

export function countWrites(dir: string): WriteCounter {
  const seen = new Map<string, number>();
  const watcher = fs.watch(dir, (event, name) => {
    if (event === 'rename' && name) seen.set(name.toString(), (seen.get(name.toString()) ?? 0) + 1);
  });
  const count = (name: string): number => seen.get(name) ?? 0;
  return {
    count,
    async settle(name, atLeast = 1, timeoutMs = 2000) {
      const until = Date.now() + paced(timeoutMs);
      while (count(name) < atLeast && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, paced(50)));
      return count(name);
    },
    close: () => watcher.close(),
  };
}
