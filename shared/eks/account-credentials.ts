/**
 * Assumed-role credentials per account, not per cluster: the clusters of one account share a role (the registry
 * names the same roleArn and externalId for each), so one AssumeRole serves all of them until 5 minutes before
 * its session expires (50 clusters of an account: 1 call, not 50; STS throttles AssumeRole per account).
 * A failure (a revoked role, a trust policy that no longer matches, throttling) is kept `failureHoldMs`, so the
 * account's other clusters fail at once with their own error instead of each asking STS again; other accounts
 * are separate entries, unaffected.
 */

import type { ClusterEntry } from "../clusters/connector.ts";
import { sharedInFlight } from "../concurrency.ts";
import { isDomainError } from "../errors.ts";
import type { Logger } from "../ports.ts";
import { assumeRole, type StsClientFactory, type StsClientLike, toClusterError } from "./aws-calls.ts";
import type { AwsCredentials } from "./token.ts";

const MINUTE = 60_000;
/** Refresh assumed-role credentials this long before they expire (the SDK's own margin). */
const CREDENTIALS_REFRESH_MARGIN_MS = 5 * MINUTE;
/** A session younger than this is not dropped by one cluster's 401: that cluster's access entry is the likelier cause. */
const FRESH_SESSION_MS = MINUTE;
/** How long an account's AssumeRole failure answers for its clusters (default). */
const ACCOUNT_FAILURE_HOLD_MS = 30_000;

export interface AccountCredentialsOptions {
  now: () => number;
  logger: Logger;
  timeoutMs: number;
  stsClientFactory: StsClientFactory;
  /** The credentials AssumeRole is called with (the function's own). */
  baseCredentials: (entry: ClusterEntry) => Promise<AwsCredentials>;
  failureHoldMs?: number;
}

interface AccountState {
  sts?: StsClientLike;
  credentials?: AwsCredentials;
  issuedAt?: number;
  inFlight?: Promise<AwsCredentials>;
  failure?: { error: unknown; cluster: string; until: number };
}

export interface AccountCredentials {
  /** The role's credentials for this cluster's entry (shared by every entry of the same role and external id). */
  get(entry: ClusterEntry & { roleArn: string }): Promise<AwsCredentials>;
  /** After a 401 on one of the account's clusters: the session is asked again, unless it was just issued. */
  invalidate(entry: ClusterEntry): void;
}

export function accountCredentials(options: AccountCredentialsOptions): AccountCredentials {
  const holdMs = options.failureHoldMs ?? ACCOUNT_FAILURE_HOLD_MS;
  const accounts = new Map<string, AccountState>();
  const stateOf = (entry: ClusterEntry): AccountState => {
    const key = `${entry.roleArn}\n${entry.externalId ?? ""}`;
    let state = accounts.get(key);
    if (!state) {
      state = {};
      accounts.set(key, state);
    }
    return state;
  };

  async function assume(entry: ClusterEntry & { roleArn: string }, state: AccountState): Promise<AwsCredentials> {
    state.sts ??= options.stsClientFactory(entry, () => options.baseCredentials(entry));
    try {
      const fresh = await assumeRole(entry, state.sts, options.timeoutMs);
      state.credentials = fresh;
      state.issuedAt = options.now();
      state.failure = undefined;
      // The cluster and the expiry: the role's ARN never reaches the logs.
      options.logger.info("assumed cluster role", {
        cluster: entry.name,
        expiresAt: fresh.expiration?.toISOString(),
      });
      return fresh;
    } catch (error) {
      state.failure = { error, cluster: entry.name, until: options.now() + holdMs };
      throw error;
    }
  }

  return {
    async get(entry) {
      const state = stateOf(entry);
      const now = options.now();
      const cached = state.credentials;
      if (cached && (!cached.expiration || cached.expiration.getTime() - CREDENTIALS_REFRESH_MARGIN_MS > now)) {
        return cached;
      }
      if (state.failure && now < state.failure.until) throw failureFor(entry, state.failure, options.timeoutMs);
      try {
        return await sharedInFlight(state, () => assume(entry, state));
      } catch (error) {
        // A caller that joined another cluster's AssumeRole gets the failure in its own cluster's words.
        throw state.failure ? failureFor(entry, state.failure, options.timeoutMs) : error;
      }
    },

    invalidate(entry) {
      if (!entry.roleArn) return;
      const state = stateOf(entry);
      if (state.issuedAt !== undefined && options.now() - state.issuedAt < FRESH_SESSION_MS) return;
      state.credentials = undefined;
    },
  };
}

/** The account's failure as this cluster's error: the same classification, naming this cluster. */
function failureFor(
  entry: ClusterEntry & { roleArn: string },
  failure: NonNullable<AccountState["failure"]>,
  timeoutMs: number,
): unknown {
  if (failure.cluster === entry.name) return failure.error;
  const cause = isDomainError(failure.error) ? (failure.error as { cause?: unknown }).cause : failure.error;
  if (cause === undefined) return failure.error;
  const where = entry.stsEndpoint ?? `https://sts.${entry.region}.amazonaws.com`;
  return toClusterError(entry, `AssumeRole ${entry.roleArn}`, where, timeoutMs, cause);
}
