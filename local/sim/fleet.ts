/**
 * A fleet on the simulator (issue #36): N clusters spread over A AWS accounts, each reached through its account's
 * cross-account role, in one simulator (one thread when started with startSimulatedEksInWorker). Each cluster keeps
 * its own API server on its own port, its own CA (made in-process: fast-certs.ts) and its own token check; what
 * they share is what does not change behaviour (the IAM, the EKS/STS endpoints, the process). DescribeCluster and
 * AssumeRole are rate-limited per account (aws/rate-limit.ts). See docs/simulator.md "A fleet".
 */
import type { AwsRates } from "./aws/rate-limit.ts";
import type { SimClusterOptions, SimOptions } from "./index.ts";

export interface FleetOptions {
  clusters: number;
  /** AWS accounts the clusters are spread over, round robin (default: one per 10 clusters, at least 1). */
  accounts?: number;
  /** Cluster names are `<prefix>-0000`, `<prefix>-0001`, ... (default "fleet"). */
  prefix?: string;
  /** The role each account grants (default "helm-status-reader"). */
  roleName?: string;
  latencyMs?: number;
  seed?: number;
  /** DescribeCluster/AssumeRole rates per account (default DEFAULT_AWS_RATES). */
  awsRates?: AwsRates;
  /** The IAM user's keys (SimOptions.credentials): a bench sets them once for every fleet it starts. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/** The 12-digit id of the fleet's i-th account (200000000000, 200000000001, ...). */
export function fleetAccount(index: number): string {
  return String(200_000_000_000 + index);
}

export function fleetRoleArn(account: string, roleName = "helm-status-reader"): string {
  return `arn:aws:iam::${account}:role/${roleName}`;
}

/** The simulator's options for a fleet: clusters named and spread over accounts, node-made certificates, rates. */
export function fleetSimOptions(options: FleetOptions): SimOptions {
  const accounts = Math.max(1, options.accounts ?? Math.ceil(options.clusters / 10));
  const width = Math.max(4, String(options.clusters - 1).length);
  const clusters: SimClusterOptions[] = Array.from({ length: options.clusters }, (_, i) => ({
    name: `${options.prefix ?? "fleet"}-${String(i).padStart(width, "0")}`,
    roleArn: fleetRoleArn(fleetAccount(i % accounts), options.roleName),
    // The fleet's clusters serve reads only: no control-plane audit log to keep (memory stays per cluster small).
    auditLogging: false,
  }));
  return {
    clusters,
    certificates: "node",
    awsRates: options.awsRates ?? {},
    ...(options.latencyMs !== undefined ? { latencyMs: options.latencyMs } : {}),
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
  };
}
