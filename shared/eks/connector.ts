/**
 * The EKS ClusterConnector: registry entry -> (AssumeRole) -> DescribeCluster (skipped
 * when the entry carries `endpoint` + `certificateAuthority`) -> presigned token ->
 * in-memory access (server, CA, bearer token: what a generated kubeconfig would
 * hold, without loading a kubeconfig library), with caches sized for a fleet (docs/scale.md "Fixes"):
 * - role credentials per account (roleArn + externalId), until 5 minutes before they expire, its failures
 *   kept briefly (account-credentials.ts);
 * - cluster facts (endpoint + CA), for `factsTtlMs` (they change only on CA rotation or an endpoint move), in
 *   memory and in the `facts` store, so a cold start does not ask EKS again; asked again sooner when the
 *   API server's certificate or address stops working (`invalidate(cluster, "endpoint")`), and the last
 *   known ones kept while EKS throttles or cannot be reached;
 * - the access, until 14 minutes after signing (one minute before STS stops
 *   honouring the token) or one minute before the signing credentials expire.
 * One refresh per cluster is in flight at a time; concurrent callers share it, and clusters never wait on
 * each other's.
 */
import type { ClusterAccess, ClusterConnector, ClusterEntry, ClusterSummary } from "../clusters/connector.ts";
import { UnknownClusterError } from "../clusters/errors.ts";
import { sharedInFlight } from "../concurrency.ts";
import { type Clock, type Logger, silentLogger, systemClock } from "../ports.ts";
import { accountCredentials } from "./account-credentials.ts";
import {
  type ClusterFacts,
  type CredentialsProvider,
  defaultEksClientFactory,
  defaultStsClientFactory,
  type EksClientFactory,
  type EksClientLike,
  type StsClientFactory,
  toClusterError,
} from "./aws-calls.ts";
import { clusterFactsCache } from "./cluster-facts.ts";
import type { ClusterFactsStore } from "./facts-store.ts";
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
  /** Where DescribeCluster's answers are kept across cold starts (the releases table); default: memory only. */
  facts?: ClusterFactsStore;
  /** How long an account's AssumeRole failure answers for its other clusters; default 30 s. */
  accountFailureHoldMs?: number;
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
/** A token stops working when its signing credentials do: stop reusing it a minute before. */
const TOKEN_CREDENTIALS_MARGIN_MS = MINUTE;

interface ClusterState {
  eks?: EksClientLike;
  kube?: { access: ClusterAccess; reuseUntil: number };
  /** The access being built (concurrency.ts `sharedInFlight`: concurrent callers share it). */
  inFlight?: Promise<ClusterAccess>;
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
  const accounts = accountCredentials({
    now,
    logger,
    timeoutMs,
    stsClientFactory,
    baseCredentials: loadBaseCredentials,
    failureHoldMs: options.accountFailureHoldMs,
  });
  const facts = clusterFactsCache({
    now,
    logger,
    timeoutMs,
    ttlMs: factsTtlMs,
    stored: options.facts,
    // DescribeCluster runs as the cluster's role: with a cross-account role, only it can see the cluster.
    eksClient: (entry) => {
      const { state } = lookup(entry.name);
      state.eks ??= eksClientFactory(entry, () => credentialsFor(entry));
      return state.eks;
    },
  });

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

  async function loadBaseCredentials(entry: ClusterEntry): Promise<AwsCredentials> {
    try {
      return await baseCredentials();
    } catch (error) {
      throw toClusterError(entry, "loading AWS credentials", "the default credential chain", timeoutMs, error);
    }
  }

  /** The credentials that act on this cluster: the assumed role's (its account's) when it has one, else the base ones. */
  async function credentialsFor(entry: ClusterEntry): Promise<AwsCredentials> {
    const { roleArn } = entry;
    return roleArn ? accounts.get({ ...entry, roleArn }) : loadBaseCredentials(entry);
  }

  async function factsFor(entry: ClusterEntry): Promise<ClusterFacts> {
    // The registry already says where the API server is and which CA signs it: no DescribeCluster.
    if (entry.endpoint && entry.certificateAuthority) {
      return { name: entry.name, endpoint: entry.endpoint, caData: entry.certificateAuthority, status: "ACTIVE" };
    }
    return facts.get(entry);
  }

  async function buildAccess(entry: ClusterEntry, state: ClusterState): Promise<ClusterAccess> {
    const { endpoint, caData } = await factsFor(entry);
    const credentials = await credentialsFor(entry);
    const token = await signToken({
      clusterName: entry.name,
      region: entry.region,
      credentials,
      signingDate: clock.now(),
    });
    // The kubeconfig's content, used as is: TLS verified against the cluster's own CA, the token as bearer.
    const access: ClusterAccess = {
      server: endpoint.replace(/\/+$/, ""),
      ca: Buffer.from(caData, "base64").toString("utf8"),
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
      return sharedInFlight(state, () => buildAccess(entry, state));
    },

    invalidate(cluster: string, what: "credentials" | "endpoint" = "credentials"): void {
      const state = states.get(cluster);
      const entry = entries.get(cluster);
      if (!state || !entry) return;
      state.kube = undefined;
      if (what === "endpoint") {
        // The certificate or the address no longer works: the endpoint or CA may have changed (DescribeCluster
        // again, and the copy kept in the store with it is not trusted), unless they were just fetched.
        if (facts.doubt(cluster)) logger.info("EKS endpoint to be described again", { cluster });
        return;
      }
      // A 401 means the token, or the role session behind it, is no longer accepted: drop both,
      // keep endpoint and CA (a 401 says nothing about them).
      accounts.invalidate(entry);
      logger.info("EKS credentials invalidated", { cluster });
    },

    async token(cluster: string): Promise<EksToken> {
      const { entry } = lookup(cluster);
      const credentials = await credentialsFor(entry);
      return signToken({ clusterName: entry.name, region: entry.region, credentials, signingDate: clock.now() });
    },

    async describe(cluster: string): Promise<ClusterFacts> {
      return factsFor(lookup(cluster).entry);
    },
  };
}

/**
 * The AWS SDK default chain (env, SSO, profile, container, IMDS), loaded on first use: the package pulls in
 * every credential provider (Cognito, SSO, ini files...), which a Lambda cold start should not import before a
 * route actually needs cluster credentials (list, history and manifest never do). The provider the chain
 * returns caches its credentials and refreshes them before they expire.
 */
export function defaultCredentialChain(): CredentialsProvider {
  let chain: Promise<CredentialsProvider> | undefined;
  return async () => {
    chain ??= import("@aws-sdk/credential-providers").then(({ fromNodeProviderChain }) => fromNodeProviderChain());
    return (await chain)();
  };
}
