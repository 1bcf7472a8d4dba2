/**
 * The EKS ClusterConnector: registry entry -> (AssumeRole) -> DescribeCluster (skipped
 * when the entry carries `endpoint` + `certificateAuthority`) -> presigned token ->
 * in-memory access (server, CA, bearer token: what a generated kubeconfig would
 * hold, without loading a kubeconfig library), with three caches per cluster, because a
 * warm Lambda serves many requests for the same few clusters:
 * - role credentials, until 5 minutes before they expire;
 * - cluster facts (endpoint + CA), for `factsTtlMs` (they change only on CA rotation);
 * - the access, until 14 minutes after signing (one minute before STS stops
 *   honouring the token) or one minute before the signing credentials expire.
 * One refresh per cluster is in flight at a time; concurrent callers share it.
 */
import type { ClusterAccess, ClusterConnector, ClusterEntry, ClusterSummary } from "../clusters/connector.ts";
import { UnknownClusterError } from "../clusters/errors.ts";
import { type Clock, type Logger, silentLogger, systemClock } from "../ports.ts";
import {
  assumeRole,
  type ClusterFacts,
  type CredentialsProvider,
  defaultEksClientFactory,
  defaultStsClientFactory,
  describeCluster,
  type EksClientFactory,
  type EksClientLike,
  type StsClientFactory,
  type StsClientLike,
  toClusterError,
} from "./aws-calls.ts";
import { type AwsCredentials, createEksToken, type EksToken } from "./token.ts";

export interface EksConnectorOptions {
  registry: ClusterEntry[];
  clock?: Clock;
  logger?: Logger;
  /** Base credentials; default: the AWS SDK default provider chain (env, SSO, profile, container, IMDS). */
  credentials?: CredentialsProvider;
  eksClientFactory?: EksClientFactory;
  stsClientFactory?: StsClientFactory;
  /** Deadline of one AWS call (all its attempts); default 5000 ms. */
  requestTimeoutMs?: number;
  /** How long DescribeCluster's answer is reused; default one hour. */
  factsTtlMs?: number;
  /** The token signer; injectable so tests can count signings. */
  signToken?: typeof createEksToken;
}

export interface EksConnector extends ClusterConnector {
  /** A fresh token for the cluster, with its role assumed if it has one; no DescribeCluster. */
  token(cluster: string): Promise<EksToken>;
  /** Endpoint and CA, cached like access()'s. */
  describe(cluster: string): Promise<ClusterFacts>;
}

const MINUTE = 60_000;
/** Refresh assumed-role credentials this long before they expire (the SDK's own margin). */
const CREDENTIALS_REFRESH_MARGIN_MS = 5 * MINUTE;
/** A token stops working when its signing credentials do: stop reusing it a minute before. */
const TOKEN_CREDENTIALS_MARGIN_MS = MINUTE;

interface ClusterState {
  eks?: EksClientLike;
  sts?: StsClientLike;
  roleCredentials?: AwsCredentials;
  roleCredentialsInFlight?: Promise<AwsCredentials>;
  facts?: { value: ClusterFacts; fetchedAt: number };
  factsInFlight?: Promise<ClusterFacts>;
  kube?: { access: ClusterAccess; reuseUntil: number };
  kubeInFlight?: Promise<ClusterAccess>;
}

export function createEksConnector(options: EksConnectorOptions): EksConnector {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const timeoutMs = options.requestTimeoutMs ?? 5000;
  const factsTtlMs = options.factsTtlMs ?? 60 * MINUTE;
  const signToken = options.signToken ?? createEksToken;
  const baseCredentials = options.credentials ?? defaultCredentialChain();
  const eksClientFactory = options.eksClientFactory ?? defaultEksClientFactory(timeoutMs);
  const stsClientFactory = options.stsClientFactory ?? defaultStsClientFactory(timeoutMs);
  const entries = new Map(options.registry.map((entry) => [entry.name, entry]));
  const states = new Map<string, ClusterState>();
  const now = () => clock.now().getTime();

  function lookup(cluster: string): { entry: ClusterEntry; state: ClusterState } {
    const entry = entries.get(cluster);
    if (!entry) throw new UnknownClusterError(cluster, { known: [...entries.keys()] });
    let state = states.get(cluster);
    if (!state) {
      state = {};
      states.set(cluster, state);
    }
    return { entry, state };
  }

  /** Shares one promise between concurrent callers and forgets it once settled (failures are not cached). */
  function shared<K extends "roleCredentialsInFlight" | "factsInFlight" | "kubeInFlight">(
    state: ClusterState,
    key: K,
    start: () => NonNullable<ClusterState[K]>,
  ): NonNullable<ClusterState[K]> {
    const running = state[key];
    if (running) return running as NonNullable<ClusterState[K]>;
    const promise = start();
    state[key] = promise;
    const clear = () => {
      if (state[key] === promise) state[key] = undefined;
    };
    promise.then(clear, clear);
    return promise;
  }

  async function loadBaseCredentials(entry: ClusterEntry): Promise<AwsCredentials> {
    try {
      return await baseCredentials();
    } catch (error) {
      throw toClusterError(entry, "loading AWS credentials", "the default credential chain", timeoutMs, error);
    }
  }

  /** The credentials that act on this cluster: the assumed role's when it has one, else the base ones. */
  async function credentialsFor(entry: ClusterEntry, state: ClusterState): Promise<AwsCredentials> {
    const { roleArn } = entry;
    if (!roleArn) return loadBaseCredentials(entry);
    const cached = state.roleCredentials;
    if (cached && (!cached.expiration || cached.expiration.getTime() - CREDENTIALS_REFRESH_MARGIN_MS > now())) {
      return cached;
    }
    return shared(state, "roleCredentialsInFlight", async () => {
      state.sts ??= stsClientFactory(entry, () => loadBaseCredentials(entry));
      const fresh = await assumeRole({ ...entry, roleArn }, state.sts, timeoutMs);
      state.roleCredentials = fresh;
      logger.info("assumed cluster role", { cluster: entry.name, roleArn, expiresAt: fresh.expiration?.toISOString() });
      return fresh;
    });
  }

  async function factsFor(entry: ClusterEntry, state: ClusterState): Promise<ClusterFacts> {
    // The registry already says where the API server is and which CA signs it: no DescribeCluster.
    if (entry.endpoint && entry.certificateAuthority) {
      return { name: entry.name, endpoint: entry.endpoint, caData: entry.certificateAuthority, status: "ACTIVE" };
    }
    const cached = state.facts;
    if (cached && now() - cached.fetchedAt < factsTtlMs) return cached.value;
    return shared(state, "factsInFlight", async () => {
      // DescribeCluster runs as the cluster's role: with a cross-account role, only it can see the cluster.
      state.eks ??= eksClientFactory(entry, () => credentialsFor(entry, state));
      const value = await describeCluster(entry, state.eks, timeoutMs);
      state.facts = { value, fetchedAt: now() };
      return value;
    });
  }

  async function buildAccess(entry: ClusterEntry, state: ClusterState): Promise<ClusterAccess> {
    const facts = await factsFor(entry, state);
    const credentials = await credentialsFor(entry, state);
    const token = await signToken({
      clusterName: entry.name,
      region: entry.region,
      credentials,
      signingDate: clock.now(),
    });
    // The kubeconfig's content, used as is: TLS verified against the cluster's own CA, the token as bearer.
    const access: ClusterAccess = {
      server: facts.endpoint.replace(/\/+$/, ""),
      ca: Buffer.from(facts.caData, "base64").toString("utf8"),
      headers: { authorization: `Bearer ${token.token}` },
    };
    const credentialsEnd = credentials.expiration
      ? credentials.expiration.getTime() - TOKEN_CREDENTIALS_MARGIN_MS
      : Number.POSITIVE_INFINITY;
    const reuseUntil = Math.min(token.expiresAt.getTime(), credentialsEnd);
    state.kube = { access, reuseUntil };
    // Name and expiry only: the token and CA never reach the logs.
    logger.info("EKS credentials ready", {
      cluster: entry.name,
      tokenExpiresAt: token.expiresAt.toISOString(),
      reuseUntil: new Date(reuseUntil).toISOString(),
    });
    return access;
  }

  return {
    list(): ClusterSummary[] {
      return [...entries.values()].map(({ name, region, slo }) => ({ name, region, ...(slo ? { slo } : {}) }));
    },

    async access(cluster: string): Promise<ClusterAccess> {
      const { entry, state } = lookup(cluster);
      const cached = state.kube;
      if (cached && now() < cached.reuseUntil) return cached.access;
      return shared(state, "kubeInFlight", () => buildAccess(entry, state));
    },

    invalidate(cluster: string): void {
      const state = states.get(cluster);
      if (!state) return;
      // A 401 means the token, or the role session behind it, is no longer accepted: drop both,
      // keep endpoint and CA (a 401 says nothing about them).
      state.kube = undefined;
      state.roleCredentials = undefined;
      logger.info("EKS credentials invalidated", { cluster });
    },

    async token(cluster: string): Promise<EksToken> {
      const { entry, state } = lookup(cluster);
      const credentials = await credentialsFor(entry, state);
      return signToken({ clusterName: entry.name, region: entry.region, credentials, signingDate: clock.now() });
    },

    async describe(cluster: string): Promise<ClusterFacts> {
      const { entry, state } = lookup(cluster);
      return factsFor(entry, state);
    },
  };
}

/**
 * The AWS SDK default chain (env, SSO, profile, container, IMDS), loaded on first use: the package pulls in
 * every credential provider (Cognito, SSO, ini files...), which a Lambda cold start should not import before a
 * route actually needs cluster credentials (list, history and manifest never do). The provider the chain
 * returns caches its credentials and refreshes them before they expire.
 */
function defaultCredentialChain(): CredentialsProvider {
  let chain: Promise<CredentialsProvider> | undefined;
  return async () => {
    chain ??= import("@aws-sdk/credential-providers").then(({ fromNodeProviderChain }) => fromNodeProviderChain());
    return (await chain)();
  };
}
