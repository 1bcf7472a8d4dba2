/** Resource health verdicts under the kstatus ruleset; see docs/health.md. */
export { aggregateKstatus, type HealthSummary, overallHealth, summarizeHealth } from "./aggregate.ts";
export { assessHealth } from "./assess.ts";
export { assessHealthWithPods, isPodController } from "./pod-controllers.ts";
export {
  type AssessOptions,
  HEALTH_RULESET,
  HEALTH_STATUSES,
  type HealthAssessment,
  type HealthStatus,
  isHealthStatus,
} from "./types.ts";
