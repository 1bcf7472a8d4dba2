/**
 * The status bench's report pieces (status.bench.ts): one sample's row, the drift A/B lines and, last, every
 * figure of issue #12 next to its target.
 */
import type { StatusReport } from "../shared/status/report.ts";
import { detectCpuMs, driftInputs } from "./drift-cost.ts";
import { median, spread } from "./lib.ts";
import type { BundleFigures } from "./status-bundle.ts";
import type { ColdFigures, ScaleFigures } from "./status-cold-scale.ts";
import type { ApiLoadFigures, ThroughputFigures } from "./status-load.ts";
import type { RssFigures } from "./status-rss.ts";

export interface Sample {
  ms: number;
  requests: number;
  maxInFlight: number;
  discovery: number;
  /** The main thread's event loop busy time (ELU active, wall clock: includes time the OS ran something else). */
  busyMs?: number;
  /** CPU time the main thread itself used (user + system). */
  cpuMs?: number;
  /** CPU time the simulator's thread used meanwhile (the API server's side). */
  simCpuMs?: number;
  /** In flight as the engine counts them (the simulator's own count can be one higher: see docs/bench.md). */
  engineMaxInFlight?: number;
  /** TCP+TLS connections the engine's HTTP client opened during the run (0 when its pool is warm). */
  connects?: number;
}

export function zero(): Sample {
  return { ms: 0, requests: 0, maxInFlight: 0, discovery: 0 };
}

function fmt(ms: number): string {
  return `${ms.toFixed(0).padStart(6)} ms`;
}

/** One row of the warm table: median time (min–max), requests, in flight and, for the engine, CPU. */
export function sampleRow(label: string, list: Sample[], note = ""): string {
  const last = list.at(-1) ?? zero();
  const engine = last.engineMaxInFlight !== undefined;
  const med = (pick: (x: Sample) => number | undefined) => median(list.map((x) => pick(x) ?? 0)).toFixed(0);
  const inFlight = engine ? `${last.engineMaxInFlight} (simulator saw ${last.maxInFlight})` : `${last.maxInFlight}`;
  const busy = engine
    ? `; CPU: engine ${med((x) => x.cpuMs)} ms (event loop busy ${med((x) => x.busyMs)} ms), simulator ${med((x) => x.simCpuMs)} ms; new connections ${list.reduce((n, x) => n + (x.connects ?? 0), 0)}`
    : "";
  const times = `${fmt(median(list.map((x) => x.ms)))}  (${spread(list.map((x) => x.ms))})`;
  return `  ${label.padEnd(26)}${times}  requests ${last.requests} (discovery ${last.discovery}), max in flight ${inFlight}${busy}${note}`;
}

/** What comparing live objects with the manifest adds to the engine's CPU per status (docs/drift.md). */
export function driftCost(label: string, withDrift: Sample[], without: Sample[]): string {
  const on = median(withDrift.map((x) => x.cpuMs ?? 0));
  const off = median(without.map((x) => x.cpuMs ?? 0));
  const share = off > 0 ? ((on - off) / off) * 100 : 0;
  return `  drift A/B, ${label.padEnd(15)} CPU per status ${on.toFixed(1)} ms with drift, ${off.toFixed(1)} ms without: ${share >= 0 ? "+" : ""}${share.toFixed(1)}% (within run-to-run noise)`;
}

export function driftAlone(report: StatusReport, manifest: string, engineCpuMs: number): string[] {
  const { clean, drifted } = driftInputs(report, manifest);
  const share = (ms: number) =>
    `${((ms / engineCpuMs) * 100).toFixed(1)}% of the engine's ${engineCpuMs.toFixed(0)} ms`;
  const a = detectCpuMs(clean);
  const b = detectCpuMs(drifted);
  return [
    `  drift alone, measured      ${clean.length} objects as read: ${a.ms.toFixed(2)} ms CPU per status (${share(a.ms)})`,
    `                             every Deployment drifted (${b.fields} fields, managedFields read): ${b.ms.toFixed(2)} ms (${share(b.ms)})`,
  ];
}

export interface TargetInputs {
  warm: { engine: number; limit: number; helm?: number; cannedOverLimit: number };
  cold: ColdFigures;
  scale: ScaleFigures;
  many: ThroughputFigures;
  bundled: BundleFigures;
  rss: RssFigures;
  api: ApiLoadFigures;
  machineAfter: string;
}

/** Every figure of issue #12 next to its target ("met" / "NOT met"), as the bench prints them last. */
export function targetLines({ warm, cold, scale, many, bundled, rss, api, machineAfter }: TargetInputs): string[] {
  const target = (label: string, value: string, goal: string, met: boolean) =>
    `  ${label.padEnd(44)}${value.padStart(12)}   target ${goal.padEnd(10)} ${met ? "met" : "NOT met"}`;
  return [
    "targets (issue #12), this run",
    target(
      "warm 40-resource status: engine / limit",
      `${(warm.engine / warm.limit).toFixed(2)}x`,
      "<= 1.3x",
      warm.engine / warm.limit <= 1.3,
    ),
    `  ${"  the same against canned answers".padEnd(44)}${`${warm.cannedOverLimit.toFixed(2)}x`.padStart(12)}   (no target: the engine's own part, no simulator work)`,
    warm.helm !== undefined
      ? target(
          "warm: helm v4 / engine",
          `${(warm.helm / warm.engine).toFixed(1)}x`,
          ">= 25x",
          warm.helm / warm.engine >= 25,
        )
      : "  warm: helm v4 / engine                      n/a (no helm)",
    target("cold: engine / limit", `${cold.engineOverLimit.toFixed(2)}x`, "<= 2.5x", cold.engineOverLimit <= 2.5),
    target(
      "cold (registry endpoint + CA): engine / limit",
      `${cold.withFactsOverLimit.toFixed(2)}x`,
      "<= 2.5x",
      cold.withFactsOverLimit <= 2.5,
    ),
    target("cold: discovery requests (built-in kinds)", String(cold.discovery), "0", cold.discovery === 0),
    ...[10, 40, 160, 640].map((n) =>
      target(
        `engine CPU per read, N=${n}`,
        `${scale.cpuPerRead[n].toFixed(3)} ms`,
        "<= 0.3 ms",
        scale.cpuPerRead[n] <= 0.3,
      ),
    ),
    target(
      "per-cluster limit honoured (engine max in flight)",
      `${many.maxInFlight}`,
      `<= ${many.limit}`,
      many.maxInFlight <= many.limit,
    ),
    target("429 storm: statuses with errors", String(many.stormErrors), "0", many.stormErrors === 0),
    `  ${"statuses/s calm -> 429 storm".padEnd(44)}${`${many.perSecond.toFixed(1)} -> ${many.stormPerSecond.toFixed(1)}`.padStart(12)}`,
    target("handler import / bare SDK import", `${bundled.importRatio.toFixed(2)}x`, "<= 2x", bundled.importRatio <= 2),
    target("API zip", `${bundled.zippedMb.toFixed(2)} MB`, "<= 1.5 MB", bundled.zippedMb <= 1.5),
    `  ${"Lambda cold start (import + first status) / (SDK import + limit)".padEnd(44)}${bundled.coldStartOverFloor === undefined ? "n/a" : `${bundled.coldStartOverFloor.toFixed(2)}x`.padStart(12)}   (no target: the end-to-end view)`,
    `  ${"marginal engine CPU per read".padEnd(44)}${`${scale.marginal.toFixed(3)} ms`.padStart(12)}   (no target: N=10's figure is mostly fixed cost)`,
    target("cli status peak RSS, 5 MB manifest", `${rss.peakMb.toFixed(0)} MB`, "<= 256 MB", rss.peakMb <= 256),
    target("local API under 200 clients: 5xx", String(api.fiveHundreds), "0", api.fiveHundreds === 0),
    `  ${"local API RSS before -> after".padEnd(44)}${`${api.rssBeforeMb.toFixed(0)} -> ${api.rssAfterMb.toFixed(0)} MB`.padStart(12)}`,
    `machine after: ${machineAfter}`,
  ];
}
