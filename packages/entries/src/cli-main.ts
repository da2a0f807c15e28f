// Process entry of the `mountkit-entries` command when run from sources (bin/mountkit-entries.js starts it through tsx).
import { main } from "./cli.js";

process.exitCode = await main(process.argv.slice(2));
