/** `npm run bench [-- status|audit|sync]`: the status engine (default), the status-history pipeline, the release sync. */
const which = process.argv[2] ?? "status";
if (which === "status") await import("./status.bench.ts");
else if (which === "audit") await import("./audit.bench.ts");
else if (which === "sync") await import("./sync.bench.ts");
else {
  process.stderr.write(`unknown bench "${which}": status (default), audit or sync\n`);
  process.exit(2);
}
