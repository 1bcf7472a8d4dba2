/** The dashboard's words for who made a write (dashboard/src/who.ts), without a browser. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { statusFields } from "../../dashboard/src/status-view.ts";
import { whoText, whoTitle } from "../../dashboard/src/who.ts";
import { statusDocument } from "../../shared/render/status/json.ts";
import { demoReportWithMissingService } from "../status/captures.ts";

test("a found identity is its name and role; an unknown one says why; controls are shown, not kept", () => {
  const found = {
    state: "found" as const,
    name: "alice@example.com",
    type: "assumed-role" as const,
    role: "Admin",
    verb: "patch",
    at: "2026-12-02T15:30:00Z",
    userAgent: "kubectl/v1.35.0",
    sourceIp: "203.0.113.7",
  };
  assert.equal(whoText(found), "alice@example.com (Admin)");
  assert.equal(whoTitle(found), "patch at 2026-12-02T15:30:00Z · client says kubectl/v1.35.0 · from 203.0.113.7");
  assert.equal(whoText({ state: "pending", note: "pending" }), "pending");
  assert.equal(whoTitle({ state: "pending", note: "pending" }), undefined);
  assert.equal(whoText(undefined), "");
  assert.equal(whoText({ ...found, name: "<b>x</b>\u001b[31m\nbob\u0007", role: undefined }), "<b>x</b>^[[31m bob?");
});

test("the status fields say once that the cluster's audit logs are off", () => {
  const report = demoReportWithMissingService();
  report.auditLogging = "audit logs are off for demo-us: aws eks update-cluster-config ...";
  const fields = new Map(statusFields(JSON.parse(JSON.stringify(statusDocument(report)))));
  assert.equal(fields.get("WHO"), report.auditLogging);
});
