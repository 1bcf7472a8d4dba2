/** The sync's settings: the worker's SYNC_* variables and the CLI's --lease, each checked with a message naming it. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { LambdaConfigError } from "../../functions/_shared/config.ts";
import { auditRuntimeFromEnv } from "../../functions/audit/deps.ts";
import { syncConfigFromEnv, syncRuntimeFromEnv } from "../../functions/sync/deps.ts";
import { runCli } from "../support/cli.ts";

const base = { AWS_REGION: "eu-west-1", CLUSTERS: "[]" };

test("SYNC_LEASE_SECONDS sets the worker's lease (default 60 s); a bad value names the variable", () => {
  assert.equal(syncConfigFromEnv(base).settings.leaseMs, 60_000);
  assert.equal(syncConfigFromEnv({ ...base, SYNC_LEASE_SECONDS: "15" }).settings.leaseMs, 15_000);
  for (const value of ["0", "soon", "901"]) {
    assert.throws(
      () => syncConfigFromEnv({ ...base, SYNC_LEASE_SECONDS: value }),
      (error: unknown) => error instanceof LambdaConfigError && /SYNC_LEASE_SECONDS/.test(error.message),
      value,
    );
  }
});

test("cli sync --lease takes whole seconds, at least 1", async () => {
  for (const value of ["0", "1.5", "x"]) {
    const run = await runCli(["sync", "--cluster", "c", "--lease", value], { PATH: process.env.PATH });
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, new RegExp(`invalid --lease "${value.replace(".", "\\.")}": must be an integer >= 1`));
  }
});

test("WHO_LOOKUP turns attribution on (default) or off; WHO_RETRY_MINUTES is its retry window (default 30)", () => {
  assert.deepEqual(
    [syncConfigFromEnv(base).settings.whoLookup, syncConfigFromEnv(base).settings.whoRetryWindowMs],
    [true, 30 * 60_000],
  );
  const off = syncConfigFromEnv({ ...base, WHO_LOOKUP: "off", WHO_RETRY_MINUTES: "90" }).settings;
  assert.deepEqual([off.whoLookup, off.whoRetryWindowMs], [false, 90 * 60_000]);
  for (const bad of [{ WHO_LOOKUP: "yes" }, { WHO_RETRY_MINUTES: "0" }, { WHO_RETRY_MINUTES: "2h" }]) {
    assert.throws(
      () => syncConfigFromEnv({ ...base, ...bad }),
      (error: unknown) => error instanceof LambdaConfigError && new RegExp(Object.keys(bad)[0]).test(error.message),
    );
  }
});

test("WHO_LOOKUP=off: the sync runtime has no lookup (nothing enqueued nor looked up), the audit runtime no queue", async () => {
  const env = { ...base, STORE_DRIVER: "memory", POWERTOOLS_METRICS_DISABLED: "true" };
  const on = syncRuntimeFromEnv(env);
  const off = syncRuntimeFromEnv({ ...env, WHO_LOOKUP: "off" });
  const auditOn = auditRuntimeFromEnv(env);
  const auditOff = auditRuntimeFromEnv({ ...env, WHO_LOOKUP: "off" });
  try {
    assert.ok(on.auditLog, "on by default");
    assert.equal(off.auditLog, undefined);
    assert.ok(auditOn.attributions);
    assert.equal(auditOff.attributions, undefined);
  } finally {
    await Promise.all([on, off, auditOn, auditOff].map((runtime) => runtime.close()));
  }
});
