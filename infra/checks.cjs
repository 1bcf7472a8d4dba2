/**
 * Operational rules the CloudFormation specification cannot express, checked on
 * the final template at package time (infra/plugin.cjs) so a new queue or
 * function cannot quietly break them:
 *   - an SQS event source: the queue's visibility timeout is at least 6 x the
 *     function's timeout (Lambda's rule; shorter makes in-flight messages visible
 *     again), the mapping reports partial batch failures, and the queue has a
 *     dead-letter queue (maxReceiveCount >= 3) that keeps messages longer than it;
 *   - no two functions share an IAM role.
 */
const DEFAULT_VISIBILITY_SECONDS = 30;
const DEFAULT_RETENTION_SECONDS = 345_600;
const DEFAULT_TIMEOUT_SECONDS = 3;

function logicalIdOf(value) {
  const getAtt = value?.["Fn::GetAtt"];
  if (Array.isArray(getAtt)) return getAtt[0];
  if (typeof getAtt === "string") return getAtt.split(".")[0];
  return value?.Ref;
}

/** Problems found, one line each; empty when the template follows the rules. */
function checkOperations(template) {
  const resources = template.Resources ?? {};
  const problems = [];
  for (const [id, mapping] of Object.entries(resources)) {
    if (mapping.Type !== "AWS::Lambda::EventSourceMapping") continue;
    const queueId = logicalIdOf(mapping.Properties?.EventSourceArn);
    const queue = resources[queueId];
    if (queue?.Type !== "AWS::SQS::Queue") continue;
    const functionId = logicalIdOf(mapping.Properties?.FunctionName);
    const fn = resources[functionId];
    const timeout = Number(fn?.Properties?.Timeout ?? DEFAULT_TIMEOUT_SECONDS);
    const visibility = Number(queue.Properties?.VisibilityTimeout ?? DEFAULT_VISIBILITY_SECONDS);
    if (visibility < 6 * timeout) {
      problems.push(
        `${queueId}: VisibilityTimeout ${visibility} s is under 6 x ${functionId}'s ${timeout} s timeout (${6 * timeout} s)`,
      );
    }
    if (!(mapping.Properties?.FunctionResponseTypes ?? []).includes("ReportBatchItemFailures")) {
      problems.push(`${id}: functionResponseType ReportBatchItemFailures is not set (one bad message fails the batch)`);
    }
    const redrive = queue.Properties?.RedrivePolicy;
    const dlqId = logicalIdOf(redrive?.deadLetterTargetArn);
    if (!redrive || !resources[dlqId]) {
      problems.push(`${queueId}: no RedrivePolicy to a dead-letter queue of this stack (poison messages loop forever)`);
      continue;
    }
    if (Number(redrive.maxReceiveCount) < 3) {
      problems.push(
        `${queueId}: maxReceiveCount ${redrive.maxReceiveCount} dead-letters messages on a transient error`,
      );
    }
    const retention = (q) => Number(q.Properties?.MessageRetentionPeriod ?? DEFAULT_RETENTION_SECONDS);
    if (retention(resources[dlqId]) <= retention(queue)) {
      problems.push(`${dlqId}: keeps messages no longer than ${queueId} (expiry counts from the first enqueue)`);
    }
  }
  const owners = new Map();
  for (const [id, resource] of Object.entries(resources)) {
    if (resource.Type !== "AWS::Lambda::Function") continue;
    const role = logicalIdOf(resource.Properties?.Role) ?? JSON.stringify(resource.Properties?.Role);
    if (owners.has(role)) problems.push(`${id}: shares role ${role} with ${owners.get(role)} (one role per function)`);
    else owners.set(role, id);
  }
  return problems;
}

module.exports = { checkOperations };
