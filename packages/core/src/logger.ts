// Minimal levelled logger; hosts pass their own (pino, console, ...) with the same four methods.
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /**
   * Optional (pino has it): lets the kit skip building a line that would be dropped. The per-request
   * `debug` line is only formatted when this is absent or answers true.
   */
  isLevelEnabled?(level: string): boolean;
}

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
export type LogLevel = keyof typeof LEVELS;

function format(fields?: Record<string, unknown>): string {
  if (!fields) return "";
  const parts: string[] = [];
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    const s = v instanceof Error ? (v.stack ?? v.message) : typeof v === "string" ? v : JSON.stringify(v);
    parts.push(`${k}=${s}`);
  }
  return parts.length ? ` ${parts.join(" ")}` : "";
}

export function consoleLogger(level: LogLevel = "info", sink: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Logger {
  const min = LEVELS[level];
  const at = (lvl: Exclude<LogLevel, "silent">) => (msg: string, fields?: Record<string, unknown>) => {
    if (LEVELS[lvl] >= min) sink(`${new Date().toISOString()} ${lvl.toUpperCase()} ${msg}${format(fields)}`);
  };
  return {
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    isLevelEnabled: (lvl) => (LEVELS[lvl as LogLevel] ?? 0) >= min,
  };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {}, isLevelEnabled: () => false };
