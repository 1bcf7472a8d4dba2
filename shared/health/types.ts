/**
 * The health vocabulary. Verdicts follow kstatus (kubernetes-sigs/cli-utils
 * `pkg/kstatus`), the ruleset Helm v4's `--wait` uses, so "Current" here means
 * what `helm upgrade --wait` would accept. Every output names the ruleset so a
 * history of verdicts stays comparable if the rules ever change.
 */
export const HEALTH_STATUSES = ["Current", "InProgress", "Failed", "Terminating", "NotFound", "Unknown"] as const;
export type HealthStatus = (typeof HEALTH_STATUSES)[number];

export interface HealthAssessment {
  status: HealthStatus;
  /** Short and human, e.g. "1/3 replicas ready". Never contains Secret data (only status fields are read). */
  message: string;
}

export const HEALTH_RULESET = "kstatus";

/** Options for `assessHealth`; `now` is injectable because one kstatus rule (Pod scheduling window) reads the clock. */
export interface AssessOptions {
  now?: Date;
}

export function isHealthStatus(value: unknown): value is HealthStatus {
  return typeof value === "string" && (HEALTH_STATUSES as readonly string[]).includes(value);
}

export const current = (message: string): HealthAssessment => ({ status: "Current", message });
export const inProgress = (message: string): HealthAssessment => ({ status: "InProgress", message });
export const failed = (message: string): HealthAssessment => ({ status: "Failed", message });
export const unknown = (message: string): HealthAssessment => ({ status: "Unknown", message });
