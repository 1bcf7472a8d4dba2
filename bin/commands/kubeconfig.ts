/**
 * `kubeconfig --cluster NAME [--region R]`: a kubeconfig for the cluster whose user runs
 * this project's `token` command as an exec plugin, so it never contains a token and
 * never goes stale. Server and CA come from DescribeCluster.
 */
import { stringify } from "yaml";
import { createEksConnector } from "../../shared/eks/connector.ts";
import { CLUSTER_FLAGS } from "../lib/args.ts";
import { resolveCliCluster } from "../lib/cli-cluster.ts";
import { cliEntry } from "../lib/commands.ts";
import { defineCommand } from "../lib/define-command.ts";

const usage = `usage: npm run --silent cli -- kubeconfig --cluster NAME [--region R]

Prints a kubeconfig for the EKS cluster (server and CA from DescribeCluster) whose user
runs 'token --cluster NAME' of this project as a kubectl exec plugin. Save it and use
it with kubectl --kubeconfig FILE, or with this CLI's --kubeconfig FILE.
`;

export const run = defineCommand({
  help: usage,
  options: CLUSTER_FLAGS,
  async run({ values }, io) {
    const { entry, registryEnv } = resolveCliCluster(io.env, values);
    const facts = await createEksConnector({ registry: [entry] }).describe(entry.name);
    const name = entry.name;
    const kubeconfig = {
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name, cluster: { server: facts.endpoint, "certificate-authority-data": facts.caData } }],
      contexts: [{ name, context: { cluster: name, user: name } }],
      "current-context": name,
      preferences: {},
      users: [
        {
          name,
          user: {
            exec: {
              apiVersion: "client.authentication.k8s.io/v1beta1",
              // This very Node (24) and this CLI's entry (a checkout's bin/cli.ts or the installed bundle),
              // by absolute path, so the plugin works from any directory and whatever `node` is first on PATH.
              command: process.execPath,
              args: [cliEntry(), "token", "--cluster", name, "--region", entry.region],
              env: registryEnv ? [registryEnv] : undefined,
              interactiveMode: "Never",
              provideClusterInfo: false,
            },
          },
        },
      ],
    };
    io.stdout.write(stringify(kubeconfig));
    return 0;
  },
});
