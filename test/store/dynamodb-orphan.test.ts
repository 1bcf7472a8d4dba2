import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { CreateTableCommand, DynamoDBClient, ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { isEngineOn } from "../../local/dynamodb-data-lock.ts";
import { startDynamoDbLocal } from "../../local/dynamodb-local.ts";

/** Issue 14 item 5: kill -9 of the CLI used to leave a DynamoDB Local JVM (ppid 1) and let a second one start. */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(what: string, check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const client = (endpoint: string) =>
  new DynamoDBClient({ endpoint, region: "local", credentials: { accessKeyId: "local", secretAccessKey: "local" } });

test("kill -9 of the engine's parent: the JVM dies with it (parent-pipe watchdog), the lock names the JVM", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ddb-orphan-"));
  const script = `
    import { startDynamoDbLocal } from ${JSON.stringify(join(ROOT, "local/dynamodb-local.ts"))};
    const engine = await startDynamoDbLocal({ dataDir: ${JSON.stringify(dir)}, owner: "cli" });
    process.stdout.write(JSON.stringify({ pid: engine.pid }) + "\\n");
    setInterval(() => {}, 1000);
  `;
  const parent = spawn(process.execPath, ["--input-type=module", "-e", script], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      let text = "";
      parent.stdout.on("data", (chunk) => {
        text += chunk;
        if (text.includes("\n")) resolve(text.split("\n")[0]);
      });
      parent.once("exit", (code) => reject(new Error(`the parent exited with ${code} before the engine started`)));
    });
    const { pid: enginePid } = JSON.parse(line) as { pid: number };
    const lock = JSON.parse(readFileSync(join(dir, ".engine.json"), "utf8"));
    assert.deepEqual([lock.pid, lock.owner, lock.enginePid], [parent.pid, "cli", enginePid]);
    assert.ok(isEngineOn(enginePid, dir), "the recorded pid is the DynamoDB Local JVM on this folder");
    parent.kill("SIGKILL");
    await waitFor("the JVM exits after its parent was killed", () => !isAlive(enginePid));
  } finally {
    parent.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
});

test("an orphaned engine left by a dead holder is stopped before a new one starts on the folder; data kept", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ddb-orphan-"));
  const first = await startDynamoDbLocal({ dataDir: dir, owner: "cli" });
  let second: Awaited<ReturnType<typeof startDynamoDbLocal>> | undefined;
  try {
    const c1 = client(first.endpoint);
    await c1.send(
      new CreateTableCommand({
        TableName: "kept",
        AttributeDefinitions: [{ AttributeName: "PK", AttributeType: "S" }],
        KeySchema: [{ AttributeName: "PK", KeyType: "HASH" }],
        BillingMode: "PAY_PER_REQUEST",
      }),
    );
    c1.destroy();
    // Its holder "died" (kill -9 leaves exactly this: a record naming a dead pid and a live JVM).
    const lockFile = join(dir, ".engine.json");
    const record = JSON.parse(readFileSync(lockFile, "utf8"));
    writeFileSync(lockFile, JSON.stringify({ ...record, pid: 2 ** 22 + 4321 }));
    second = await startDynamoDbLocal({ dataDir: dir, owner: "cli", lockWaitMs: 1_000 });
    assert.equal(isAlive(first.pid), false, "the orphan was stopped");
    assert.notEqual(second.pid, first.pid);
    const c2 = client(second.endpoint);
    assert.deepEqual((await c2.send(new ListTablesCommand({}))).TableNames, ["kept"]);
    c2.destroy();
  } finally {
    await second?.stop();
    await first.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
