/** The scale bench's printed tables (docs/scale.md copies them): per size, the model per cluster, the faults. */
import { type FleetModel, PERIODS_PER_MONTH_AT_5_MIN, type PeriodUsage, perClusterOf } from "./scale-cost.ts";
import { FUNCTIONS, type PhaseFigures, type SizeFigures } from "./scale-run.ts";

type Out = (line?: string) => void;
const GB = FUNCTIONS.memoryMb / 1024;
const n = (value: number, digits = 0) => value.toLocaleString("en-US", { maximumFractionDigits: digits });
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
/** Kube API requests per cluster per minute of a 5-minute period. */
const perClusterPerMinute = (p: PhaseFigures, clusters: number) => p.kubeRequests / clusters / 5;

/** Lambda gives a function CPU in proportion to its memory: one vCPU at 1,769 MB. */
const VCPU_SHARE = FUNCTIONS.memoryMb / 1769;

/**
 * A period's usage. `wall`: GB-s from the invocations' measured wall time — on this 2-core machine ten
 * environments share a core with the simulator and DynamoDB Local, so it is an upper bound. `cpu`: GB-s from the
 * functions' CPU time at the vCPU share Lambda gives the configured memory — a floor that leaves out waiting.
 */
export function usageOf(phase: PhaseFigures, basis: "wall" | "cpu" = "wall"): PeriodUsage {
  const lambda = Object.values(phase.lambda);
  const seconds =
    basis === "wall" ? lambda.reduce((s, c) => s + c.billedMs, 0) / 1000 : phase.functionsCpuSeconds / VCPU_SHARE;
  return {
    invocations: lambda.reduce((s, c) => s + c.invocations, 0),
    gbSeconds: seconds * GB,
    sqsRequests: phase.sqs.billed,
    readUnits: phase.dynamo.readUnits,
    writeUnits: phase.dynamo.writeUnits,
  };
}

export function printSize(size: SizeFigures, out: Out): void {
  out(
    "| period | wall s | Lambda invocations (by function) | GB-s wall (CPU floor) | SQS requests (messages) | DynamoDB RRU | WRU | DescribeCluster (throttled) | AssumeRole (throttled) | kube requests | per cluster per minute (busiest cluster) | kube bytes |",
  );
  out("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const p of size.phases) {
    const usage = usageOf(p);
    const byFunction = Object.entries(p.lambda)
      .map(([name, c]) => `${name} ${n(c.invocations)}${c.errors ? ` (${c.errors} failed)` : ""}`)
      .join(", ");
    out(
      `| ${p.label} | ${p.seconds.toFixed(1)} | ${byFunction} | ${n(usage.gbSeconds, 1)} (${n(usageOf(p, "cpu").gbSeconds, 1)}) | ${n(p.sqs.billed)} (${n(p.sqs.messages)}) | ${n(p.dynamo.readUnits, 1)} | ${n(p.dynamo.writeUnits, 1)} | ${n(p.describeCluster.calls)} (${n(p.describeCluster.throttled)}) | ${n(p.assumeRole.calls)} (${n(p.assumeRole.throttled)}) | ${n(p.kubeRequests)} | ${perClusterPerMinute(p, size.clusters).toFixed(1)} (${(p.kubeMaxPerCluster / 5).toFixed(1)}) | ${mib(p.kubeBytes)} |`,
    );
  }
  for (const p of size.phases) {
    out(
      `  ${p.label}: ${p.outcome}; mean kube request ${p.kubeMeanMs.toFixed(0)} ms; bytes sent/received: DynamoDB ${mib(p.dynamo.bytesIn)}/${mib(p.dynamo.bytesOut)}, SQS ${mib(p.sqs.bytesIn)}/${mib(p.sqs.bytesOut)}; empty receives ${p.sqsEmptyReceives}`,
    );
  }
  const page = size.fleetPage;
  out(
    `  fleet page (${n(size.totalReleases)} releases): rows for the first render ${page.rowsColdMs.toFixed(0)} ms cold / ${page.rowsWarmMs.toFixed(0)} ms again (${n(page.rowsRru, 1)} RRU); the counts (the join) ${page.countsMs.toFixed(0)} ms (${n(page.countsRru, 1)} RRU)`,
  );
  for (const error of page.errors) out(`  fleet page read FAILED: ${error}`);
  out(`  stored: ${mib(size.storedBytes)} in both tables; Helm Secrets seeded ${mib(size.secretBytes)}`);
}

export const steady = (size: SizeFigures, kind: "sync" | "audit") =>
  size.phases.find((p) => p.label.startsWith(`${kind} period 2`));

/** The model from the largest size's steady periods; prints it with the curve (per cluster at each size). */
export function printModel(sizes: SizeFigures[], out: Out): { wall: FleetModel; cpu: FleetModel } {
  out("the curve: per cluster per steady period (sync | audit)");
  out(
    "| size | GB-s | SQS requests | RRU | WRU | DescribeCluster | AssumeRole | kube requests | wall s (sync, audit) |",
  );
  out("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const size of sizes) {
    const sync = steady(size, "sync");
    const audit = steady(size, "audit");
    if (!sync || !audit) continue;
    const [s, a] = [usageOf(sync), usageOf(audit)];
    const c = size.clusters;
    const pair = (x: number, y: number, digits = 2) => `${(x / c).toFixed(digits)} \\| ${(y / c).toFixed(digits)}`;
    out(
      `| ${size.clusters}x${size.releases} | ${pair(s.gbSeconds, a.gbSeconds, 3)} | ${pair(s.sqsRequests, a.sqsRequests)} | ${pair(s.readUnits, a.readUnits, 1)} | ${pair(s.writeUnits, a.writeUnits, 1)} | ${pair(sync.describeCluster.calls, audit.describeCluster.calls)} | ${pair(sync.assumeRole.calls, audit.assumeRole.calls)} | ${pair(sync.kubeRequests, audit.kubeRequests, 1)} | ${sync.seconds.toFixed(0)}, ${audit.seconds.toFixed(0)} |`,
    );
  }
  const largest = sizes.at(-1) as SizeFigures;
  const fixed = { invocations: 1, gbSeconds: 0, sqsRequests: 0, readUnits: 0, writeUnits: 0 };
  const periods = (basis: "wall" | "cpu") =>
    (["sync", "audit"] as const).map((kind) => {
      const phase = steady(largest, kind) as PhaseFigures;
      return {
        name: kind,
        perMonth: PERIODS_PER_MONTH_AT_5_MIN,
        fixed,
        perCluster: perClusterOf(usageOf(phase, basis), fixed, largest.clusters),
      };
    });
  const audit = steady(largest, "audit") as PhaseFigures;
  const perRelease = usageOf(audit);
  out(
    `per release per audit period (${largest.clusters}x${largest.releases}): ${(perRelease.gbSeconds / largest.totalReleases).toFixed(4)} GB-s, ${(perRelease.readUnits / largest.totalReleases).toFixed(2)} RRU, ${(perRelease.writeUnits / largest.totalReleases).toFixed(2)} WRU, ${(audit.kubeRequests / largest.totalReleases).toFixed(2)} kube requests`,
  );
  const msPerRelease = ((perRelease.gbSeconds / GB) * 1000) / largest.totalReleases;
  out(
    `  -> 50,000 releases in one 5-minute period need ${Math.ceil((50_000 * msPerRelease) / 300_000)} concurrent audit workers at the measured ${msPerRelease.toFixed(1)} ms of billed duration per release (Lambda's default account concurrency: 1,000; the worker's maximumConcurrency: ${FUNCTIONS.auditWorker.concurrency})`,
  );
  const stored = largest.storedBytes / largest.clusters;
  return {
    wall: { periods: periods("wall"), storedBytesPerCluster: stored },
    cpu: { periods: periods("cpu"), storedBytesPerCluster: stored },
  };
}

/**
 * What each fault cost, in the first period after it (sync period 2; the audits follow): its clusters' sync
 * worker time, requests and failures against the healthy clusters'; the big cluster's import against the others'.
 */
export function printFaults(size: SizeFigures, out: Out): void {
  const groups = size.faults ?? {};
  const [imported, afterFault] = size.phases;
  const faulted = new Set(Object.values(groups).flat());
  type Row = { ms?: number; requests: number; failed?: boolean };
  const line = (label: string, rows: Row[]) => {
    const avg = (key: "ms" | "requests") => rows.reduce((s, r) => s + (r[key] ?? 0), 0) / Math.max(1, rows.length);
    const failed = rows.filter((r) => r.failed).length;
    out(
      `  ${label} (${rows.length}): ${avg("ms").toFixed(0)} ms of sync worker each, ${avg("requests").toFixed(1)} kube requests each, ${failed} failed`,
    );
  };
  const pick = (phase: PhaseFigures, names: string[]) => names.map((name) => phase.perCluster[name] ?? { requests: 0 });
  const healthy = Object.keys(afterFault.perCluster).filter((name) => !faulted.has(name));
  out("faults, sync period 2 (the first after them; DescribeCluster throttled throughout it):");
  line("healthy clusters", pick(afterFault, healthy));
  for (const [fault, names] of Object.entries(groups)) line(fault, pick(afterFault, names));
  out(
    `  DescribeCluster: ${afterFault.describeCluster.calls} calls, ${afterFault.describeCluster.throttled} throttled`,
  );
  out("the big cluster's import (sync period 1) against the others':");
  line(
    "others",
    pick(
      imported,
      Object.keys(imported.perCluster).filter((name) => !groups.big?.includes(name)),
    ),
  );
  line("big", pick(imported, groups.big ?? []));
  for (const p of size.phases.slice(2)) out(`  ${p.label}: ${p.outcome}`);
}
