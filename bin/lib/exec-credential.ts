/**
 * The ExecCredential that kubectl's exec plugin protocol expects, printed exactly as
 * `aws eks get-token` prints it (key order, 4-space indent, second-precision UTC
 * timestamp, trailing blank line), so the product is a drop-in for the AWS CLI.
 */
import type { EksToken } from "../../shared/eks/token.ts";

const V1BETA1 = "client.authentication.k8s.io/v1beta1";
const ACCEPTED = new Set(["client.authentication.k8s.io/v1", V1BETA1, "client.authentication.k8s.io/v1alpha1"]);

/**
 * The apiVersion to answer with: the one kubectl announced in KUBERNETES_EXEC_INFO
 * when it is one we speak, else v1beta1 (the AWS CLI's rule). `warn` receives the
 * AWS CLI's deprecation notice for v1alpha1.
 */
export function execCredentialApiVersion(execInfo: string | undefined, warn: (message: string) => void = () => {}) {
  if (!execInfo) return V1BETA1;
  let apiVersion: unknown;
  try {
    apiVersion = (JSON.parse(execInfo) as { apiVersion?: unknown })?.apiVersion;
  } catch {
    return V1BETA1;
  }
  if (typeof apiVersion !== "string" || !ACCEPTED.has(apiVersion)) return V1BETA1;
  if (apiVersion.endsWith("v1alpha1")) {
    warn("Kubeconfig user entry is using deprecated API version client.authentication.k8s.io/v1alpha1.");
  }
  return apiVersion;
}

/** `2026-12-02T14:52:16Z`: what the AWS CLI and metav1.Time print. */
export function formatAwsTimestamp(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

export function formatExecCredential(token: EksToken, apiVersion: string = V1BETA1): string {
  const credential = {
    kind: "ExecCredential",
    apiVersion,
    spec: {},
    status: { expirationTimestamp: formatAwsTimestamp(token.expiresAt), token: token.token },
  };
  return `${JSON.stringify(credential, null, 4)}\n\n`;
}
