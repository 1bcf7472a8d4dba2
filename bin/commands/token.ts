/**
 * `token --cluster NAME [--region R]`: an EKS bearer token as the ExecCredential JSON
 * `aws eks get-token` prints, so this CLI can be kubectl's exec plugin.
 */

import { createEksConnector } from "../../shared/eks/connector.ts";
import { CLUSTER_FLAGS } from "../lib/args.ts";
import { resolveCliCluster } from "../lib/cli-cluster.ts";
import { defineCommand } from "../lib/define-command.ts";
import { execCredentialApiVersion, formatExecCredential } from "../lib/exec-credential.ts";

const usage = `usage: npm run --silent cli -- token --cluster NAME [--region R]

Prints an EKS token as ExecCredential JSON (the shape of 'aws eks get-token').
The cluster's region, role (roleArn/externalId) and STS endpoint come from the registry
(CLUSTERS or CLUSTERS_FILE) when one is set; otherwise --region or AWS_REGION is needed.
Credentials: the AWS SDK default chain (AWS_ACCESS_KEY_ID..., AWS_PROFILE, SSO, IMDS).
`;

export const run = defineCommand({
  help: usage,
  options: CLUSTER_FLAGS,
  async run({ values }, io) {
    const { entry } = resolveCliCluster(io.env, values);
    const connector = createEksConnector({ registry: [entry] });
    const token = await connector.token(entry.name);
    const apiVersion = execCredentialApiVersion(io.env.KUBERNETES_EXEC_INFO, (warning) =>
      io.stderr.write(`${warning}\n`),
    );
    io.stdout.write(formatExecCredential(token, apiVersion));
    return 0;
  },
});
