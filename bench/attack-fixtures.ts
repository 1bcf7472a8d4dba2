/** What the soak's issue-#25 cases (soak-attacks.ts) and their tests share: a small release, AWS's failure shapes. */
import type { Release } from "../shared/release/model.ts";

/** shop/api: a ConfigMap and a Deployment (so its related-pods LIST is read too). */
export const ATTACK_RELEASE: Release = {
  name: "api",
  namespace: "shop",
  version: 1,
  info: { status: "deployed", last_deployed: "2026-12-01T10:00:00Z", description: "Install complete" },
  chart: { metadata: { name: "api", version: "1.0.0", appVersion: "1.0" } },
  manifest:
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n  namespace: shop\nspec:\n  selector:\n    matchLabels:\n      app: api\n",
};

/** The registry entry the AWS failures are about (its role ARN names an account). */
export const AWS_ENTRY = {
  name: "prod-eu",
  region: "eu-west-1",
  roleArn: "arn:aws:iam::123456789012:role/helm-status-reader",
};

/** What a chat answer or an API error must never carry. */
export const AWS_INTERNALS = /arn:aws|\b\d{12}\b|amazonaws\.com|https:\/\//;

/** AWS SDK exceptions as the SDK throws them: a refusal naming ARNs, a cluster missing in EKS, an endpoint down. */
export function awsFailures(): [string, unknown][] {
  return [
    [
      "AssumeRole denied",
      Object.assign(
        new Error(
          "User: arn:aws:sts::123456789012:assumed-role/helm-status-api/fn is not authorized to perform: sts:AssumeRole on resource: arn:aws:iam::123456789012:role/helm-status-reader",
        ),
        { name: "AccessDenied", $metadata: { httpStatusCode: 403 } },
      ),
    ],
    [
      "cluster not in EKS",
      Object.assign(new Error("No cluster found for name: prod-eu."), { name: "ResourceNotFoundException" }),
    ],
    [
      "EKS unreachable",
      Object.assign(new Error("getaddrinfo ENOTFOUND eks.eu-west-1.amazonaws.com"), { code: "ENOTFOUND" }),
    ],
  ];
}
