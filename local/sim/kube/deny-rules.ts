/**
 * The simulated API server's authorization: everything is allowed but what a deny rule names (tests deny a verb, a
 * resource, a subresource such as `pods/log`, a namespace or a name, for one user or all), refused with
 * kube-apiserver's Forbidden message.
 */
import { ApiError } from "./negotiation.ts";
import type { ResourceType } from "./types.ts";

export interface DenyRule {
  /** Kubernetes username (the caller's ARN), its canonical IAM ARN, or its IAM user/role name; all users when absent. */
  user?: string;
  /** Plural resource (`secrets`), `plural.group` (`deployments.apps`), a subresource (`pods/log`) or `*`. */
  resource: string;
  namespace?: string;
  name?: string;
  /** Only this verb (`list`, `get`, `watch`, ...): a role that may get Secrets but not list them; all verbs when absent. */
  verb?: string;
}

/** The caller as the rules match it: its username (the ARN) and its other names (canonical ARN, short name). */
export interface RuleSubject {
  username: string;
  aliases: string[];
}

export interface RuleRequest {
  verb: string;
  type: ResourceType;
  namespace?: string;
  name?: string;
  subresource?: string;
}

/** Throws kube-apiserver's 403 when a rule denies the request. */
export function checkDenyRules(rules: readonly DenyRule[], caller: RuleSubject, request: RuleRequest): void {
  const { verb, type, namespace, name, subresource } = request;
  const resources = [type.plural, `${type.plural}.${type.group}`];
  // A rule for `pods/log` covers only the subresource, as in RBAC.
  const targets = subresource ? [...resources, `${type.plural}/${subresource}`] : resources;
  const denied = rules.some(
    (rule) =>
      (!rule.user || caller.aliases.includes(rule.user)) &&
      (rule.resource === "*" || targets.includes(rule.resource)) &&
      (!rule.namespace || rule.namespace === namespace) &&
      (!rule.name || rule.name === name) &&
      (!rule.verb || rule.verb === verb),
  );
  if (!denied) return;
  const resource = type.group ? `${type.plural}.${type.group}` : type.plural;
  const subject = name ? `${resource} "${name}"` : resource;
  const scope = namespace ? `in the namespace "${namespace}"` : "at the cluster scope";
  throw new ApiError(
    403,
    "Forbidden",
    `${subject} is forbidden: User "${caller.username}" cannot ${verb} resource "${subresource ? `${type.plural}/${subresource}` : type.plural}" in API group "${type.group}" ${scope}`,
    { ...(name ? { name } : {}), group: type.group, kind: type.plural },
  );
}
