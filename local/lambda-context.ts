/** The Lambda context a local run hands a handler (the SQS poller, the API server, the bench). */
import type { Context } from "aws-lambda";
import { type Clock, systemClock } from "../shared/ports.ts";

/** A Lambda context for local invocations: the function's timeout counts down from the call. */
export function localLambdaContext(functionName: string, timeoutMs: number, clock: Clock = systemClock): Context {
  const now = () => clock.now().getTime();
  const deadline = now() + timeoutMs;
  const requestId = crypto.randomUUID();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: "$LATEST",
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: "1024",
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/${requestId}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}
