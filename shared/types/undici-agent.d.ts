/**
 * undici's Agent on its own: `import { Agent } from "undici"` evaluates (and bundles) all of undici
 * (fetch, WebSocket, cache, mock agents: ≈ 760 KB minified); the Agent module alone is ≈ 480 KB.
 * undici has no exports map, so the file is reachable; its types are the package's own.
 */
declare module "undici/lib/dispatcher/agent.js" {
  import { Agent } from "undici";
  export default Agent;
}
