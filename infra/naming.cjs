/**
 * Names shared by the infra/ generators, so a role, an alarm and a dashboard
 * widget agree on what a function and its log group are called.
 */

/** `audit-worker` / `auditWorker` / `prod_eu` -> `AuditWorker` / `ProdEu` (CloudFormation logical ids are alphanumeric). */
function pascal(name) {
  return String(name)
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join("");
}

/** osls' default function name, unless the function sets its own `name`. */
function functionName(service, stage, key, definition) {
  return definition?.name ?? `${service}-${stage}-${key}`;
}

/** osls' logical id of a function's AWS::Lambda::Function (naming.getLambdaLogicalId). */
function lambdaLogicalId(key) {
  return `${pascal(key.replace(/-/g, "Dash").replace(/_/g, "Underscore"))}LambdaFunction`;
}

/** The logical id of the role infra/roles.cjs builds for a function; serverless.yml refers to it with `role:`. */
function roleLogicalId(key) {
  return `${pascal(key)}Role`;
}

/** Fn::Sub of an ARN in the stack's own partition, region and account. */
function stackArn(service, resource) {
  return { "Fn::Sub": `arn:\${AWS::Partition}:${service}:\${AWS::Region}:\${AWS::AccountId}:${resource}` };
}

module.exports = { pascal, functionName, lambdaLogicalId, roleLogicalId, stackArn };
