// `npm start`: one process hosting all three services, configured by the environment only.
import { consoleLogger, type LogLevel } from "@mountkit/core";
import { createApp } from "./app.js";
import { FRAMEWORKS, type Framework, listen } from "./listen.js";

const env = process.env;
const logger = consoleLogger((env.LOG_LEVEL as LogLevel | undefined) ?? "info");
const framework = (env.FRAMEWORK ?? "fastify") as Framework;
if (!FRAMEWORKS.includes(framework)) {
  logger.error(`FRAMEWORK must be one of ${FRAMEWORKS.join(", ")}; got ${framework}`);
  process.exit(2);
}
const port = Number(env.PORT ?? 3000);
const host = env.HOST ?? "127.0.0.1";
let selfUrl = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;

let app: Awaited<ReturnType<typeof createApp>>;
let running: Awaited<ReturnType<typeof listen>>;
try {
  app = await createApp(env, { logger, selfUrl: () => selfUrl });
  running = await listen(framework, app.services, { port, host, logger });
} catch (e) {
  // configuration and start-up problems are the operator's: one clear line, no stack trace
  logger.error(`cannot start: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(2);
}
selfUrl = running.url;
process.stdout.write(`listening on ${running.url}\n`);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info(`${signal}: shutting down`);
  const force = setTimeout(() => {
    logger.error("shutdown timed out");
    process.exit(1);
  }, 15_000);
  force.unref();
  try {
    await running.close();
    await app.close();
  } catch (e) {
    logger.error("error during shutdown", { error: e });
    process.exitCode = 1;
  }
  clearTimeout(force);
  process.exit(process.exitCode ?? 0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
