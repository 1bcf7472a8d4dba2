/** `npm run bench [-- status|audit|cli]`: the status engine (default), the status-history pipeline, the CLI's start. */
const which = process.argv[2] ?? "status";
if (which === "status") await import("./status.bench.ts");
else if (which === "audit") await import("./audit.bench.ts");
else if (which === "cli") await import("./cli.bench.ts");
else {
  process.stderr.write(`unknown bench "${which}": status (default), audit or cli\n`);
  process.exit(2);
}
