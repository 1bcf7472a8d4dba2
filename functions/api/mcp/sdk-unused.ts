/**
 * What the API bundle holds in place of the MCP SDK's dependencies it never runs (serverless.yml's
 * custom.esbuild.alias): Ajv and ajv-formats (the SDK's default JSON Schema validator; server.ts gives each server
 * its own, so no Ajv is ever built) and zod v3 with zod-to-json-schema (the SDK's path for zod 3 schemas; every tool
 * schema here is zod 4, turned into JSON Schema by zod itself). The SDK imports them statically, so without this the
 * first MCP call of a cold instance initialised them (≈ 6 ms of CPU) and the zip carried them (≈ 50 KB zipped).
 * Reaching one of these fails loudly rather than silently; test/api/mcp-bundle.test.ts runs tools/list and
 * tools/call on the bundle and checks that none of the four is in it. Sources run unbundled (tests, `npm start`)
 * load the real modules.
 */
function notInThisBundle(): never {
  throw new Error("not in the API bundle: the MCP SDK asked for Ajv or zod v3 (functions/api/mcp/sdk-unused.ts)");
}

/** `new Ajv()` (ajv) and `addFormats(ajv)` (ajv-formats): both are this function, which throws. */
export default notInThisBundle;
/** zod-to-json-schema's one export the SDK imports. */
export const zodToJsonSchema = notInThisBundle;
/** zod v3's `z.object`, the one part of `zod/v3` the SDK calls (for a zod 3 shape). */
export const object = notInThisBundle;
