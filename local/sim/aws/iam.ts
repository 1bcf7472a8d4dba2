import { randomBytes } from "node:crypto";

/** The 12-digit account of an IAM or STS ARN (`arn:aws:iam::123456789012:role/NAME`), if it is one. */
export function accountOfArn(arn: string | null | undefined): string | undefined {
  return /^arn:aws[\w-]*:(?:iam|sts)::(\d{12}):/.exec(arn ?? "")?.[1];
}

/** Keys as the AWS SDK takes them. `sessionToken` only for AssumeRole's temporary keys. */
export interface SimCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface SimUser {
  name: string;
  arn: string;
  credentials: SimCredentials;
}

export interface SimRoleOptions {
  /** When set, AssumeRole must pass exactly this ExternalId. */
  externalId?: string;
  /** Principal ARNs (users or roles) allowed to assume the role; default: every principal of the account. */
  allowedPrincipals?: string[];
}

export interface SimRole extends SimRoleOptions {
  arn: string;
  name: string;
}

/** Who signed a request, once the signature checked out. */
export interface SimPrincipal {
  /** The ARN STS reports (`...:user/NAME` or `...:assumed-role/ROLE/SESSION`). */
  arn: string;
  /** The IAM ARN access is mapped from (assumed roles canonicalised to `...:role/ROLE`). */
  canonicalArn: string;
  userId: string;
  account: string;
  accessKeyId: string;
  sessionName?: string;
}

interface KeyRecord {
  credentials: SimCredentials;
  principal: SimPrincipal;
  /** Temporary keys stop working at this instant. */
  expiresAt?: Date;
}

const DEFAULT_ACCOUNT = "111122223333";

/**
 * The simulated IAM: the only source of truth for which access keys exist, so the
 * API server, EKS and STS all verify signatures against the same keys. Keys are random
 * per start (AKIA.../ASIA... shaped) so tests cannot lean on fixed secrets.
 */
export class SimIam {
  readonly account: string;
  private readonly keys = new Map<string, KeyRecord>();
  private readonly userList = new Map<string, SimUser>();
  private readonly roleList = new Map<string, SimRole>();
  private readonly deniedActions = new Set<string>();
  private readonly now: () => Date;

  constructor(options: { account?: string; now?: () => Date } = {}) {
    this.account = options.account ?? DEFAULT_ACCOUNT;
    this.now = options.now ?? (() => new Date());
  }

  /** Adds an IAM user with a fresh key pair (or the given keys, e.g. AWS's public dummy keys for oracles). */
  addUser(name: string, credentials?: { accessKeyId: string; secretAccessKey: string }): SimUser {
    const arn = `arn:aws:iam::${this.account}:user/${name}`;
    const keys = credentials ?? { accessKeyId: newKeyId("AKIA"), secretAccessKey: newSecret() };
    const user: SimUser = { name, arn, credentials: { ...keys } };
    this.userList.set(name, user);
    this.keys.set(keys.accessKeyId, {
      credentials: user.credentials,
      principal: {
        arn,
        canonicalArn: arn,
        userId: `AIDA${keys.accessKeyId.slice(4, 20)}`,
        account: this.account,
        accessKeyId: keys.accessKeyId,
      },
    });
    return user;
  }

  addRole(roleArn: string, options: SimRoleOptions = {}): SimRole {
    const name = roleArn.split("/").pop() ?? roleArn;
    const role: SimRole = { arn: roleArn, name, ...options };
    this.roleList.set(roleArn, role);
    return role;
  }

  removeRole(roleArn: string): boolean {
    return this.roleList.delete(roleArn);
  }

  /** Makes an access key unknown from now on (signatures with it fail as with a deleted key). */
  revokeKey(accessKeyId: string): boolean {
    return this.keys.delete(accessKeyId);
  }

  /**
   * Revokes an account's access (a fleet's fault): its roles are gone (AssumeRole is AccessDenied) and every key
   * of a session in it stops working at once, as a deny on tokens issued before now would do on AWS.
   */
  revokeAccount(account: string): void {
    for (const arn of this.roleList.keys()) if (accountOfArn(arn) === account) this.roleList.delete(arn);
    for (const [id, record] of this.keys) if (record.principal.account === account) this.keys.delete(id);
  }

  /** Denies an action (e.g. `eks:DescribeCluster`, `sts:AssumeRole`) to a principal ARN, or to everyone with `*`. */
  denyAction(principalArn: string, action: string): void {
    this.deniedActions.add(`${principalArn}|${action}`);
  }

  allowAction(principalArn: string, action: string): void {
    this.deniedActions.delete(`${principalArn}|${action}`);
  }

  isDenied(principal: SimPrincipal, action: string): boolean {
    return [principal.arn, principal.canonicalArn, "*"].some((arn) => this.deniedActions.has(`${arn}|${action}`));
  }

  users(): SimUser[] {
    return [...this.userList.values()];
  }

  roles(): SimRole[] {
    return [...this.roleList.values()];
  }

  role(roleArn: string): SimRole | undefined {
    return this.roleList.get(roleArn);
  }

  /** The key record for an access key id, or undefined when unknown or expired. */
  lookupKey(accessKeyId: string): { credentials: SimCredentials; principal: SimPrincipal } | undefined {
    const record = this.keys.get(accessKeyId);
    if (!record) return undefined;
    if (record.expiresAt && record.expiresAt.getTime() <= this.now().getTime()) return undefined;
    return record;
  }

  /** Issues temporary keys for a role session (what STS AssumeRole returns). */
  issueSession(role: SimRole, sessionName: string, durationSeconds: number): SimCredentials & { expiration: Date } {
    const credentials: SimCredentials = {
      accessKeyId: newKeyId("ASIA"),
      secretAccessKey: newSecret(),
      sessionToken: randomBytes(96).toString("base64"),
    };
    const expiration = new Date(this.now().getTime() + durationSeconds * 1000);
    // A role of another account (a fleet's cross-account roles): its sessions belong to that account.
    const account = accountOfArn(role.arn) ?? this.account;
    const roleId = `AROA${role.name
      .toUpperCase()
      .replace(/[^A-Z0-9]/g, "")
      .padEnd(16, "X")
      .slice(0, 16)}`;
    this.keys.set(credentials.accessKeyId, {
      credentials,
      expiresAt: expiration,
      principal: {
        arn: `arn:aws:sts::${account}:assumed-role/${role.name}/${sessionName}`,
        canonicalArn: role.arn,
        userId: `${roleId}:${sessionName}`,
        account,
        accessKeyId: credentials.accessKeyId,
        sessionName,
      },
    });
    return { ...credentials, expiration };
  }
}

const KEY_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

function newKeyId(prefix: string): string {
  const bytes = randomBytes(16);
  return prefix + [...bytes].map((b) => KEY_ALPHABET[b % 32]).join("");
}

function newSecret(): string {
  return randomBytes(30).toString("base64").replace(/\+/g, "A").replace(/\//g, "B");
}
