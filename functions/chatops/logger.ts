/** The chatops functions' Powertools service name (logs, and the EMF `service` dimension the alarms use). */
export const CHATOPS_SERVICE = "helm-status-chatops";
