/**
 * What the Lambda SQS event source mapping hands a function, built from a
 * ReceiveMessage answer: the same record shape (attributes, message attributes,
 * ARN, region), so a handler run by the local poller is the handler Lambda runs.
 */
import type { Message } from "@aws-sdk/client-sqs";
import type { SQSEvent, SQSMessageAttributes, SQSRecord } from "aws-lambda";
import { type Clock, systemClock } from "../../shared/ports.ts";

export function sqsEventFrom(
  messages: Message[],
  queueArn: string,
  region: string,
  clock: Clock = systemClock,
): SQSEvent {
  return { Records: messages.map((message) => sqsRecordFrom(message, queueArn, region, clock)) };
}

export function sqsRecordFrom(
  message: Message,
  queueArn: string,
  region: string,
  clock: Clock = systemClock,
): SQSRecord {
  const now = String(clock.now().getTime());
  const attributes = message.Attributes ?? {};
  const messageAttributes: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    messageAttributes[name] = {
      dataType: value.DataType ?? "String",
      stringValue: value.StringValue,
      binaryValue: value.BinaryValue ? Buffer.from(value.BinaryValue).toString("base64") : undefined,
      stringListValues: value.StringListValues ?? [],
      binaryListValues: (value.BinaryListValues ?? []).map((b) => Buffer.from(b).toString("base64")),
    };
  }
  const record: SQSRecord = {
    messageId: message.MessageId ?? "",
    receiptHandle: message.ReceiptHandle ?? "",
    body: message.Body ?? "",
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? "1",
      SentTimestamp: attributes.SentTimestamp ?? now,
      SenderId: attributes.SenderId ?? "local",
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? now,
      ...(attributes.MessageGroupId ? { MessageGroupId: attributes.MessageGroupId } : {}),
      ...(attributes.MessageDeduplicationId ? { MessageDeduplicationId: attributes.MessageDeduplicationId } : {}),
      ...(attributes.SequenceNumber ? { SequenceNumber: attributes.SequenceNumber } : {}),
    },
    messageAttributes,
    md5OfBody: message.MD5OfBody ?? "",
    eventSource: "aws:sqs",
    eventSourceARN: queueArn,
    awsRegion: region,
  };
  if (message.MD5OfMessageAttributes)
    (record as { md5OfMessageAttributes?: string }).md5OfMessageAttributes = message.MD5OfMessageAttributes;
  return record;
}
