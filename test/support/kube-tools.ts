/** The real kubectl and helm (local/kube-tools.ts, shared with the bench), for the tests' toolbox. */
export { helmPath, kubectlPath, kubeToolsEnv } from "../../local/kube-tools.ts";
