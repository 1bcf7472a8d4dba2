/** `npm run bench [-- status|audit]`: the status engine (default) or the status-history pipeline. */
const which = process.argv[2] ?? "status";
if (which === "status") await import("./status.bench.ts");
else if (which === "audit") await import("./audit.bench.ts");
else {
  process.stderr.write(`unknown bench "${which}": status (default) or audit\n`);
  process.exit(2);
}
