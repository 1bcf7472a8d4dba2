/**
 * Every entry point serverless.yml names goes through the one Lambda shell (functions/_shared/shell.ts):
 * its `handler` export is a `lambdaEntry`, whose built handler must be the shell's (Powertools' telemetry
 * outermost, and for HTTP functions the shared router and error mapping), and its configuration is read
 * through the shared readers, every problem named at once.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { parse } from "yaml";
import { isShellEntry, lambdaEntry } from "../../functions/_shared/shell.ts";
import { lambdaContext } from "../api/support.ts";

const yaml = readFileSync(new URL("../../serverless.yml", import.meta.url), "utf8");
const config = parse(yaml, {
  customTags: [
    { tag: "!Ref", resolve: (value: string) => ({ Ref: value }) },
    { tag: "!GetAtt", resolve: (value: string) => ({ "Fn::GetAtt": value.split(".") }) },
  ],
}) as { functions: Record<string, { handler: string }> };

const entries = Object.entries(config.functions).map(([name, { handler }]) => {
  const dot = handler.lastIndexOf(".");
  return { name, file: `${handler.slice(0, dot)}.ts`, exported: handler.slice(dot + 1) };
});

test("serverless.yml names the eight functions, each by a file under functions/", () => {
  assert.deepEqual(
    entries.map((e) => e.name),
    [
      "api",
      "auditPlanner",
      "auditWorker",
      "syncScheduler",
      "syncWorker",
      "chatopsWebhook",
      "chatopsWorker",
      "chatopsTeamsWebhook",
    ],
  );
  for (const { file } of entries) assert.match(file, /^functions\/[a-z]+\/[a-z-]+\.ts$/);
});

for (const { name, file, exported } of entries) {
  test(`${name}: ${file} exports its handler through the shell, and reads its configuration once, all problems at once`, async () => {
    const module = (await import(`../../${file}`)) as Record<string, unknown>;
    assert.ok(isShellEntry(module[exported]), `${file} ${exported} is made by lambdaEntry`);
    const handler = module[exported] as (event: unknown, context: unknown) => Promise<unknown>;
    const saved = { ...process.env };
    try {
      // Two broken common sections: both are named in one error.
      Object.assign(process.env, {
        CLUSTERS: "not a registry",
        RELEASES_TABLE: "no spaces allowed",
        AWS_REGION: "eu-west-1",
      });
      await assert.rejects(handler({}, lambdaContext()), (error: Error) => {
        assert.match(error.message, /^invalid .* configuration: /);
        assert.match(error.message, /CLUSTERS/);
        return true;
      });
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
  });
}

test("an entry point refuses a handler the shell did not build", async () => {
  const bare = lambdaEntry((() => async () => "ok") as never);
  await assert.rejects(bare({}, lambdaContext()), /must build its handler with the shell/);
  assert.equal(
    isShellEntry(async () => "ok"),
    false,
  );
});
