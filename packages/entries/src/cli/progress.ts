// A small TTY-aware progress bar: redrawn in place on a terminal, silent in CI logs (the summary says it all).
export interface Progress {
  tick(ok: boolean): void;
  done(): void;
}

export function progressBar(total: number, stream: NodeJS.WriteStream = process.stderr, label = "importing"): Progress {
  let ok = 0;
  let failed = 0;
  const tty = Boolean(stream.isTTY);
  const width = 30;
  let last = 0;
  const draw = (force = false) => {
    if (!tty) return;
    const now = Date.now();
    // redraw at most every 50 ms: thousands of records must not flood the terminal
    if (!force && now - last < 50) return;
    last = now;
    const n = ok + failed;
    const filled = total ? Math.round((n / total) * width) : width;
    const bar = `${"█".repeat(filled)}${"░".repeat(width - filled)}`;
    stream.write(`\r${label} ${bar} ${n}/${total}  ok ${ok}  failed ${failed}\u001b[K`);
  };
  draw(true);
  return {
    tick(success) {
      if (success) ok++;
      else failed++;
      draw();
    },
    done() {
      draw(true);
      if (tty) stream.write("\n");
    },
  };
}
