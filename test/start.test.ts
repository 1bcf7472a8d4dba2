/**
 * `npm start` driven as a user would: spawn it (PORT=0, a temp data dir), wait
 * for the printed URL, curl a status, press Ctrl-C (SIGINT to the process
 * group, like a terminal), and check that it exits and leaves nothing running.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { hasJava, localStartsForFile, ROOT } from "./support/local-start.ts";

const starts = localStartsForFile("helm-status-start-");
const dataDir = starts.dir;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test("npm start serves the demo, answers a status, and stops everything on Ctrl-C", {
  skip: !hasJava && "no java for DynamoDB Local",
  timeout: 120_000,
}, async () => {
  const start = starts.spawn("npm", ["start", "--silent"], {
    dataDir,
    env: {
      PORT: "0",
      // A short local schedule and an early demo recovery, so the timeline shows a change within the test.
      AUDIT_INTERVAL: "5",
      DEMO_API_RECOVERS_AFTER: "7",
    },
  });
  const child = start.child;
  const { waitFor, output } = start;
  const exited = new Promise<string>((resolve) => child.once("exit", (code, signal) => resolve(`${code ?? signal}`)));
  const startedAt = Date.now();

  const [, url] = await waitFor(/API ready on (http:\/\/127\.0\.0\.1:\d+)/, 90_000);
  process.stderr.write(`# npm start ready in ${Date.now() - startedAt} ms\n`);
  const [, javaPid] = output().match(/DynamoDB Local\s+\S+ \(pid (\d+)/) ?? [];
  assert.ok(javaPid, output());
  assert.match(output(), /curl -s '.*\/status\?output=table'/);

  const status = await fetch(`${url}/clusters/demo-eu/namespaces/shop/releases/api/status?output=table`);
  assert.equal(status.status, 200);
  const text = await status.text();
  assert.match(text, /^NAME: api$/m);
  assert.match(text, /CrashLoopBackOff/);
  assert.match(text, /==> MISSING/);
  // The MCP tools on the same server, through the SDK's client, added as the banner prints it (docs/mcp.md).
  const [, mcpUrl] = await waitFor(/"helm-status": \{ "type": "http", "url": "(\S+)" \}/, 10_000);
  assert.equal(mcpUrl, `${url}/mcp`);
  const assistant = new Client({ name: "start-test", version: "1.0.0" });
  await assistant.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
  const answer = (await assistant.callTool({
    name: "release_status",
    arguments: { cluster: "demo-eu", namespace: "shop", name: "api" },
  })) as CallToolResult;
  const answered = answer.content.map((c) => (c.type === "text" ? c.text : "")).join("");
  assert.match(answered, /^NAME: api$/m);
  assert.match(answered, /^HEALTH: /m);
  await assistant.close();
  const missing = await fetch(`${url}/clusters/demo-us/namespaces/observability/releases/metrics/status`, {
    headers: { accept: "application/json" },
  });
  assert.match(await missing.text(), /ServiceMonitor/);

  // The printed chatops curl, pasted as printed: signed, acked, and the Block Kit answer shown by the receiver.
  const [signLine] =
    output().match(/^ {2}SLACK_SIGNING_SECRET=\S+ npm run --silent cli -- chatops sign .*\| curl -s -K -$/m) ?? [];
  assert.ok(signLine, output());
  const pasted = spawnSync("sh", ["-c", signLine], {
    cwd: ROOT,
    env: { ...process.env, PATH: `${join(ROOT, "node_modules/.bin")}:${process.env.PATH}` },
    encoding: "utf8",
    timeout: 30_000,
  });
  assert.equal(pasted.stdout, '{"response_type":"ephemeral","text":"checking shop/api on demo-eu…"}', pasted.stderr);
  await waitFor(
    /response_url receiver got an ephemeral message at \/commands\/demo: \d+ blocks, within Slack's limits/,
    30_000,
  );
  assert.match(output(), /# shop\/api on demo-eu/);

  // The audits fill the status history: the demo's api release recovers and the change is recorded.
  await waitFor(/change: shop\/api on demo-eu: Failed -> Current/, 60_000);
  const history = (await (await fetch(`${url}/clusters/demo-eu/namespaces/shop/releases/api/snapshots`)).json()) as {
    snapshots: { health: { overall: string }; changes: { kind: string }[] }[];
  };
  assert.deepEqual(
    history.snapshots.map((s) => s.health.overall),
    ["Current", "Failed"],
  );
  assert.ok(history.snapshots[0].changes.some((c) => c.kind === "health"));
  const fleet = (await (await fetch(`${url}/fleet/health`)).json()) as { releases: unknown[] };
  assert.ok(fleet.releases.length >= 3);

  // Chat's `fleet` and `timeline` read the same history under npm start (#25: they said "not available").
  for (const [command, path, expected] of [
    ["fleet", "/commands/fleet", /fleet|Current|Failed/],
    ["timeline api -n shop --cluster demo-eu", "/commands/timeline", /shop\/api/],
  ] as const) {
    const line = signLine
      .replace("/commands/demo", path)
      .replace("'status api -n shop --cluster demo-eu'", `'${command}'`);
    const asked = spawnSync("sh", ["-c", line], {
      cwd: ROOT,
      env: { ...process.env, PATH: `${join(ROOT, "node_modules/.bin")}:${process.env.PATH}` },
      encoding: "utf8",
      timeout: 30_000,
    });
    assert.match(asked.stdout, /response_type/, asked.stderr);
    await waitFor(new RegExp(`response_url receiver got an ephemeral message at ${path}`), 30_000);
    const shown = output().slice(output().lastIndexOf(`message at ${path}`));
    assert.doesNotMatch(shown.slice(0, 2000), /not available/);
    assert.match(shown.slice(0, 4000), expected);
  }

  process.kill(-child.pid!, "SIGINT");
  const stopAt = Date.now();
  const code = await Promise.race([
    exited,
    new Promise((resolve) => setTimeout(() => resolve("timeout"), 30_000).unref()),
  ]);
  process.stderr.write(`# stopped in ${Date.now() - stopAt} ms\n`);
  // npm re-raises the SIGINT it got from the terminal on itself; the script under it exits 0.
  assert.ok(code === "0" || code === "SIGINT", `exit ${code}\n${output()}`);
  assert.match(output(), /SIGINT: stopping/);
  // Nothing left: not the JVM (its own process group), not anything in ours.
  assert.equal(alive(Number(javaPid)), false, "DynamoDB Local still running");
  const group = spawnSync("ps", ["-o", "pid=", "-g", String(child.pid)], { encoding: "utf8" }).stdout.trim();
  assert.equal(group, "", `processes left in the group: ${group}`);
  await assert.rejects(fetch(`${url}/healthz`));
});
