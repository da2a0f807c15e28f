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

type PinoMethod = (obj: Record<string, unknown>, msg?: string) => void;
/** pino's shape (also Fastify's `app.log` and `request.log`): fields first, then the message. */
interface PinoLike {
  debug: PinoMethod;
  info: PinoMethod;
  warn: PinoMethod;
  error: PinoMethod;
  child(bindings: Record<string, unknown>): PinoLike;
  isLevelEnabled?(level: string): boolean;
  levels: object;
}

const isPinoLike = (l: object): l is PinoLike =>
  typeof (l as Partial<PinoLike>).child === "function" && typeof (l as Partial<PinoLike>).levels === "object";

const adapted = new WeakMap<object, Logger>();

/**
 * The kit's view of a host logger. A pino logger (or Fastify's `app.log` / `request.log`) fits the
 * `Logger` type but takes `(obj, msg)`, so a plain call would log the message and drop every field:
 * here it gets its fields object first, the error under `err` (pino's error serialiser: type, message,
 * stack), and lines about one request go through `child({ requestId })`.
 */
export function kitLogger(logger: Logger | undefined): Logger {
  if (!logger) return silentLogger;
  if (!isPinoLike(logger)) return logger;
  const known = adapted.get(logger);
  if (known) return known;
  const pino = logger;
  const at =
    (level: "debug" | "info" | "warn" | "error") =>
    (msg: string, fields?: Record<string, unknown>): void => {
      const { requestId, error, ...rest } = fields ?? {};
      const obj: Record<string, unknown> = rest;
      if (error !== undefined) obj[error instanceof Error ? "err" : "error"] = error;
      const target = typeof requestId === "string" ? pino.child({ requestId }) : pino;
      target[level](obj, msg);
    };
  const kit: Logger = {
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    isLevelEnabled: (level) => pino.isLevelEnabled?.(level) ?? true,
  };
  adapted.set(logger, kit);
  return kit;
}
