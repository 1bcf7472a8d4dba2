/**
 * `npm run bench -- scale [--sizes 10x50,100x50 | none] [--clusters N --releases M] [--faults 100x5 [--big 5000]]
 * [--json FILE]`: the product's sync and audit functions over a simulated fleet (issue #36, docs/scale.md), one
 * size after another (the curve), then, with --faults, a fleet with the issue's faults. Prints per size and period: Lambda
 * invocations and GB-seconds, SQS requests, DynamoDB read/write units, DescribeCluster and AssumeRole calls, kube
 * requests (per cluster per minute) and bytes, the fleet page's reads; then the model per cluster and the monthly
 * bill (bench/scale-cost.ts). Never asserts. Bounded: gives up after 10 minutes.
 */
import { writeFileSync } from "node:fs";
import { startDynamoDbLocal } from "../local/dynamodb-local.ts";
import { startLocalSqs } from "../local/fauxqs.ts";
import { machineLoad, startWatchdog } from "./lib.ts";
import { monthlyBill, PERIODS_PER_MONTH_AT_5_MIN, PRICES_US_EAST_1 } from "./scale-cost.ts";
import { startMeteringProxy } from "./scale-meter.ts";
import { printFaults, printModel, printSize } from "./scale-report.ts";
import { runSize, type SizeFigures } from "./scale-run.ts";

const WATCHDOG_MS = 10 * 60_000;
const LATENCY_MS = 20;
startWatchdog("scale bench", WATCHDOG_MS);

const args = process.argv.slice(3);
const flag = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const parseSize = (text: string) => {
  const m = /^(\d+)x(\d+)$/.exec(text.trim());
  if (!m) {
    process.stderr.write(`scale bench: size "${text}" is not like 100x50 (clusters x releases per cluster)\n`);
    process.exit(2);
  }
  return { clusters: Number(m[1]), releases: Number(m[2]) };
};
const single = flag("clusters")
  ? [{ clusters: Number(flag("clusters")), releases: Number(flag("releases") ?? 50) }]
  : undefined;
// The default fits 10 minutes on this machine; the 1,000-cluster point and the faults are their own runs
// (docs/scale.md: `--sizes 1000x5`, `--sizes none --faults 100x5`).
const sizes =
  single ??
  (flag("sizes") ?? "10x50,100x50")
    .split(",")
    .filter((text) => text && text !== "none")
    .map(parseSize);
const faultSize = flag("faults") ? parseSize(flag("faults") as string) : undefined;

const out = (line = "") => process.stdout.write(`${line}\n`);
out(
  `scale bench: sizes ${sizes.map((s) => `${s.clusters}x${s.releases}`).join(", ")}${faultSize ? `, faults at ${faultSize.clusters}x${faultSize.releases}` : ""}; ${LATENCY_MS} ms per kube request`,
);
out(`machine: ${machineLoad()}`);

// The simulated IAM user of every fleet has these keys; the functions' default credential chain reads them here
// (the EKS connector's base credentials), as a Lambda reads its role's from its environment.
const credentials = { accessKeyId: "AKIASCALEBENCH000000", secretAccessKey: "scale-bench-secret" };
Object.assign(process.env, {
  AWS_REGION: "us-east-1",
  AWS_ACCESS_KEY_ID: credentials.accessKeyId,
  AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
  POWERTOOLS_METRICS_DISABLED: "true",
  POWERTOOLS_LOG_LEVEL: "SILENT",
});
const [dynamo, sqs] = await Promise.all([startDynamoDbLocal(), startLocalSqs({ port: 0 })]);
const [dynamoProxy, sqsProxy] = await Promise.all([
  startMeteringProxy(dynamo.endpoint, "dynamodb"),
  startMeteringProxy(sqs.endpoint, "sqs"),
]);
const services = { dynamo: dynamoProxy, sqs: sqsProxy, sqsClient: sqs.client, credentials };
const results: SizeFigures[] = [];
let faulted: SizeFigures | undefined;
/** --json FILE: the figures so far, written after every size (a run cut short keeps what it measured). */
const saveJson = () => {
  const file = flag("json");
  if (file) writeFileSync(file, JSON.stringify({ sizes: results, faults: faulted }, null, 2));
};
try {
  for (const size of sizes) {
    out();
    out(`== ${size.clusters} clusters x ${size.releases} releases`);
    const figures = await runSize({ ...size, faults: false, latencyMs: LATENCY_MS, services, log: out });
    printSize(figures, out);
    results.push(figures);
    saveJson();
  }
  if (faultSize) {
    out();
    out(`== faults: ${faultSize.clusters} clusters x ${faultSize.releases} releases`);
    const big = Number(flag("big") ?? 5_000);
    faulted = await runSize({ ...faultSize, faults: true, big, latencyMs: LATENCY_MS, services, log: out });
    printSize(faulted, out);
  }
} finally {
  await Promise.allSettled([dynamoProxy.stop(), sqsProxy.stop(), sqs.stop(), dynamo.stop()]);
}

const largest = results.at(-1);
if (largest) {
  out();
  const model = printModel(results, out);
  out();
  out(
    `monthly cost, us-east-1 list prices (${PRICES_US_EAST_1.asOf}), 5-minute sync and audit, ${largest.releases} releases per cluster:`,
  );
  out(
    "| clusters | Lambda: wall-time bound (CPU floor) | SQS | DynamoDB requests | DynamoDB storage | total / month (CPU floor) | per cluster (CPU floor) |",
  );
  out("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  const usd = (x: number) => `$${x < 10 ? x.toFixed(2) : x.toFixed(0)}`;
  for (const clusters of [100, 1_000, 5_000]) {
    const bill = monthlyBill(model.wall, clusters);
    const floor = monthlyBill(model.cpu, clusters);
    out(
      `| ${clusters.toLocaleString("en-US")} | ${usd(bill.lambda)} (${usd(floor.lambda)}) | ${usd(bill.sqs)} | ${usd(bill.dynamoRequests)} | ${usd(bill.dynamoStorage)} | **${usd(bill.total)}** (${usd(floor.total)}) | ${usd(bill.perCluster)} (${usd(floor.perCluster)}) |`,
    );
  }
  out(
    `(periods per month: ${PERIODS_PER_MONTH_AT_5_MIN} of each; model from the ${largest.clusters}x${largest.releases} run's steady periods)`,
  );
}
if (faulted) {
  out();
  printFaults(faulted, out);
}
saveJson();
if (flag("json")) out(`figures written to ${flag("json")}`);
process.exit(0);
