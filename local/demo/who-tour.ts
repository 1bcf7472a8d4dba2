/**
 * The "who changed it" part of `npm start`'s tour (docs/who.md): two identities of the simulated IAM, alice (an
 * IAM Identity Center-style assumed-role session) and bob (an IAM user); `helm upgrade web` as alice and a
 * `kubectl patch` of web's ConfigMap as bob, then the history names alice on the new revision and the status's DRIFT
 * names bob, once the sync worker has found both in the simulated audit log.
 */
import type { SimCredentials, SimulatedEks } from "../sim/index.ts";

export interface DemoIdentities {
  alice: SimCredentials;
  bob: SimCredentials;
}

/** Long enough for a demo afternoon; the simulated STS refuses an expired session as AWS would. */
const SESSION_SECONDS = 12 * 3600;

export function demoIdentities(sim: SimulatedEks): DemoIdentities {
  const role = sim.iam.addRole(`arn:aws:iam::${sim.iam.account}:role/AWSReservedSSO_Developer_0123456789abcdef`);
  return {
    alice: sim.iam.issueSession(role, "alice@example.com", SESSION_SECONDS),
    bob: sim.iam.addUser("bob").credentials,
  };
}

/** The identity's keys as a command prefix (quoted: a session token holds + / =). */
function as(credentials: SimCredentials): string {
  const keys = [
    `AWS_ACCESS_KEY_ID=${credentials.accessKeyId}`,
    `AWS_SECRET_ACCESS_KEY=${credentials.secretAccessKey}`,
    ...(credentials.sessionToken ? [`AWS_SESSION_TOKEN='${credentials.sessionToken}'`] : []),
  ];
  return keys.join(" ");
}

/** The tour's lines: run after the sync tour's `export` and kubeconfig lines (same shell). */
export function whoTourLines(
  url: string,
  identities: DemoIdentities,
  options: { intervalSeconds: number; auditLagSeconds: number },
): string[] {
  const release = `${url}/clusters/demo-eu/namespaces/shop/releases/web`;
  const within = 2 * options.intervalSeconds + options.auditLagSeconds;
  const configMap = String.raw`printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-config\ndata:\n  LOG_LEVEL: "warn"\n' > /tmp/web/templates/web-config.yaml`;
  return [
    `Who changed it (docs/who.md): the sync looks each new revision and drift write up in the clusters' audit logs (simulated, delivered after ${options.auditLagSeconds}s: SIM_AUDIT_LAG)`,
    `  ${configMap}   # web keeps its ConfigMap`,
    `  ${as(identities.alice)} KUBECONFIG=/tmp/demo-eu.kubeconfig helm upgrade web /tmp/web -n shop   # as alice@example.com`,
    `  ${as(identities.bob)} KUBECONFIG=/tmp/demo-eu.kubeconfig kubectl -n shop patch configmap web-config -p '{"data":{"LOG_LEVEL":"debug"}}'   # as bob`,
    `  # within about ${within}s (two sync/audit intervals and the lag):`,
    "  npm run --silent cli -- history web -n shop --cluster demo-eu -o json   # the new revision: alice@example.com",
    `  curl -s '${release}/status?output=table'   # DRIFT: data.LOG_LEVEL warn -> debug, CHANGED BY kubectl-patch by bob`,
  ];
}
