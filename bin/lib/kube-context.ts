/**
 * Which cluster of the store a kubeconfig context means, as `helm fleet` and `push` pick it: the flag
 * (--kube-context, Helm's name; helm hands it to plugins as HELM_KUBECONTEXT), else the kubeconfig's
 * current-context, from --kubeconfig, KUBECONFIG (a list of files, the first that sets a value wins, as in
 * kubectl) or ~/.kube/config. The store knows a cluster by its EKS name: `aws eks update-kubeconfig` names both
 * the context and its cluster by the ARN `arn:aws:eks:REGION:ACCOUNT:cluster/NAME`, so the ARN gives NAME
 * (the context's cluster first: an --alias renames only the context). Only names are read, never credentials.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { parse } from "yaml";
import { ValidationError } from "../../shared/errors.ts";
import { validateClusterName } from "../../shared/release/validation.ts";

const EKS_CLUSTER_ARN = /^arn:aws[a-z-]*:eks:[a-z0-9-]+:\d{12}:cluster\/(.+)$/;

/** The EKS cluster name in an ARN, or undefined for any other name. */
export function eksClusterName(arnOrName: string): string | undefined {
  return EKS_CLUSTER_ARN.exec(arnOrName)?.[1];
}

export function kubeconfigFiles(env: NodeJS.ProcessEnv, flag?: string): string[] {
  if (flag) return [flag];
  const list = env.KUBECONFIG?.split(delimiter).filter(Boolean);
  if (list?.length) return list;
  return [join(env.HOME || homedir(), ".kube", "config")];
}

interface NamedContext {
  name?: unknown;
  context?: { cluster?: unknown };
}

/** The store's cluster for a context (the flag's, else the current one): its EKS ARN's name, else its name. */
export function clusterOfKubeContext(env: NodeJS.ProcessEnv, flags: { kubeconfig?: string; context?: string }) {
  const files = kubeconfigFiles(env, flags.kubeconfig).filter((file) => flags.kubeconfig || existsSync(file));
  if (files.length === 0) {
    throw new ValidationError(
      `which cluster? pass --cluster C, or --kube-context C with a kubeconfig (none at ${kubeconfigFiles(env).join(", ")})`,
      "MissingFlag",
    );
  }
  let current: string | undefined;
  const contexts = new Map<string, NamedContext>();
  for (const file of files) {
    let config: { "current-context"?: unknown; contexts?: unknown };
    try {
      config = (parse(readFileSync(file, "utf8")) ?? {}) as typeof config;
    } catch (error) {
      throw new ValidationError(
        `cannot read kubeconfig ${file}: ${(error as Error).message.split("\n")[0]}`,
        "InvalidKubeconfig",
      );
    }
    if (!current && typeof config["current-context"] === "string" && config["current-context"]) {
      current = config["current-context"];
    }
    for (const entry of Array.isArray(config.contexts) ? (config.contexts as NamedContext[]) : []) {
      if (typeof entry?.name === "string" && !contexts.has(entry.name)) contexts.set(entry.name, entry);
    }
  }
  const name = flags.context || current;
  if (!name) {
    throw new ValidationError(
      `which cluster? pass --cluster C or --kube-context C (no current-context in ${files.join(", ") || "any kubeconfig"})`,
      "MissingFlag",
    );
  }
  const entry = contexts.get(name);
  if (!entry) {
    throw new ValidationError(
      `kube context ${JSON.stringify(name)} is not in ${files.join(", ")} (contexts: ${[...contexts.keys()].join(", ") || "none"})`,
      "UnknownContext",
    );
  }
  const clusterRef = typeof entry.context?.cluster === "string" ? entry.context.cluster : "";
  const cluster = eksClusterName(clusterRef) ?? eksClusterName(name) ?? name;
  try {
    return { context: name, cluster: validateClusterName(cluster) };
  } catch {
    throw new ValidationError(
      `the kube context ${JSON.stringify(name)} does not name an EKS cluster (no arn:aws:eks:...:cluster/NAME): pass --cluster C`,
      "MissingFlag",
    );
  }
}
