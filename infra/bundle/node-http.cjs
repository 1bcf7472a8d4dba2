// node:http for the Lambda bundles (serverless.yml custom.esbuild.alias), as CommonJS: an ESM `import … from
// "node:http"` (@middy/util imports STATUS_CODES) builds the builtin's ESM facade, which reads every export, and
// the lazy WebSocket/CloseEvent/MessageEvent getters then load Node's internal undici: ≈ 8 ms of CPU in a cold
// start (8% of the handler's import) for nothing the handlers use (docs/bench.md). Property reads through this module stay lazy.
module.exports = process.getBuiltinModule("node:http");
