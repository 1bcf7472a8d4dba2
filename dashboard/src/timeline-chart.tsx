/**
 * Health over time in plain SVG. A release: one stripe per snapshot (a stretch of unchanged health),
 * coloured by health, with revision, drift and MISSING changes marked above it; hovering or focusing a stripe
 * (Tab reaches each) shows its details. The fleet: how many releases were Failed / InProgress / Unknown.
 */
import { useState } from "preact/hooks";
// Types only (erased from the bundle): the shapes the API's timeline routes answer with.
import type { FleetTimeline, TimelineEvent, TimelineStripe } from "../../shared/usecases/timeline.ts";
import { duration, when } from "./format.ts";
import { Health, healthColour } from "./ui.tsx";

const W = 1000;
const MARK = { revision: "R", drift: "D", health: "", missing: "M" } as const;

export function ReleaseTimelineChart({
  since,
  until,
  stripes,
  events,
  onPick,
}: {
  since: string;
  until: string;
  stripes: TimelineStripe[];
  events: TimelineEvent[];
  onPick?: (snapshotId: string) => void;
}) {
  const [shown, setShown] = useState<TimelineStripe | undefined>();
  const t0 = Date.parse(since);
  const span = Math.max(1, Date.parse(until) - t0);
  const x = (iso: string) => ((Date.parse(iso) - t0) / span) * W;
  const marks = events.filter((e) => e.kind !== "health");
  return (
    <figure class="timeline">
      <svg viewBox={`0 0 ${W} 70`} aria-label="health timeline" preserveAspectRatio="none">
        <rect x="0" y="30" width={W} height="30" class="empty" />
        {stripes.map((s) => {
          const left = x(s.from);
          const width = Math.max(3, x(s.to) - left);
          const label = `${s.health} from ${when(s.firstSeenAt)} to ${when(s.lastSeenAt)}, revision ${s.revision}, seen ${s.seenCount} times${s.driftCount ? `, ${s.driftCount} drifted` : ""}`;
          return (
            // biome-ignore lint/a11y/useSemanticElements: an SVG shape cannot be a <button>; it gets the role and keys
            <rect
              key={s.snapshotId}
              x={left}
              y="30"
              width={width}
              height="30"
              class={`stripe h-${s.health}`}
              style={healthColour(s.health)}
              tabIndex={0}
              role="button"
              aria-label={label}
              onMouseEnter={() => setShown(s)}
              onFocus={() => setShown(s)}
              onClick={() => onPick?.(s.snapshotId)}
              onKeyDown={(e) => {
                if (e.key === "Enter" || e.key === " ") {
                  e.preventDefault();
                  onPick?.(s.snapshotId);
                }
              }}
            >
              <title>{label}</title>
            </rect>
          );
        })}
        {marks.map((e, i) => (
          <g key={i} class={`mark m-${e.kind}`}>
            <line x1={x(e.at)} x2={x(e.at)} y1="14" y2="62" />
            <text x={x(e.at) + 3} y="12">
              {MARK[e.kind]}
            </text>
            <title>{`${when(e.at)}: ${e.text}`}</title>
          </g>
        ))}
      </svg>
      <div class="axis" aria-hidden="true">
        <span>{when(since)}</span>
        <span>{when(until)}</span>
      </div>
      <figcaption aria-live="polite">
        {shown ? (
          <>
            <Health health={shown.health} /> {when(shown.firstSeenAt)} → {when(shown.lastSeenAt)} (
            {duration(Date.parse(shown.lastSeenAt) - Date.parse(shown.firstSeenAt))}, seen {shown.seenCount}×), revision{" "}
            {shown.revision}
            {shown.missing ? `, ${shown.missing} missing` : ""}
            {shown.driftCount ? `, ${shown.driftCount} drifted` : ""}: {shown.message}
            {shown.cause ? <div class="cause">why: {shown.cause}</div> : null}
          </>
        ) : stripes.length === 0 ? (
          "no audit saw this release in this range"
        ) : (
          "hover or focus a stripe for its details; R marks a revision change, D drift, M a MISSING change"
        )}
      </figcaption>
    </figure>
  );
}

/** Drawn in this order: Failed last, on top, when lines coincide. */
const SERIES = [
  { key: "Unknown", label: "Unknown" },
  { key: "InProgress", label: "InProgress" },
  { key: "Failed", label: "Failed" },
] as const;

export function FleetTimelineChart({
  buckets,
  counts,
  until,
}: {
  buckets: FleetTimeline["buckets"];
  counts: FleetTimeline["counts"];
  until: string;
}) {
  const [at, setAt] = useState<number | undefined>();
  const H = 160;
  const n = buckets.length;
  // Stacked in the legend's order: equal counts of two healths would draw one line over the other.
  const tops = SERIES.map((_, k) =>
    buckets.map((_b, i) => SERIES.slice(0, k + 1).reduce((sum, s) => sum + (counts[s.key]?.[i] ?? 0), 0)),
  );
  const max = Math.max(1, ...(tops.at(-1) ?? []));
  const x = (i: number) => (i / n) * W;
  const y = (v: number) => H - (v / max) * (H - 10);
  const point = (i: number, v: number) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`;
  /** The area between two step lines: along `top` left to right, back along `bottom` right to left. */
  const band = (top: number[], bottom: number[]) => {
    const forward = top.flatMap((v, i) => [point(i, v), point(i + 1, v)]);
    const back = bottom.flatMap((v, i) => [point(i, v), point(i + 1, v)]).reverse();
    return `M${[...forward, ...back].join(" L")} Z`;
  };
  return (
    <figure class="timeline">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label={`releases per health over time, at most ${max}`}
        preserveAspectRatio="none"
        onMouseMove={(e) => {
          const box = (e.currentTarget as SVGSVGElement).getBoundingClientRect();
          setAt(Math.min(n - 1, Math.max(0, Math.floor(((e.clientX - box.left) / box.width) * n))));
        }}
      >
        <line x1="0" x2={W} y1={H} y2={H} class="baseline" />
        {SERIES.map((s, k) => (
          <path
            key={s.key}
            d={band(tops[k], k === 0 ? buckets.map(() => 0) : tops[k - 1])}
            class={`series h-${s.key}`}
            style={healthColour(s.key)}
          />
        ))}
        {at !== undefined ? <line x1={x(at)} x2={x(at)} y1="0" y2={H} class="cursor" /> : null}
      </svg>
      <div class="axis" aria-hidden="true">
        <span>{when(buckets[0])}</span>
        <span>{when(until)}</span>
      </div>
      <figcaption aria-live="polite">
        {SERIES.map((s) => (
          <span key={s.key} class="legend">
            <span class={`swatch h-${s.key}`} style={healthColour(s.key)} /> {s.label}
            {`: ${counts[s.key]?.[at ?? buckets.length - 1] ?? 0}`}
          </span>
        ))}
        {at !== undefined ? <span> at {when(buckets[at])}</span> : <span> now (peak {max} together)</span>}
      </figcaption>
    </figure>
  );
}
