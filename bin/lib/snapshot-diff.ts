/** A snapshot diff as `snapshots diff` and `status --at A --against B` print it. */

import { renderStructured } from "../../shared/render/index.ts";
import { describeChange } from "../../shared/snapshots/changes.ts";
import type { SnapshotDiff } from "../../shared/usecases/snapshots.ts";
import type { CliIO } from "./run.ts";

export function printSnapshotDiff(io: CliIO, result: SnapshotDiff, format: "table" | "json" | "yaml"): void {
  if (format !== "table") {
    io.stdout.write(renderStructured(result, format));
    return;
  }
  io.stdout.write(`changes ${result.from} -> ${result.to}:\n`);
  for (const change of result.changes) io.stdout.write(`  ${describeChange(change)}\n`);
  if (result.changes.length === 0) io.stdout.write("  (none in health, revision or missing resources)\n");
  io.stdout.write(`\n${result.diff}`);
}
