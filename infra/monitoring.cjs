/**
 * CloudWatch alarms and a dashboard, built from the packaged template itself so
 * that every function and every dead-letter queue is watched without a list to
 * keep in step:
 *   - per function: Errors >= 1, Throttles >= 1 (5 min), Duration p99 > 80% of its timeout (3 x 5 min);
 *   - per dead-letter queue (a queue some RedrivePolicy points at): messages visible > 0;
 *   - per queue with a dead-letter queue: oldest message older than 15 minutes (consumers behind);
 *   - per DynamoDB table: read and write throttle events in two consecutive periods;
 *   - the HTTP API: 5xx answers >= 5 in 5 min;
 *   - product alarms on the EMF metrics the functions publish (custom.monitoring.alarms in
 *     serverless.yml), each only when the function that publishes it exists.
 * Alarm and OK actions go to the stage's alarms.topicArn when set (infra/settings.cjs).
 * Added to the template by the osls plugin in infra/plugin.cjs.
 */
const { pascal } = require("./naming.cjs");

const PERIOD = 300;
const FIELDS = [
  "function",
  "description",
  "namespace",
  "metric",
  "dimensions",
  "statistic",
  "threshold",
  "comparison",
  "evaluationPeriods",
  "treatMissingData",
  "unit",
];
const COMPARISONS = {
  ">": "GreaterThanThreshold",
  ">=": "GreaterThanOrEqualToThreshold",
  "<": "LessThanThreshold",
  "<=": "LessThanOrEqualToThreshold",
};
const STATISTICS = ["Average", "Sum", "Minimum", "Maximum", "SampleCount"];

function alarm(
  {
    name,
    description,
    namespace,
    metric,
    dimensions,
    statistic,
    threshold,
    comparison,
    evaluationPeriods = 1,
    treatMissingData = "notBreaching",
    unit,
  },
  context,
) {
  const percentile = /^p\d{1,2}(\.\d+)?$/.test(statistic);
  return {
    Type: "AWS::CloudWatch::Alarm",
    Properties: {
      AlarmName: `${context.service}-${context.stage}-${name}`,
      AlarmDescription: description,
      Namespace: namespace,
      MetricName: metric,
      Dimensions: Object.entries(dimensions).map(([Name, Value]) => ({ Name, Value })),
      // CloudWatch takes either a plain statistic or a percentile (ExtendedStatistic), never both.
      ...(percentile ? { ExtendedStatistic: statistic } : { Statistic: statistic }),
      ...(unit ? { Unit: unit } : {}),
      Period: PERIOD,
      EvaluationPeriods: evaluationPeriods,
      DatapointsToAlarm: evaluationPeriods,
      Threshold: threshold,
      ComparisonOperator: comparison,
      TreatMissingData: treatMissingData,
      ...(context.topicArn ? { AlarmActions: [context.topicArn], OKActions: [context.topicArn] } : {}),
    },
  };
}

/** Queues that some other queue's RedrivePolicy sends its failed messages to: logical id -> source queue ids. */
function deadLetterQueues(resources) {
  const targets = new Map();
  for (const [id, resource] of Object.entries(resources)) {
    if (resource.Type !== "AWS::SQS::Queue") continue;
    const target = resource.Properties?.RedrivePolicy?.deadLetterTargetArn?.["Fn::GetAtt"]?.[0];
    if (target) targets.set(target, [...(targets.get(target) ?? []), id]);
  }
  return targets;
}

/** Validates custom.monitoring.alarms (a map of alarm key -> definition); returns the entries to build. */
function productAlarms(definitions, functionKeys, log = () => {}) {
  const problems = [];
  const entries = [];
  for (const [key, definition] of Object.entries(definitions ?? {})) {
    const where = `custom.monitoring.alarms.${key}`;
    for (const field of Object.keys(definition))
      if (!FIELDS.includes(field)) problems.push(`${where}.${field}: unknown field`);
    // AWS/Lambda metrics default to the function's own FunctionName dimension.
    const lambda = definition.namespace === "AWS/Lambda" && definition.dimensions === undefined;
    if (!definition.metric || (!lambda && (!definition.dimensions || typeof definition.dimensions !== "object"))) {
      problems.push(`${where}: needs metric and dimensions (the EMF dimension set, exactly)`);
    }
    if (!(definition.comparison in COMPARISONS))
      problems.push(`${where}.comparison: one of ${Object.keys(COMPARISONS).join(" ")}`);
    if (!STATISTICS.includes(definition.statistic) && !/^p\d{1,2}(\.\d+)?$/.test(String(definition.statistic))) {
      problems.push(`${where}.statistic: ${STATISTICS.join(", ")} or a percentile such as p99`);
    }
    if (!Number.isFinite(Number(definition.threshold))) problems.push(`${where}.threshold: a number`);
    if (!functionKeys.includes(definition.function)) {
      log(`alarm ${key} skipped: no function "${definition.function}" publishes its metric yet`);
      continue;
    }
    entries.push({ key, ...definition });
  }
  if (problems.length > 0) throw new Error(`monitoring (infra/monitoring.cjs):\n  ${problems.join("\n  ")}`);
  return entries;
}

/**
 * The alarms and the dashboard to add to `template`. `functions`: [{key, logicalId}] of the
 * template's functions; `definitions`: custom.monitoring.alarms; `settings`: the stage's alarms.
 */
function buildMonitoring({ template, functions, definitions, settings, service, stage, log }) {
  const context = { service, stage, topicArn: settings.topicArn };
  const resources = template.Resources;
  const Resources = {};
  for (const { key, logicalId } of functions) {
    const timeout = Number(resources[logicalId]?.Properties?.Timeout ?? 6);
    const name = { Ref: logicalId };
    const base = { namespace: "AWS/Lambda", dimensions: { FunctionName: name } };
    Resources[`${pascal(key)}ErrorsAlarm`] = alarm(
      {
        ...base,
        name: `${key}-errors`,
        description: `${key}: invocations failed (unhandled errors, timeouts)`,
        metric: "Errors",
        statistic: "Sum",
        threshold: 1,
        comparison: COMPARISONS[">="],
      },
      context,
    );
    Resources[`${pascal(key)}ThrottlesAlarm`] = alarm(
      {
        ...base,
        name: `${key}-throttles`,
        description: `${key}: invocations throttled (concurrency limit)`,
        metric: "Throttles",
        statistic: "Sum",
        threshold: 1,
        comparison: COMPARISONS[">="],
      },
      context,
    );
    Resources[`${pascal(key)}DurationAlarm`] = alarm(
      {
        ...base,
        name: `${key}-duration-p99`,
        description: `${key}: p99 duration above 80% of its ${timeout} s timeout`,
        metric: "Duration",
        statistic: "p99",
        threshold: Math.round(timeout * 800),
        comparison: COMPARISONS[">"],
        evaluationPeriods: 3,
      },
      context,
    );
  }
  for (const [queue, sources] of deadLetterQueues(resources)) {
    Resources[`${queue}DepthAlarm`] = alarm(
      {
        name: `${pascal(queue)}-depth`,
        description: `dead letters from ${sources.join(", ")}: a message failed every retry`,
        namespace: "AWS/SQS",
        metric: "ApproximateNumberOfMessagesVisible",
        dimensions: { QueueName: { "Fn::GetAtt": [queue, "QueueName"] } },
        statistic: "Maximum",
        threshold: 0,
        comparison: COMPARISONS[">"],
      },
      context,
    );
    for (const source of sources) {
      Resources[`${source}AgeAlarm`] = alarm(
        {
          name: `${pascal(source)}-age`,
          description: `${source}: the oldest message waits over 15 minutes (consumers behind or failing)`,
          namespace: "AWS/SQS",
          metric: "ApproximateAgeOfOldestMessage",
          dimensions: { QueueName: { "Fn::GetAtt": [source, "QueueName"] } },
          statistic: "Maximum",
          threshold: 900,
          comparison: COMPARISONS[">"],
        },
        context,
      );
    }
  }
  for (const [table, resource] of Object.entries(resources)) {
    if (resource.Type !== "AWS::DynamoDB::Table") continue;
    // On-demand tables still throttle a hot partition (one item many writers update); two periods, not a blip.
    for (const [kind, metric] of [
      ["Read", "ReadThrottleEvents"],
      ["Write", "WriteThrottleEvents"],
    ]) {
      Resources[`${table}${kind}ThrottleAlarm`] = alarm(
        {
          name: `${pascal(table)}-${kind.toLowerCase()}-throttles`,
          description: `${table}: ${kind.toLowerCase()} requests throttled in two consecutive 5-minute periods`,
          namespace: "AWS/DynamoDB",
          metric,
          dimensions: { TableName: { Ref: table } },
          statistic: "Sum",
          threshold: 0,
          comparison: COMPARISONS[">"],
          evaluationPeriods: 2,
        },
        context,
      );
    }
  }
  if (resources.HttpApi) {
    Resources.HttpApi5xxAlarm = alarm(
      {
        name: "http-api-5xx",
        description: "HTTP API: 5 or more 5xx answers in 5 minutes",
        namespace: "AWS/ApiGateway",
        metric: "5xx",
        dimensions: { ApiId: { Ref: "HttpApi" } },
        statistic: "Sum",
        threshold: 5,
        comparison: COMPARISONS[">="],
      },
      context,
    );
  }
  const product = productAlarms(
    definitions,
    functions.map((f) => f.key),
    log,
  );
  for (const entry of product) {
    if (entry.dimensions === undefined) {
      const { logicalId } = functions.find((f) => f.key === entry.function);
      entry.dimensions = { FunctionName: { Ref: logicalId } };
    }
    Resources[`${pascal(entry.key)}Alarm`] = alarm(
      {
        ...entry,
        name: entry.key,
        namespace: entry.namespace ?? "HelmStatus",
        threshold: Number(entry.threshold),
        comparison: COMPARISONS[entry.comparison],
      },
      context,
    );
  }
  Resources.OperationsDashboard = dashboard({ functions, resources, product, Resources, service, stage });
  return { Resources };
}

/** A metric widget; `metrics` rows are [namespace, metric, dim, value, ..., {options}]. */
function widget(title, metrics, position, options = {}) {
  return {
    type: "metric",
    ...position,
    width: 12,
    height: 6,
    properties: {
      title,
      metrics,
      region: "${AWS::Region}",
      period: PERIOD,
      view: "timeSeries",
      stat: "Sum",
      ...options,
    },
  };
}

function dashboard({ functions, resources, product, Resources, service, stage }) {
  const widgets = [];
  const place = () => ({ x: (widgets.length % 2) * 12, y: Math.floor(widgets.length / 2) * 6 });
  const fnRows = (metric, stat) =>
    functions.map(({ key, logicalId }) => [
      "AWS/Lambda",
      metric,
      "FunctionName",
      `\${${logicalId}}`,
      { stat, label: key },
    ]);
  widgets.push(widget("Invocations", fnRows("Invocations", "Sum"), place()));
  widgets.push(
    widget(
      "Errors and throttles",
      [
        ...fnRows("Errors", "Sum"),
        ...fnRows("Throttles", "Sum").map((row) => [
          ...row.slice(0, 4),
          { ...row[4], label: `${row[4].label} throttles` },
        ]),
      ],
      place(),
    ),
  );
  widgets.push(widget("Duration p99 (ms)", fnRows("Duration", "p99"), place()));
  for (const entry of product) {
    const dims = Object.entries(entry.dimensions).flatMap(([name, value]) => [
      name,
      value?.Ref ? `\${${value.Ref}}` : value,
    ]);
    widgets.push(
      widget(
        entry.description ?? entry.key,
        [[entry.namespace ?? "HelmStatus", entry.metric, ...dims, { stat: entry.statistic }]],
        place(),
        { stat: entry.statistic },
      ),
    );
  }
  const queues = Object.entries(resources)
    .filter(([, r]) => r.Type === "AWS::SQS::Queue")
    .map(([id]) => id);
  if (queues.length > 0) {
    widgets.push(
      widget(
        "Queue depth",
        queues.map((id) => [
          "AWS/SQS",
          "ApproximateNumberOfMessagesVisible",
          "QueueName",
          `\${${id}.QueueName}`,
          { stat: "Maximum", label: id },
        ]),
        place(),
        { stat: "Maximum" },
      ),
    );
  }
  const alarms = Object.keys(Resources).filter((id) => Resources[id].Type === "AWS::CloudWatch::Alarm");
  widgets.push({
    type: "alarm",
    x: 0,
    y: Math.ceil(widgets.length / 2) * 6,
    width: 24,
    height: 4,
    properties: { title: "Alarms", alarms: alarms.map((id) => `\${${id}.Arn}`) },
  });
  return {
    Type: "AWS::CloudWatch::Dashboard",
    Properties: {
      DashboardName: `${service}-${stage}`,
      // DashboardBody is a JSON string; Fn::Sub fills in function names (Ref), queue names and alarm ARNs.
      DashboardBody: { "Fn::Sub": JSON.stringify({ start: "-PT6H", periodOverride: "inherit", widgets }) },
    },
  };
}

module.exports = { buildMonitoring, productAlarms, deadLetterQueues };
