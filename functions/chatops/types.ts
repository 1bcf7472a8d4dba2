/**
 * The chat functions' dependency shapes, apart from their handler files (deps.ts builds them, the handlers take
 * them: no handler ↔ deps import cycle). Every one has the same names as the other functions': `clock` (the one
 * time source), `logger` (the use cases' port), `telemetry` (Powertools' Logger and Metrics for the shell).
 */
import type { AccessMap } from "../../shared/chatops/access.ts";
import type { ChatDeps } from "../../shared/chatops/answer.ts";
import type { ChatJob } from "../../shared/chatops/job.ts";
import type { ReplayLedger } from "../../shared/chatops/replay-ledger.ts";
import type { AllowedHost } from "../../shared/notify/response-url.ts";
import type { Clock, Logger } from "../../shared/ports.ts";
import type { Telemetry } from "../_shared/shell.ts";

/** Where jobs go (SQS in AWS and under `npm start`). */
export interface ChatJobQueue {
  send(job: ChatJob): Promise<void>;
}

/** The Slack webhook's: no store, no Kubernetes client (it must ack within 3 s), the queue instead. */
export interface SlackIngressDeps {
  access: AccessMap;
  allowHosts: readonly AllowedHost[];
  signingSecret: () => Promise<string>;
  queue: ChatJobQueue;
  /** Registry cluster names (a channel allowed exactly one needs no --cluster). */
  clusterNames: () => string[];
  /** Powertools' Logger and Metrics, for the shell's middlewares. */
  telemetry: Telemetry;
  /** This webhook's own lines (default: the port over the telemetry's logger). */
  logger?: Logger;
  /** Told how long each acknowledgement took (EMF AckLatency in AWS, alarmed at the stage's chatopsAckP99Ms). */
  onAck?: (latencyMs: number) => void;
  /** Default: the system clock. */
  clock?: Clock;
  prefix?: string;
  apiBaseUrl?: string;
  /** The status history exists: `fleet` and `timeline` are offered. */
  snapshots?: boolean;
  /** Replays refused across instances (default: this instance only). */
  replays?: ReplayLedger;
}

/** The Teams webhook's: it answers inline, so it has the chat use case's readers. */
export interface TeamsDeps extends ChatDeps {
  /** Powertools' Logger and Metrics, for the shell's middlewares. */
  telemetry: Telemetry;
  access: AccessMap;
  securityToken: () => Promise<string>;
  /** How long the command may run before answering what is known (default 4000 ms: Teams waits 5 s). */
  budgetMs?: number;
  apiBaseUrl?: string;
  /** Replays refused across instances (default: this instance only). */
  replays?: ReplayLedger;
}

/** The chat worker's (SQS): the chat use case's readers, and where answers may be posted. */
export interface ChatWorkerDeps extends ChatDeps {
  /** Powertools' Logger and Metrics, for the shell's middlewares. */
  telemetry: Telemetry;
  access: AccessMap;
  allowHosts: readonly AllowedHost[];
  prefix?: string;
  apiBaseUrl?: string;
  /** Kept back from the Lambda's remaining time for rendering and posting (default CHAT_POST_MARGIN_MS). */
  deadlineMarginMs?: number;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
}
