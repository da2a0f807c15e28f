// `npm start`: one process hosting all three services, configured by the environment only.
import { consoleLogger, type LogLevel } from "@mountkit/core";
import { type App, createApp } from "./app.js";
import { FRAMEWORKS, type Framework, listen } from "./listen.js";
import { type DevCredentials, modeFromEnv } from "./mode.js";
import { startTelemetry, type Telemetry } from "./telemetry.js";

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

/** The generated credentials, once, for the developer at the console (development mode only). */
function devBanner(url: string, c: DevCredentials): string {
  const lines = [
    `front door: ${url}/  (every service, its pages, its API reference and these credentials)`,
    ...(c.memoryKey ? [`memory key (brain "dev"): ${c.memoryKey}`] : []),
    ...(c.entriesToken ? [`entries token: ${c.entriesToken}`] : []),
    ...(c.agentToken ? [`agent token (inbox sign-in): ${c.agentToken}`] : []),
    ...(c.spiToken ? [`SPI token (/care): ${c.spiToken}`] : []),
  ];
  return `development mode (MOUNTKIT_ENV=production turns it off)\n${lines.map((l) => `  ${l}`).join("\n")}\n`;
}

let telemetry: Telemetry;
let app: App;
let running: Awaited<ReturnType<typeof listen>>;
try {
  // before the services: the kit takes its instruments as each one is built
  telemetry = startTelemetry(env, modeFromEnv(env));
  app = await createApp(env, { logger, selfUrl: () => selfUrl, prometheus: telemetry.prometheus });
  running = await listen(framework, [...app.services, app.host], { port, host, logger });
} catch (e) {
  // configuration and start-up problems are the operator's: one clear line, no stack trace
  logger.error(`cannot start: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(2);
}
selfUrl = running.url;
process.stdout.write(`listening on ${running.url}\n`);
for (const line of telemetry.summary) logger.info(line);
if (app.mode === "development") process.stdout.write(devBanner(running.url, app.credentials));

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
    await telemetry.shutdown();
  } catch (e) {
    logger.error("error during shutdown", { error: e });
    process.exitCode = 1;
  }
  clearTimeout(force);
  process.exit(process.exitCode ?? 0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
