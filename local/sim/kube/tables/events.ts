import { column, field, NAME_DESCRIPTION, printer, since } from "./common.ts";

/**
 * kube-apiserver `printEvent` (pkg/printers/internalversion): LAST SEEN from the series or lastTimestamp,
 * FIRST SEEN from firstTimestamp or eventTime, COUNT from the series, the count, or 1 for a singleton.
 * The same printer serves core/v1 and events.k8s.io/v1 (both print the internal Event).
 */
export const eventPrinter = printer(
  [
    column("Last Seen", "string", 0, "The time at which the most recent occurrence of this event was recorded."),
    column("Type", "string", 0, "Type of this event (Normal, Warning), new types could be added in the future."),
    column(
      "Reason",
      "string",
      0,
      "This should be a short, machine understandable string that gives the reason for this event being generated.",
    ),
    column("Object", "string", 0, "The object that this event is about."),
    column("Subobject", "string", 1, "The field of the object this event is about."),
    column("Source", "string", 1, "The component reporting this event."),
    column("Message", "string", 0, "A human-readable description of the status of this operation."),
    column("First Seen", "string", 1, "The time at which the event was first recorded."),
    column("Count", "string", 1, "The number of times this event has occurred."),
    column("Name", "string", 1, NAME_DESCRIPTION, "name"),
  ],
  (event, context) => {
    let first = since(event.firstTimestamp, context.now);
    if (first === "<unknown>") first = since(event.eventTime, context.now);
    let last = event.lastTimestamp ? since(event.lastTimestamp, context.now) : first;
    let count = typeof event.count === "number" ? event.count : 0;
    const series = field(event, "series");
    if (series) {
      last = since(series.lastObservedTime, context.now);
      count = Number(series.count ?? 0);
    } else if (count === 0) {
      count = 1;
    }
    const involved = field(event, "involvedObject") ?? {};
    const kind = String(involved.kind ?? "").toLowerCase();
    const target = involved.name ? `${kind}/${involved.name}` : kind;
    const component = field(event, "source", "component") || event.reportingComponent || "";
    const host = field(event, "source", "host") || event.reportingInstance || "";
    const source = host ? `${component}, ${host}` : component;
    return [
      last,
      event.type ?? "",
      event.reason ?? "",
      target,
      involved.fieldPath ?? "",
      source,
      String(event.message ?? "").trim(),
      first,
      count,
      event.metadata?.name ?? "",
    ];
  },
);
