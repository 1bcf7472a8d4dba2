/** The scale bench's printed tables (docs/scale.md copies them): per size, the model per cluster, the faults. */
import { type FleetModel, PERIODS_PER_MONTH_AT_5_MIN, type PeriodUsage, perClusterOf } from "./scale-cost.ts";
import { FUNCTIONS, type PhaseFigures, type SizeFigures } from "./scale-run.ts";

type Out = (line?: string) => void;
const GB = FUNCTIONS.memoryMb / 1024;
const n = (value: number, digits = 0) => value.toLocaleString("en-US", { maximumFractionDigits: digits });
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
/** Kube API requests per cluster per minute of a 5-minute period. */
const perClusterPerMinute = (p: PhaseFigures, clusters: number) => p.kubeRequests / clusters / 5;

export function usageOf(phase: PhaseFigures): PeriodUsage {
  const lambda = Object.values(phase.lambda);
  return {
    invocations: lambda.reduce((s, c) => s + c.invocations, 0),
    gbSeconds: (lambda.reduce((s, c) => s + c.billedMs, 0) / 1000) * GB,
    sqsRequests: phase.sqs.billed,
    readUnits: phase.dynamo.readUnits,
    writeUnits: phase.dynamo.writeUnits,
  };
}

export function printSize(size: SizeFigures, out: Out): void {
  out(
    "| period | wall s | Lambda invocations (by function) | GB-s | SQS requests (messages) | DynamoDB RRU | WRU | DescribeCluster (throttled) | AssumeRole (throttled) | kube requests | per cluster per minute (busiest cluster) | kube bytes |",
  );
  out("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const p of size.phases) {
    const usage = usageOf(p);
    const byFunction = Object.entries(p.lambda)
      .map(([name, c]) => `${name} ${n(c.invocations)}${c.errors ? ` (${c.errors} threw)` : ""}`)
      .join(", ");
    out(
      `| ${p.label} | ${p.seconds.toFixed(1)} | ${byFunction} | ${n(usage.gbSeconds, 1)} | ${n(p.sqs.billed)} (${n(p.sqs.messages)}) | ${n(p.dynamo.readUnits, 1)} | ${n(p.dynamo.writeUnits, 1)} | ${n(p.describeCluster.calls)} (${n(p.describeCluster.throttled)}) | ${n(p.assumeRole.calls)} (${n(p.assumeRole.throttled)}) | ${n(p.kubeRequests)} | ${perClusterPerMinute(p, size.clusters).toFixed(1)} (${(p.kubeMaxPerCluster / 5).toFixed(1)}) | ${mib(p.kubeBytes)} |`,
    );
  }
  for (const p of size.phases) out(`  ${p.label}: ${p.outcome}; mean kube request ${p.kubeMeanMs.toFixed(0)} ms`);
  const page = size.fleetPage;
  out(
    `  fleet page (${n(size.totalReleases)} releases): rows for the first render ${page.rowsColdMs.toFixed(0)} ms cold / ${page.rowsWarmMs.toFixed(0)} ms again (${n(page.rowsRru, 1)} RRU); the counts (the join) ${page.countsMs.toFixed(0)} ms (${n(page.countsRru, 1)} RRU)`,
  );
  out(`  stored: ${mib(size.storedBytes)} in both tables; Helm Secrets seeded ${mib(size.secretBytes)}`);
}

const steady = (size: SizeFigures, kind: "sync" | "audit") =>
  size.phases.find((p) => p.label.startsWith(`${kind} period 2`));

/** The model from the largest size's steady periods; prints it with the curve (per cluster at each size). */
export function printModel(sizes: SizeFigures[], out: Out): FleetModel {
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
  const periods = (["sync", "audit"] as const).map((kind) => {
    const phase = steady(largest, kind) as PhaseFigures;
    return {
      name: kind,
      perMonth: PERIODS_PER_MONTH_AT_5_MIN,
      fixed,
      perCluster: perClusterOf(usageOf(phase), fixed, largest.clusters),
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
  return { periods, storedBytesPerCluster: largest.storedBytes / largest.clusters };
}

/** What each fault cost: its clusters' sync time and requests against the healthy clusters', and the audit's Unknowns. */
export function printFaults(size: SizeFigures, out: Out): void {
  const groups = size.faults ?? {};
  const import1 = size.phases[0];
  const faulted = new Set(Object.values(groups).flat());
  const healthy = Object.entries(import1.perCluster).filter(([name]) => !faulted.has(name));
  const avg = (rows: [string, { ms?: number; requests: number }][], key: "ms" | "requests") =>
    rows.reduce((s, [, r]) => s + (r[key] ?? 0), 0) / Math.max(1, rows.length);
  out("faults (sync period 1, the import; DescribeCluster throttled for its first minute):");
  out(
    `  healthy clusters: ${avg(healthy, "ms").toFixed(0)} ms of sync worker each, ${avg(healthy, "requests").toFixed(1)} kube requests`,
  );
  for (const [fault, names] of Object.entries(groups)) {
    const rows = names.map(
      (name) => [name, import1.perCluster[name] ?? { requests: 0 }] as [string, { ms?: number; requests: number }],
    );
    out(
      `  ${fault} (${names.length}): ${avg(rows, "ms").toFixed(0)} ms of sync worker each, ${avg(rows, "requests").toFixed(1)} kube requests`,
    );
  }
  out(
    `  DescribeCluster in that period: ${import1.describeCluster.calls} calls, ${import1.describeCluster.throttled} throttled`,
  );
  for (const p of size.phases.slice(1)) out(`  ${p.label}: ${p.outcome}`);
}
