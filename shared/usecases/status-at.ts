/**
 * `status RELEASE --at TIME` and `?at=` on the status route: the release as the audits saw it then, from the
 * snapshot that covers that time (its status text as recorded), with a first line naming the snapshot and when
 * it was observed. A time no audit covered is a clear NoSnapshotCoverage answer saying why (before the first
 * audit, a gap, past retention, no audits yet); a time in the future is a 400. `--against B` diffs the snapshots
 * that cover two times (the snapshot diff of `snapshots diff`).
 */
import { releaseInScope } from "../clusters/scope.ts";
import type { ReleaseKey } from "../release/model.ts";
import { InvalidHistoryQueryError, NoSnapshotCoverageError } from "../snapshots/errors.ts";
import type { Snapshot } from "../snapshots/model.ts";
import { expired, retainedSince } from "../snapshots/retention.ts";
import { gapThresholdMs } from "../snapshots/timeline.ts";
import type { VisibleSnapshot } from "../snapshots/visible.ts";
import { type ReliabilityDeps, rulesOf } from "./reliability.ts";
import { detailOf, diffSnapshots, forCaller, parseTime, type SnapshotDiff } from "./snapshots.ts";

/** `observed`: between the snapshot's first and last sighting; `held`: after its last one, the next audit not due yet. */
export type Coverage = "observed" | "held";

export interface StatusAt {
  at: string;
  coverage: Coverage;
  /** The snapshot with its status text, as the caller may see it. */
  snapshot: VisibleSnapshot<Snapshot>;
  /** The first line to print before the text: which snapshot, when observed. */
  header: string;
}

/** `--at`: RFC 3339, or a duration ago written either way (`2h`, `-2h`). */
export function parseAt(name: string, value: string | undefined, now: Date): Date {
  const written = value?.startsWith("-") ? value.slice(1) : value;
  // `-` alone is no duration: it once reached the store as an undefined time (a 500).
  if (written === undefined || written.trim() === "") throw new InvalidHistoryQueryError(`${name} needs a time`);
  const at = parseTime(name, written, now)!;
  if (at > now) {
    throw new InvalidHistoryQueryError(
      `${name} (${at.toISOString()}) is in the future: the history knows only the past (without ${name}: the live status)`,
    );
  }
  return at;
}

export async function statusAt(deps: ReliabilityDeps, key: ReleaseKey, atValue: string): Promise<StatusAt> {
  const release = releaseInScope(deps.clusters, key);
  const now = deps.clock.now();
  const at = parseAt("at", atValue, now);
  const found = await coveringSnapshot(deps, release, at, now);
  const snapshot = forCaller(deps.clusters, await deps.snapshots.get(found.snapshot.id, now));
  const seen = `first seen ${snapshot.firstSeenAt}, last seen ${snapshot.lastSeenAt}, seen ${snapshot.seenCount} time${snapshot.seenCount === 1 ? "" : "s"}`;
  const why = found.coverage === "held" ? "; the next audit was not due yet" : "";
  return {
    at: at.toISOString(),
    coverage: found.coverage,
    snapshot,
    header: `SNAPSHOT: ${snapshot.id} as of ${at.toISOString()} (${seen}${why})`,
  };
}

/** The JSON/YAML document of `status --at`: the time, how it is covered, the snapshot and its text. */
export function statusAtDocument(result: StatusAt) {
  return {
    at: result.at,
    coverage: result.coverage,
    snapshot: detailOf(result.snapshot),
    text: result.snapshot.text ?? "",
  };
}

/** The text form: the header line, then the status text as the snapshot recorded it. */
export function statusAtText(result: StatusAt): string {
  return `${result.header}\n${result.snapshot.text ?? ""}`;
}

/** `status --at A --against B`: the snapshot covering A against the one covering B. */
export async function diffAt(
  deps: ReliabilityDeps,
  key: ReleaseKey,
  atValue: string,
  againstValue: string,
): Promise<SnapshotDiff> {
  const release = releaseInScope(deps.clusters, key);
  const now = deps.clock.now();
  // Both times parsed before any read starts: a bad `against` once threw while the read for `at` was running,
  // and that read's rejection was left unhandled (issue #38 item 2: the process died).
  const at = parseAt("at", atValue, now);
  const against = parseAt("against", againstValue, now);
  const [to, from] = await Promise.all([
    coveringSnapshot(deps, release, at, now),
    coveringSnapshot(deps, release, against, now),
  ]);
  return diffSnapshots(deps, to.snapshot.id, from.snapshot.id, release);
}

async function coveringSnapshot(
  deps: ReliabilityDeps,
  release: ReleaseKey,
  at: Date,
  now: Date,
): Promise<{ snapshot: Snapshot; coverage: Coverage }> {
  const when = at.toISOString();
  const retained = retainedSince(now, deps.settings.retentionDays);
  if (at < retained) {
    throw new NoSnapshotCoverageError(
      `no snapshot covers ${when}: it is past the history's retention (${deps.settings.retentionDays} days, kept since ${retained.toISOString()})`,
    );
  }
  // The newest snapshot first seen at or before `at`.
  const page = await deps.snapshots.list(release, { until: at, limit: 1 }, now);
  const snapshot = page.items[0];
  if (!snapshot) {
    const latest = await deps.snapshots.latest(release);
    if (latest && !expired(latest, now)) {
      throw new NoSnapshotCoverageError(
        `no snapshot covers ${when}: it is before the first retained audit of ${release.namespace}/${release.name}`,
      );
    }
    // An unknown release is its own 404 (release: not found).
    if (deps.releases) await deps.releases.getLatest(release);
    throw new NoSnapshotCoverageError(
      `no snapshot covers ${when}: ${release.namespace}/${release.name} has not been audited yet`,
    );
  }
  const lastSeen = Date.parse(snapshot.lastSeenAt);
  if (at.getTime() <= lastSeen) return { snapshot, coverage: "observed" };
  const threshold = gapThresholdMs(rulesOf(deps));
  if (at.getTime() - lastSeen <= threshold) return { snapshot, coverage: "held" };
  throw new NoSnapshotCoverageError(
    `no snapshot covers ${when}: the audits did not look then (a gap: ${snapshot.id} was last seen at ${snapshot.lastSeenAt}, more than ${Math.round(threshold / 1000)} s before)`,
  );
}
