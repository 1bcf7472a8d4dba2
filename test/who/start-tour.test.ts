/**
 * `npm start`'s "who changed it" tour, pasted as printed (its temp paths swapped for the test's own): helm upgrade
 * as alice, kubectl patch as bob; within the printed delay `history web -o json` names alice on the new revision and
 * the status's DRIFT names bob. Then Ctrl-C.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { helmPath, kubectlPath } from "../support/kube-tools.ts";
import { hasJava, localStartsForFile, ROOT } from "../support/local-start.ts";

const starts = localStartsForFile("helm-status-who-tour-");
const work = starts.dir;

test("npm start's who tour: history names who ran helm upgrade, DRIFT names who ran kubectl patch", {
  skip: !hasJava && "no java for DynamoDB Local",
  timeout: 180_000,
}, async (t) => {
  const [helm, kubectl] = [await helmPath(), await kubectlPath()];
  if (!helm || !kubectl) return t.skip("no helm/kubectl");
  const start = starts.spawn("npm", ["start", "--silent"], {
    dataDir: join(work, "data"),
    env: { PORT: "0", AUDIT_INTERVAL: "5", SIM_AUDIT_LAG: "2" },
  });
  const child = start.child;
  const { waitFor, output } = start;
  const [, url] = await waitFor(/API ready on (http:\/\/127\.0\.0\.1:\d+)/, 90_000);
  const [, within] = await waitFor(/# within about (\d+)s/, 30_000);

  // The sync tour's lines (registry, keys, the CLI's kubeconfig, helm create), then the who tour's, as printed.
  const printed = (pattern: RegExp) => {
    const [line] = output().match(pattern) ?? [];
    assert.ok(line, `${pattern} in\n${output()}`);
    return line.trim().replace(/ {3}# .*$/, "");
  };
  const script = [
    printed(/^ {2}export CLUSTERS=.*$/m),
    printed(/^ {2}npm run --silent cli -- kubeconfig --cluster demo-eu .*$/m),
    printed(/^ {2}helm create \/tmp\/web .*$/m),
    printed(/^ {2}printf 'apiVersion: v1.*$/m),
    printed(/^ {2}AWS_ACCESS_KEY_ID=\S+ AWS_SECRET_ACCESS_KEY=\S+ AWS_SESSION_TOKEN=.* helm upgrade web .*$/m),
    printed(
      /^ {2}AWS_ACCESS_KEY_ID=\S+ AWS_SECRET_ACCESS_KEY=\S+ KUBECONFIG=\S+ kubectl .* patch configmap web-config .*$/m,
    ),
  ]
    .join(" && \\\n")
    .replaceAll("/tmp/demo-eu.kubeconfig", join(work, "demo-eu.kubeconfig"))
    .replaceAll("/tmp/web", join(work, "web"));
  const env = {
    ...process.env,
    HOME: work,
    HELM_STATUS_DATA_DIR: join(work, "data"),
    PATH: `${dirname(helm)}:${dirname(kubectl)}:${join(ROOT, "node_modules/.bin")}:${process.env.PATH}`,
  };
  const pasted = spawnSync("sh", ["-ec", script], { cwd: ROOT, env, encoding: "utf8", timeout: 90_000 });
  assert.equal(pasted.status, 0, `${pasted.stdout}\n${pasted.stderr}`);
  assert.match(pasted.stdout, /configmap\/web-config patched/);

  // Within the printed delay (polled, bounded): the CLI's history and the API's status, as printed.
  const history = printed(/^ {2}npm run --silent cli -- history web -n shop --cluster demo-eu -o json.*$/m);
  const deadline = Date.now() + (Number(within) + 30) * 1000;
  let revisions: { revision: number; who?: { state: string; name?: string } }[] = [];
  let drift = "";
  for (let attempt = 0; attempt < 60 && Date.now() < deadline; attempt++) {
    const listed = spawnSync("sh", ["-ec", `${printed(/^ {2}export CLUSTERS=.*$/m)} && ${history}`], {
      cwd: ROOT,
      env,
      encoding: "utf8",
      timeout: 30_000,
    });
    revisions = JSON.parse(listed.stdout || "[]");
    const status = await fetch(`${url}/clusters/demo-eu/namespaces/shop/releases/web/status?output=table`);
    drift = (await status.text()).split("==> DRIFT")[1] ?? "";
    if (revisions.at(-1)?.who?.state === "found" && /by bob/.test(drift)) break;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
  const latest = revisions.at(-1);
  assert.equal(latest?.who?.name, "alice@example.com", JSON.stringify(revisions));
  assert.match(drift, /data\.LOG_LEVEL\s+warn -> debug\s+kubectl-patch by bob/);
  assert.doesNotMatch(drift, /arn:aws/);

  process.kill(-child.pid!, "SIGINT");
  await new Promise((resolve) => child.once("exit", resolve));
});
