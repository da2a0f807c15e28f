// Process entry of the `mountkit` command when run from sources.
import { main } from "./cli.js";

process.exitCode = await main(process.argv.slice(2));
