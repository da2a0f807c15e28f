// Another process holding the SQLite write lock (issue 24). Started before the scenario's window opens (its own
// start-up must not be measured): opens the file and prints `ready`; on the stdin line `lock` takes `BEGIN EXCLUSIVE`
// (in WAL mode it shuts out writers, not readers), prints `locked`, holds it for argv[3] ms, then commits and exits.
// argv: <sqlite file> <hold ms>
import Database from "better-sqlite3";

const [file, hold] = process.argv.slice(2);
const db = new Database(file!);
// the server may be writing at this moment: wait for it rather than fail
db.pragma("busy_timeout = 10000");
process.stdin.setEncoding("utf8").once("data", () => {
  db.exec("BEGIN EXCLUSIVE");
  process.stdout.write("locked\n");
  setTimeout(() => {
    db.exec("COMMIT");
    db.close();
    process.stdout.write("released\n");
    process.exit(0);
  }, Number(hold));
});
process.stdout.write("ready\n");
