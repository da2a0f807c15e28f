// A benchmark target's control channel: the bench writes one command per line to the target's stdin (spawnTarget's
// `send`), and ends it to stop the target.
import { createInterface } from "node:readline";

/** Calls `command` with each line of stdin (trimmed, split at spaces), and `end` once stdin closes. */
export function onCommands(command: (name: string, ...args: string[]) => unknown, end: () => unknown = () => process.exit(0)) {
  const lines = createInterface({ input: process.stdin });
  lines.on("line", (line) => {
    const [name, ...args] = line.trim().split(/\s+/);
    if (name) void command(name, ...args);
  });
  lines.on("close", () => void end());
}
