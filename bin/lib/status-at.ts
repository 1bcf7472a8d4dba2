/**
 * `status RELEASE --at TIME [--against TIME]`: the release as the audits saw it, from the status history (no
 * cluster read); with --against, the diff of the snapshots covering the two times.
 */
import { systemClock } from "../../shared/ports.ts";
import type { ReleaseKey } from "../../shared/release/model.ts";
import { renderStructured } from "../../shared/render/index.ts";
import { diffAt, statusAt, statusAtDocument, statusAtText } from "../../shared/usecases/status-at.ts";
import { cliClusterScope } from "./clusters.ts";
import { withCliHistory } from "./history.ts";
import type { CliIO } from "./run.ts";
import { printSnapshotDiff } from "./snapshot-diff.ts";

export async function printStatusAt(
  io: CliIO,
  key: ReleaseKey,
  times: { at: string; against?: string },
  output: "table" | "json" | "yaml",
): Promise<number> {
  const clusters = cliClusterScope(io.env);
  return withCliHistory(io.env, async ({ snapshots, store, settings }) => {
    const deps = { snapshots, releases: store, clusters, clock: systemClock, settings };
    if (times.against !== undefined) {
      printSnapshotDiff(io, await diffAt(deps, key, times.at, times.against), output);
      return 0;
    }
    const result = await statusAt(deps, key, times.at);
    io.stdout.write(output === "table" ? statusAtText(result) : renderStructured(statusAtDocument(result), output));
    return 0;
  });
}
