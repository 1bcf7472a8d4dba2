/**
 * Jobs and CronJobs (kstatus `jobConditions`, `alwaysReady`). kstatus calls a
 * started Job Current even while it still runs: "Current" means "the
 * controller has acted", not "finished". Helm v4's own hook reader is stricter
 * (running -> InProgress); see docs/health.md.
 */
import { conditionsOf, describeCondition, fieldAt, intField, type KubeObject, stringField } from "./fields.ts";
import { current, failed, type HealthAssessment, inProgress } from "./types.ts";

export function assessJob(object: KubeObject): HealthAssessment {
  const parallelism = intField(object, "spec.parallelism", 1);
  const completions = intField(object, "spec.completions", parallelism);
  const succeeded = intField(object, "status.succeeded", 0);
  const active = intField(object, "status.active", 0);
  const failures = intField(object, "status.failed", 0);

  // First True terminal condition in list order wins, as in kstatus.
  for (const condition of conditionsOf(object)) {
    if (condition.status !== "True") continue;
    if (condition.type === "Complete") return current(`completed: ${succeeded}/${completions} succeeded`);
    if (condition.type === "Failed") {
      return failed(`failed (${failures} failed pods): ${describeCondition(condition, "Job failed")}`);
    }
    if (condition.type === "Suspended") return current("suspended");
  }
  if (stringField(object, "status.startTime", "") === "") return inProgress("not started yet");
  return current(`running: ${active} active, ${succeeded}/${completions} succeeded, ${failures} failed`);
}

export function assessCronJob(object: KubeObject): HealthAssessment {
  const schedule = stringField(object, "spec.schedule", "");
  const suspended = fieldAt(object, "spec.suspend") === true;
  const lastSchedule = stringField(object, "status.lastScheduleTime", "");
  const parts = [suspended ? "suspended" : `schedule "${schedule}"`];
  if (lastSchedule) parts.push(`last run ${lastSchedule}`);
  return current(parts.join(", "));
}
