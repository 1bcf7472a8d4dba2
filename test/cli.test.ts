import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";

const cli = (...args: string[]) =>
  spawnSync(process.execPath, ["bin/cli.ts", ...args], { encoding: "utf8", env: { ...process.env } });

test("an unknown command is a one-line error and exit code 2", () => {
  const result = cli("frobnicate");
  assert.equal(result.status, 2);
  assert.match(result.stderr, /^Error: unknown command "frobnicate"/);
  assert.doesNotMatch(result.stderr, /at .*\.ts:\d+/);
});

test("--help lists the commands", () => {
  const result = cli("--help");
  assert.equal(result.status, 0);
  assert.match(result.stdout, /status RELEASE -n NS/);
});
