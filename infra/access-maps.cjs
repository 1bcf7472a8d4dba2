/**
 * Access maps for serverless.yml (the one rule shape of shared/access/grants.ts): read at package time from
 * an inline variable or a file (else a default file), checked for shape, and passed as compact JSON in a
 * function's environment (Lambda allows 4 KB of variables per function, so a larger map fails here, not at
 * deploy). The runtime validates each fully at cold start; this only checks the top-level shape.
 */
const { existsSync, readFileSync } = require("node:fs");
const { parse } = require("yaml");

const MAX_ACCESS_BYTES = 2048;

/** `{inline, file, defaultFile, keys, what}`: the variable names, the default file, the allowed list keys. */
function loadAccessMap(env, { inline, file, defaultFile, keys, what }) {
  let text = "";
  let source = "";
  if (env[inline]?.trim()) {
    text = env[inline];
    source = inline;
  } else {
    const path = env[file]?.trim() || defaultFile;
    if (!existsSync(path)) return {};
    text = readFileSync(path, "utf8");
    source = path;
  }
  const document = parse(text, { uniqueKeys: true }) ?? {};
  if (typeof document !== "object" || Array.isArray(document)) {
    throw new Error(`${source}: the ${what} must be a mapping with ${keys.join(" and/or ")} lists`);
  }
  for (const key of Object.keys(document)) {
    if (!keys.includes(key)) throw new Error(`${source}: unknown key "${key}" (${keys.join(", ")})`);
    if (document[key] !== null && !Array.isArray(document[key])) throw new Error(`${source}: "${key}" must be a list`);
  }
  const json = JSON.stringify(document);
  if (Buffer.byteLength(json) > MAX_ACCESS_BYTES) {
    throw new Error(
      `${source}: the ${what} is ${Buffer.byteLength(json)} bytes as JSON; Lambda's environment holds 4 KB, keep it under ${MAX_ACCESS_BYTES} (use "*" and fewer bindings)`,
    );
  }
  return document;
}

module.exports = { loadAccessMap };
