/**
 * The simulated EKS: per cluster an HTTPS Kubernetes API server (own CA, EKS token auth,
 * server-side Tables, faults, stats), plus EKS DescribeCluster and STS AssumeRole /
 * GetCallerIdentity endpoints, all on 127.0.0.1 with free ports. See docs/simulator.md.
 */
import { AwsEndpoint, eksHandler, stsHandler } from "./aws/endpoints.ts";
import { accountOfArn, type SimCredentials, SimIam } from "./aws/iam.ts";
import { type LogsLimits, SimLogs } from "./aws/logs.ts";
import { AwsRateLimiter, type AwsRates } from "./aws/rate-limit.ts";
import { makeServerCertificates } from "./certs.ts";
import { SimCluster } from "./cluster.ts";
import { SimulatorSetupError, UnknownSimClusterError } from "./errors.ts";
import { makeFastServerCertificates } from "./fast-certs.ts";
import { AuditLog } from "./kube/audit.ts";
import { seededRandom } from "./kube/faults.ts";
import { KubeApiServer } from "./kube/server.ts";
import { ClusterState } from "./kube/state.ts";

export type { SimCredentials, SimPrincipal, SimRole, SimRoleOptions, SimUser } from "./aws/iam.ts";
export { SimIam } from "./aws/iam.ts";
export type { LogsLimits } from "./aws/logs.ts";
export { SimLogs } from "./aws/logs.ts";
export type { AwsCallStats, AwsRate, AwsRates, RateLimitedAction } from "./aws/rate-limit.ts";
export { AwsRateLimiter } from "./aws/rate-limit.ts";
export { mintEksToken } from "./aws/sigv4.ts";
export type { ClusterStatus } from "./cluster.ts";
export { SimCluster } from "./cluster.ts";
export { SimulatorError, SimulatorInputError, SimulatorSetupError, UnknownSimClusterError } from "./errors.ts";
export type { AuditEntry } from "./kube/audit.ts";
export type { Faults, RequestLogEntry, RequestStats } from "./kube/faults.ts";
export type { DenyRule } from "./kube/server.ts";
export { humanDuration } from "./kube/tables/common.ts";
export type { KubeObject } from "./kube/types.ts";
export type { MaterializeOptions } from "./materialize.ts";

export interface SimClusterOptions {
  name: string;
  /** Default: SimOptions.region, else us-east-1. */
  region?: string;
  /** "1.34" style; decides version-dependent Table columns (default 1.34: ServiceAccount still has SECRETS). */
  kubernetesVersion?: string;
  /** EKS's `audit` control-plane log type (docs/simulator.md, "Audit log"). Default on; off: no log group at all. */
  auditLogging?: boolean;
  /** Materialize workloads helm/kubectl write through the API (controllers.ts). Default off. */
  controllers?: boolean;
  /**
   * The cluster lives in this role's account and is reached through it (a fleet's cross-account role,
   * `arn:aws:iam::<account>:role/NAME`): the role is added to the simulated IAM and to the registry entry.
   */
  roleArn?: string;
}

export interface SimOptions {
  /** Default: one cluster named "sim". */
  clusters?: SimClusterOptions[];
  /** Latency added to every API server request (a fault that `faults.clear()` returns to). */
  latencyMs?: number;
  region?: string;
  /** The object clock: creationTimestamp of new objects and every AGE/duration cell. Default: real time. */
  now?: () => Date;
  /** The clock tokens and temporary keys expire by. Default: real time (independent of `now`). */
  authNow?: () => Date;
  /** Seed for fault randomness (jitter, error and reset rates), for reproducible runs. */
  seed?: number;
  /** Use these keys for the IAM user instead of random ones (e.g. AWS's public dummy keys for CLI oracles). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** kube-apiserver's --event-ttl: events are deleted this long after their last write, by the `now` clock. Default 1 h. */
  eventTtlMs?: number;
  /** How long after a request its audit event reaches CloudWatch Logs, by the `now` clock. Default 0. */
  auditLogLagMs?: number;
  /** CloudWatch Logs' quotas: requests per second per action, concurrent Insights queries, time a query runs. */
  logs?: Partial<LogsLimits>;
  /**
   * DescribeCluster's and AssumeRole's rates per account (aws/rate-limit.ts). Without it, never throttled (the
   * simulator's behaviour before issue #36); with it, the defaults of DEFAULT_AWS_RATES for actions not given.
   */
  awsRates?: AwsRates;
  /**
   * How each cluster's CA and server certificate are made: `openssl` (default, certs.ts) or `node` (fast-certs.ts,
   * in-process: a fleet of hundreds of clusters starts in seconds instead of minutes).
   */
  certificates?: "openssl" | "node";
}

/** A cluster's registry entry as the simulator hands it out (roleArn when the cluster has one). */
export interface SimRegistryEntry {
  name: string;
  region: string;
  eksEndpoint: string;
  stsEndpoint: string;
  roleArn?: string;
}

export interface SimulatedEks {
  /** http://127.0.0.1:PORT: DescribeCluster/ListClusters as @aws-sdk/client-eks calls them. */
  eksEndpoint: string;
  /** http://127.0.0.1:PORT: AssumeRole and GetCallerIdentity as @aws-sdk/client-sts calls them. */
  stsEndpoint: string;
  /** http://127.0.0.1:PORT: CloudWatch Logs (FilterLogEvents, Logs Insights) as @aws-sdk/client-cloudwatch-logs calls it. */
  logsEndpoint: string;
  /** The CloudWatch Logs simulator's knobs (quotas, throttling the next calls). */
  logs: SimLogs;
  /** DescribeCluster's and AssumeRole's calls and throttling (limits only with SimOptions.awsRates). */
  aws: AwsRateLimiter;
  /** The simulated IAM user's keys (the user the kubeconfig tokens are signed by). */
  credentials: { accessKeyId: string; secretAccessKey: string };
  iam: SimIam;
  cluster(name: string): SimCluster;
  clusters(): SimCluster[];
  /** Registry entries (shared/clusters/connector.ts ClusterEntry). */
  registryEntries(): SimRegistryEntry[];
  stop(): Promise<void>;
}

const DEFAULT_VERSION = "1.34";

function parseVersion(text: string): { major: number; minor: number } {
  const m = /^v?(\d+)\.(\d+)/.exec(text);
  if (!m) throw new SimulatorSetupError(`kubernetesVersion "${text}" is not like "1.34"`);
  return { major: Number(m[1]), minor: Number(m[2]) };
}

export async function startSimulatedEks(options: SimOptions = {}): Promise<SimulatedEks> {
  const clusterOptions = options.clusters ?? [{ name: "sim" }];
  const names = new Set<string>();
  for (const c of clusterOptions) {
    if (!/^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$/.test(c.name ?? "")) {
      throw new SimulatorSetupError(`cluster name "${c.name}" is not a valid EKS cluster name`);
    }
    if (names.has(c.name)) throw new SimulatorSetupError(`cluster name "${c.name}" is given twice`);
    names.add(c.name);
  }
  const now = options.now ?? (() => new Date());
  const authNow = options.authNow ?? (() => new Date());
  const random = options.seed === undefined ? Math.random : seededRandom(options.seed);
  const iam = new SimIam({ now: authNow });
  const admin = iam.addUser("sim-admin", options.credentials);
  const signer: SimCredentials = admin.credentials;

  const apiServers: KubeApiServer[] = [];
  const endpoints: AwsEndpoint[] = [];
  const stopAll = async () => {
    await Promise.allSettled([...apiServers.map((s) => s.stop()), ...endpoints.map((e) => e.stop())]);
  };
  try {
    const certificates =
      options.certificates === "node"
        ? clusterOptions.map((c) => makeFastServerCertificates(c.name))
        : await Promise.all(clusterOptions.map((c) => makeServerCertificates(c.name)));
    for (const c of clusterOptions) if (c.roleArn) iam.addRole(c.roleArn);
    const clusters: SimCluster[] = [];
    for (const [index, c] of clusterOptions.entries()) {
      const versionText = c.kubernetesVersion ?? DEFAULT_VERSION;
      const version = parseVersion(versionText);
      const state = new ClusterState({ now, version, eventTtlMs: options.eventTtlMs });
      const audit = new AuditLog(c.name, { enabled: c.auditLogging ?? true, lagMs: options.auditLogLagMs ?? 0 });
      const api = new KubeApiServer({
        audit,
        onWrite: (object) => clusters[index]?.reconcileWrite(object),
        clusterName: c.name,
        state,
        iam,
        certificates: certificates[index],
        gitVersion: `v${version.major}.${version.minor}.4-eks-3025e55`,
        authNow,
        random,
        faults: options.latencyMs ? { latencyMs: options.latencyMs } : {},
      });
      apiServers.push(api);
      await api.start();
      clusters.push(
        new SimCluster({
          name: c.name,
          region: c.region ?? options.region ?? "us-east-1",
          account: accountOfArn(c.roleArn) ?? iam.account,
          caPem: certificates[index].caPem,
          version: `${version.major}.${version.minor}`,
          state,
          api,
          signer,
          authNow,
          audit,
          principalOf: (accessKeyId) => iam.lookupKey(accessKeyId)?.principal,
        }),
      );
      clusters[index].controllers = c.controllers ?? false;
    }
    // Counts always; throttles only when rates are asked for (an unlimited rate otherwise).
    const aws = new AwsRateLimiter(
      options.awsRates ?? {
        DescribeCluster: { perSecond: Number.POSITIVE_INFINITY },
        AssumeRole: { perSecond: Number.POSITIVE_INFINITY },
      },
    );
    const eks = new AwsEndpoint(eksHandler(iam, () => clusters, authNow, aws));
    const sts = new AwsEndpoint(stsHandler(iam, authNow, aws));
    const logs = new SimLogs(iam, () => clusters, { now, authNow, limits: options.logs });
    const logsServer = new AwsEndpoint(logs.handler());
    endpoints.push(eks, sts, logsServer);
    const [eksEndpoint, stsEndpoint, logsEndpoint] = await Promise.all([eks.start(), sts.start(), logsServer.start()]);
    let stopped = false;
    return {
      eksEndpoint,
      stsEndpoint,
      logsEndpoint,
      logs,
      aws,
      credentials: { accessKeyId: signer.accessKeyId, secretAccessKey: signer.secretAccessKey },
      iam,
      cluster(name: string) {
        const cluster = clusters.find((c) => c.name === name);
        if (!cluster) {
          throw new UnknownSimClusterError(
            `no simulated cluster named "${name}" (have: ${clusters.map((c) => c.name).join(", ")})`,
          );
        }
        return cluster;
      },
      clusters: () => [...clusters],
      registryEntries: () =>
        clusters.map((c, i) => {
          const roleArn = clusterOptions[i].roleArn;
          return { name: c.name, region: c.region, eksEndpoint, stsEndpoint, ...(roleArn ? { roleArn } : {}) };
        }),
      async stop() {
        if (stopped) return;
        stopped = true;
        await stopAll();
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
