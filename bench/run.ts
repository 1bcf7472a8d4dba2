/**
 * `npm run bench [-- status|audit|cli|sync|reliability|dashboard|mcp|scale]`: the status engine (default), the
 * status-history pipeline, the CLI's start, the release sync, the reliability report's reads, the dashboard, the MCP
 * tools' cost, a fleet.
 */
const which = process.argv[2] ?? "status";
if (which === "status") await import("./status.bench.ts");
else if (which === "audit") await import("./audit.bench.ts");
else if (which === "cli") await import("./cli.bench.ts");
else if (which === "sync") await import("./sync.bench.ts");
else if (which === "reliability") await import("./reliability.bench.ts");
else if (which === "dashboard") await import("./dashboard.bench.ts");
else if (which === "mcp") await import("./mcp.bench.ts");
else if (which === "scale") await import("./scale.bench.ts");
else {
  process.stderr.write(
    `unknown bench "${which}": status (default), audit, cli, sync, reliability, dashboard, mcp or scale\n`,
  );
  process.exit(2);
}
