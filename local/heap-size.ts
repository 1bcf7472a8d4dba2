/**
 * `npm start`'s heap policy, imported first by local/start.ts (issue #25 item 6). Under 200 clients V8's default
 * growth committed about three times the JS heap in use and kept it: RSS rose 174 → 310–364 MB over three rounds
 * with heapTotal 214 MB for 60–70 MB used, and nothing was given back after idling (no idle GC notifications in
 * Node). `--optimize-for-size` makes V8 grow the old space in small steps and shrink it after GCs: the same three
 * rounds stay at 139 → 157 MB (docs/reliability.md), for no measurable loss of throughput on this machine. Set at
 * run time rather than on the command line so `npm start`, the soak and the tests all run the same server.
 * The Lambdas are unaffected (their memory is a fixed allowance, and they serve one request at a time).
 */
import { setFlagsFromString } from "node:v8";

setFlagsFromString("--optimize-for-size");
