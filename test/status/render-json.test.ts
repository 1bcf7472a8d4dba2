import assert from "node:assert/strict";
import { test } from "node:test";
import { parse } from "yaml";
import { renderStatusJson, renderStatusYaml, type StatusDocument } from "../../shared/render/status/json.ts";
import { renderStatusText } from "../../shared/render/status/text.ts";
import { alignLines } from "../../shared/render/tables/kubectl-printer.ts";
import {
  capture,
  capturedGroups,
  demoLiveObjects,
  demoRelease,
  demoReportWithMissingService,
  reportFromCapture,
} from "./captures.ts";

function demoReport() {
  const text = capture("helm-status-output-demo.txt");
  const pods = capturedGroups(text).find((group) => group.key === "v1/Pod(related)")!;
  const report = reportFromCapture(text, { release: demoRelease(), live: demoLiveObjects(), relatedRows: [pods.rows] });
  const helm = JSON.parse(capture("helm-status-output-demo.json"));
  report.relatedPods[0].objects = helm.info.resources["v1/Pod(related)"][0].items;
  report.relatedPods[0].listMetadata = helm.info.resources["v1/Pod(related)"][0].metadata;
  return { report, helm };
}

test("-o json: one compact line in Helm's field order, chart and config stripped, plus the product's fields", () => {
  const { report } = demoReport();
  const out = renderStatusJson(report);
  assert.ok(out.endsWith("}\n"));
  assert.equal(out.split("\n").length, 2);
  const doc = JSON.parse(out);
  assert.deepEqual(Object.keys(doc), [
    "name",
    "info",
    "manifest",
    "hooks",
    "version",
    "namespace",
    "apply_method",
    "cluster",
    "observedAt",
    "health",
    "missing",
    "complete",
    "counters",
    "groups",
  ]);
  assert.deepEqual(Object.keys(doc.info), [
    "first_deployed",
    "last_deployed",
    "description",
    "status",
    "notes",
    "resources",
  ]);
  assert.equal(doc.chart, undefined);
  assert.equal(doc.config, undefined);
  assert.doesNotMatch(out, /config-value-never-shown/);
  assert.equal(doc.health.ruleset, "kstatus");
  assert.deepEqual(doc.missing, []);
  assert.equal(doc.complete, true);
});

test("-o json: info and resources equal helm's own JSON for the demo (sorted group keys and object keys)", () => {
  const { report, helm } = demoReport();
  const doc = JSON.parse(renderStatusJson(report));
  for (const field of ["name", "manifest", "hooks", "version", "namespace", "apply_method"]) {
    assert.deepEqual(doc[field], helm[field], field);
  }
  // helm's capture was re-indented, but its key order is helm's own: compare serialisations, not just values.
  assert.equal(JSON.stringify(doc.info.resources), JSON.stringify(helm.info.resources));
  const { resources: _ours, ...ourInfo } = doc.info;
  const { resources: _theirs, ...helmInfo } = helm.info;
  assert.deepEqual(ourInfo, helmInfo);
});

test("-o yaml: the same document with every key sorted, sequences unindented like sigs.k8s.io/yaml", () => {
  const { report } = demoReport();
  const out = renderStatusYaml(report);
  assert.deepEqual(parse(out), JSON.parse(renderStatusJson(report)));
  const topKeys = out
    .split("\n")
    .filter((line) => /^[a-z_A-Z]+:/.test(line))
    .map((line) => line.split(":")[0]);
  assert.deepEqual(topKeys, [...topKeys].sort());
  assert.match(out, /^hooks:\n- delete_policies:|^hooks:\n- events:/m);
});

test("JSON and YAML carry MISSING entries and per-resource health", () => {
  const text = capture("helm-status-output-demo.txt");
  const report = reportFromCapture(text, {
    release: demoRelease(),
    live: demoLiveObjects(),
    outcomes: { "Service/demo": "not-found" },
    relatedRows: [[]],
  });
  const doc = JSON.parse(renderStatusJson(report));
  assert.deepEqual(
    doc.missing.map((entry: { kind: string; name: string; reason: string }) => [entry.kind, entry.name, entry.reason]),
    [["Service", "demo", "not found"]],
  );
  assert.equal(doc.health.overall, "Failed");
  assert.deepEqual(
    doc.health.resources.map((entry: { kind: string; status: string }) => [entry.kind, entry.status]),
    [
      ["ServiceAccount", "Current"],
      ["Service", "NotFound"],
      ["Deployment", "InProgress"],
    ],
  );
  assert.equal(doc.complete, true, "a 404 is an answer");
  assert.deepEqual(parse(renderStatusYaml(report)).missing, doc.missing);
});

test("groups: the text's ==> sections as data, in its order, each table the text's lines cell by cell", () => {
  const report = demoReportWithMissingService();
  const doc = JSON.parse(renderStatusJson(report)) as StatusDocument;
  const ours = renderStatusText(report);
  const sections = ours.split("\n==> ").slice(1);
  assert.deepEqual(
    doc.groups.map((group) => group.key),
    sections.map((section) => section.split("\n")[0]),
  );
  for (const [i, group] of doc.groups.entries()) {
    const body = group.tables.map((table) => alignLines([table.columns, ...table.rows])).join("");
    assert.ok(sections[i].startsWith(`${group.key}\n${body}`), `the text's ==> ${group.key} is the group's tables`);
  }
  assert.deepEqual(doc.groups.find((group) => group.key === "MISSING")?.tables, [
    { columns: ["KIND", "NAME", "REASON"], rows: [["v1/Service", "demo", "not found"]] },
  ]);
  const health = doc.groups.find((group) => group.key === "HEALTH")!.tables[0];
  assert.deepEqual(health.columns, ["KIND", "NAME", "STATUS", "MESSAGE"]);
  assert.deepEqual(
    health.rows.map((row) => row.slice(0, 3)),
    [
      ["v1/Service", "demo", "NotFound"],
      ["v1/Deployment", "demo", "InProgress"],
    ],
  );
});
