/**
 * The chatops access map for serverless.yml, `${file(./infra/chatops.cjs):accessJson}`
 * (CHATOPS_ACCESS of the chatops functions; their secrets' SSM names are the stage settings').
 * The access map comes from CHATOPS_ACCESS (inline JSON/YAML) or CHATOPS_ACCESS_FILE at package time,
 * else infra/chatops-access.yml; it is passed as compact JSON in the functions' environment (Lambda
 * allows 4 KB of variables per function, so a larger map fails here, not at deploy). The runtime
 * (shared/chatops/access.ts) validates it fully at cold start; this only checks its shape.
 */
const path = require("node:path");
const { loadAccessMap } = require("./access-maps.cjs");

function loadAccess(env = process.env) {
  return loadAccessMap(env, {
    inline: "CHATOPS_ACCESS",
    file: "CHATOPS_ACCESS_FILE",
    defaultFile: path.join(__dirname, "chatops-access.yml"),
    keys: ["slack", "teams"],
    what: "chatops access map",
  });
}

module.exports = async () => ({ accessJson: JSON.stringify(loadAccess()) });
module.exports.loadAccess = loadAccess;
