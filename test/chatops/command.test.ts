import assert from "node:assert/strict";
import { test } from "node:test";
import { commandLine, parseChatCommand } from "../../shared/chatops/command.ts";

const ok = (text: string, options = {}) => {
  const result = parseChatCommand(text, options);
  assert.ok(result.ok, `${text}: ${!result.ok && result.error}`);
  return result.command;
};
const bad = (text: string, pattern: RegExp, options = {}) => {
  const result = parseChatCommand(text, options);
  assert.ok(!result.ok, `${text} should fail`);
  assert.match(result.error, pattern);
  assert.match(result.usage, /\/helm status RELEASE/);
};

test("status with every flag, in any order, = or space", () => {
  assert.deepEqual(ok("status api -n shop --cluster prod-eu --revision 3 --public"), {
    verb: "status",
    release: "api",
    namespace: "shop",
    cluster: "prod-eu",
    revision: 3,
    public: true,
  });
  assert.deepEqual(ok("  STATUS   --cluster=prod-eu api --namespace=shop "), {
    verb: "status",
    release: "api",
    namespace: "shop",
    cluster: "prod-eu",
    public: false,
  });
});

test("chat clients' smart dashes and quotes are undone", () => {
  assert.deepEqual(ok("status “api” —cluster prod-eu –n shop"), {
    verb: "status",
    release: "api",
    namespace: "shop",
    cluster: "prod-eu",
    public: false,
  });
});

test("history, list, help; empty text is help", () => {
  assert.deepEqual(ok("history api --max 5"), { verb: "history", release: "api", max: 5, public: false });
  assert.deepEqual(ok("list -A --cluster demo-eu"), {
    verb: "list",
    cluster: "demo-eu",
    allNamespaces: true,
    public: false,
  });
  assert.deepEqual(ok("list"), { verb: "list", allNamespaces: false, public: false });
  assert.deepEqual(ok(""), { verb: "help", public: false });
  assert.deepEqual(ok("help"), { verb: "help", public: false });
});

test("bad syntax says what is wrong", () => {
  bad("stat api", /unknown command "stat"/);
  bad("status", /status needs a RELEASE/);
  bad("status api extra", /unexpected argument "extra"/);
  bad("status api --bogus", /unknown flag "--bogus"/);
  bad("status api -n", /-n needs a value/);
  bad("status api -n --public", /-n needs a value/);
  bad("status api --max 3", /status does not take --max/);
  bad("history api --max 0", /--max must be a whole number from 1 to 50/);
  bad("history api --max 51", /--max must/);
  bad("status api --revision two", /invalid revision/);
  // Helm's rule: revision 0 (or less) is the latest, so no revision at all.
  assert.equal((ok("status api --revision 0") as { revision?: number }).revision, undefined);
  bad("status Bad_Name", /release name is invalid: Bad_Name/);
  bad("status api -n Shop", /invalid namespace/);
  bad("status api --cluster 'bad name!'", /invalid cluster name|unexpected argument/);
  bad("status api -n a -n b", /-n is given twice/);
  bad("list -A -n shop", /not both/);
  bad("status api --public=yes", /takes no value/);
  bad("fleet", /unknown command "fleet"/);
});

test("user text quoted back cannot carry Slack markup or control characters", () => {
  const result = parseChatCommand("<!channel>\u0007 api");
  assert.ok(!result.ok);
  assert.ok(!/[<>]/.test(result.error) && !result.error.includes(String.fromCharCode(7)));
});

test("fleet and timeline only when the snapshots exist", () => {
  assert.deepEqual(ok("fleet --cluster prod-eu", { snapshots: true }), {
    verb: "fleet",
    cluster: "prod-eu",
    public: false,
  });
  assert.deepEqual(ok("timeline api -n shop", { snapshots: true }), {
    verb: "timeline",
    release: "api",
    namespace: "shop",
    public: false,
  });
  const usage = parseChatCommand("nope", { snapshots: true });
  assert.ok(!usage.ok && /fleet/.test(usage.usage));
});

test("commandLine is canonical and parses back to the same command", () => {
  for (const text of ["status api -n shop --cluster prod-eu --revision 3 --public", "history web --max 4", "list -A"]) {
    const command = ok(text);
    assert.deepEqual(ok(commandLine(command)), command);
  }
});
