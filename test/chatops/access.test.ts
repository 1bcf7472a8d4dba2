import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { loadAccessMap, parseAccessMap, resolveAccess } from "../../shared/chatops/access.ts";
import { resolveCommand } from "../../shared/chatops/answer.ts";
import { parseChatCommand } from "../../shared/chatops/command.ts";
import { ChatAccessDeniedError } from "../../shared/chatops/errors.ts";

const MAP = parseAccessMap(
  `
slack:
  - team: T1
    channels: [C-SHOP]
    clusters: [prod-eu, prod-us]
    namespaces: [shop]
    defaults: { cluster: prod-eu, namespace: shop }
  - team: T1
    channel: C-OPS
    users: [U-ONCALL]
    clusters: "*"
teams:
  - tenant: tenant-1
    channels: "*"
    clusters: [prod-eu]
`,
  "test",
);
const KNOWN = ["prod-eu", "prod-us", "staging"];
const caller = (channel: string, user = "U-ANY", team = "T1") => ({ platform: "slack" as const, team, channel, user });
const resolve = (text: string, who = caller("C-SHOP")) => {
  const parsed = parseChatCommand(text);
  assert.ok(parsed.ok);
  return resolveCommand(parsed.command, resolveAccess(MAP, who), KNOWN);
};

test("the channel's defaults fill in cluster and namespace", () => {
  assert.deepEqual(resolve("status api"), { verb: "status", cluster: "prod-eu", namespace: "shop", release: "api" });
  assert.deepEqual(resolve("status api --cluster prod-us --revision 2"), {
    verb: "status",
    cluster: "prod-us",
    namespace: "shop",
    release: "api",
    revision: 2,
  });
});

test("default deny: unknown team, channel, user, cluster or namespace is refused the same way", () => {
  for (const [text, who] of [
    ["status api", caller("C-OTHER")],
    ["status api", caller("C-SHOP", "U-ANY", "T2")],
    ["status api --cluster staging", caller("C-SHOP")],
    ["status api -n kube-system", caller("C-SHOP")],
    ["list -A --cluster staging", caller("C-SHOP")],
    ["status api --cluster prod-eu -n shop", caller("C-OPS", "U-SOMEONE")],
  ] as const) {
    assert.throws(
      () => resolve(text, who),
      (error: unknown) => {
        assert.ok(error instanceof ChatAccessDeniedError);
        assert.equal(error.kind, "forbidden");
        assert.equal(error.message, "not allowed here: this channel may not read that cluster or namespace");
        return true;
      },
      `${text} from ${who.channel}/${who.user}`,
    );
  }
  const empty = parseAccessMap("", "empty");
  assert.ok(resolveAccess(empty, caller("C-SHOP")).none);
});

test("a user-scoped binding grants everything to that user only; no default cluster asks for --cluster", () => {
  assert.deepEqual(resolve("status api --cluster staging -n kube-system", caller("C-OPS", "U-ONCALL")), {
    verb: "status",
    cluster: "staging",
    namespace: "kube-system",
    release: "api",
  });
  assert.throws(() => resolve("status api", caller("C-OPS", "U-ONCALL")), /no --cluster given/);
});

test("list: the default namespace, or every allowed namespace, filtered", () => {
  assert.deepEqual(resolve("list"), {
    verb: "list",
    cluster: "prod-eu",
    namespace: "shop",
    namespaces: new Set(["shop"]),
  });
  // -A is "every namespace this channel may read".
  assert.deepEqual(resolve("list -A"), { verb: "list", cluster: "prod-eu", namespaces: new Set(["shop"]) });
  assert.deepEqual(resolve("list -A --cluster prod-eu", caller("C-OPS", "U-ONCALL")), {
    verb: "list",
    cluster: "prod-eu",
    namespaces: "*",
  });
});

test("teams bindings are keyed by tenant; a channel that may read one cluster needs no --cluster", () => {
  const access = resolveAccess(MAP, { platform: "teams", team: "tenant-1", channel: "19:x@thread.tacv2", user: "u" });
  const parsed = parseChatCommand("status api");
  assert.ok(parsed.ok);
  assert.deepEqual(resolveCommand(parsed.command, access, KNOWN), {
    verb: "status",
    cluster: "prod-eu",
    namespace: "default",
    release: "api",
  });
  assert.ok(resolveAccess(MAP, { platform: "teams", team: "T1", channel: "C-SHOP", user: "u" }).none);
});

test("every problem of a bad map is reported at once, naming where", () => {
  assert.throws(
    () =>
      parseAccessMap(
        `
slack:
  - team: T1
    channels: [C1]
    clusters: [bad name]
    defaults: { cluster: other }
  - channels: "*"
    clusters: "*"
    colour: blue
teams:
  - team: T1
    channels: "*"
    clusters: "*"
extra: 1
`,
        "CHATOPS_ACCESS",
      ),
    (error: Error) => {
      for (const part of [
        /^CHATOPS_ACCESS: /,
        /unknown key "extra"/,
        /slack\[0\]\.clusters: invalid cluster name/,
        /slack\[1\]: unknown field "colour"/,
        /slack\[1\]: "team" .* is required/,
        /teams\[0\]: teams bindings name a "tenant", not a "team"/,
      ])
        assert.match(error.message, part);
      return true;
    },
  );
  assert.throws(() => parseAccessMap("[1, 2]", "X"), /expected an object with "slack"/);
  assert.throws(() => parseAccessMap("slack: {", "X"), /not valid JSON or YAML/);
});

test("CHATOPS_ACCESS inline (JSON too) or CHATOPS_ACCESS_FILE, not both; neither = deny all", () => {
  const dir = mkdtempSync(join(tmpdir(), "chatops-access-"));
  try {
    const file = join(dir, "access.yml");
    writeFileSync(file, "slack:\n  - { team: T1, channels: '*', clusters: '*' }\n");
    assert.equal(loadAccessMap({ CHATOPS_ACCESS_FILE: file }).slack.length, 1);
    assert.equal(
      loadAccessMap({ CHATOPS_ACCESS: '{"slack":[{"team":"*","channels":"*","clusters":"*"}]}' }).slack[0].team,
      "*",
    );
    assert.throws(() => loadAccessMap({ CHATOPS_ACCESS: "{}", CHATOPS_ACCESS_FILE: file }), /only one/);
    assert.throws(() => loadAccessMap({ CHATOPS_ACCESS_FILE: join(dir, "nope") }), /cannot read the file \(ENOENT\)/);
    assert.deepEqual(loadAccessMap({}), { slack: [], teams: [] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
