/** `npm run bench [-- status|audit|dashboard]`: the status engine (default), the status-history pipeline, the dashboard. */
const which = process.argv[2] ?? "status";
if (which === "status") await import("./status.bench.ts");
else if (which === "audit") await import("./audit.bench.ts");
else if (which === "dashboard") await import("./dashboard.bench.ts");
else {
  process.stderr.write(`unknown bench "${which}": status (default), audit or dashboard\n`);
  process.exit(2);
}
