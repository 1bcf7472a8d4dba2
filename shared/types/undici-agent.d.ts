/**
 * undici's Agent on its own: `import { Agent } from "undici"` evaluates (and bundles) all of undici
 * (fetch, WebSocket, cache, mock agents: ≈ 760 KB minified); the Agent module alone is ≈ 480 KB.
 * undici has no exports map, so the file is reachable; its types are the package's own.
 */
declare module "undici/lib/dispatcher/agent.js" {
  import { Agent } from "undici";
  export default Agent;
}

/**
 * undici's internal symbols (loaded by the Agent module anyway). `kQueuedAbort` is the option under which a
 * dispatcher hands a handler the way to take its request out of a queue (a pool's, or a client's while the
 * connection is still being made): without it, a request waiting for a TLS handshake that never completes cannot
 * be aborted (issue #25 item 1).
 */
declare module "undici/lib/core/symbols.js" {
  const symbols: { readonly kQueuedAbort: symbol };
  export default symbols;
}
