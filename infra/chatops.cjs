/**
 * The chatops access map for serverless.yml, `${file(./infra/chatops.cjs):accessJson}`
 * (CHATOPS_ACCESS of the chatops functions; their secrets' SSM names are the stage settings').
 * The access map comes from CHATOPS_ACCESS (inline JSON/YAML) or CHATOPS_ACCESS_FILE at package time,
 * else infra/chatops-access.yml; it is passed as compact JSON in the functions' environment (Lambda
 * allows 4 KB of variables per function, so a larger map fails here, not at deploy). The runtime
 * (shared/chatops/access.ts) validates it fully at cold start; this only checks its shape.
 */
const { existsSync, readFileSync } = require("node:fs");
const path = require("node:path");
const { parse } = require("yaml");

const MAX_ACCESS_BYTES = 2048;

function loadAccess(env = process.env) {
  let text = "";
  let source = "";
  if (env.CHATOPS_ACCESS?.trim()) {
    text = env.CHATOPS_ACCESS;
    source = "CHATOPS_ACCESS";
  } else {
    const file = env.CHATOPS_ACCESS_FILE?.trim() || path.join(__dirname, "chatops-access.yml");
    if (!existsSync(file)) return {};
    text = readFileSync(file, "utf8");
    source = file;
  }
  const document = parse(text, { uniqueKeys: true }) ?? {};
  if (typeof document !== "object" || Array.isArray(document)) {
    throw new Error(`${source}: the chatops access map must be a mapping with slack and/or teams lists`);
  }
  for (const key of Object.keys(document)) {
    if (!["slack", "teams"].includes(key)) throw new Error(`${source}: unknown key "${key}" (slack, teams)`);
    if (document[key] !== null && !Array.isArray(document[key])) throw new Error(`${source}: "${key}" must be a list`);
  }
  const json = JSON.stringify(document);
  if (Buffer.byteLength(json) > MAX_ACCESS_BYTES) {
    throw new Error(
      `${source}: the chatops access map is ${Buffer.byteLength(json)} bytes as JSON; Lambda's environment holds 4 KB, keep it under ${MAX_ACCESS_BYTES} (use "*" and fewer bindings)`,
    );
  }
  return document;
}

module.exports = async () => ({ accessJson: JSON.stringify(loadAccess()) });
module.exports.loadAccess = loadAccess;
