/**
 * A shop release whose manifest also names objects of the payments namespace (a tenant borrowing the product's
 * reads, issue #38): its manifest and the live objects, for the borrowed-reads and borrowed-history suites.
 */

/** The value of payments' ConfigMap that no shop-only viewer may ever see. */
export const LEDGER_VALUE = "acct-7731-routing-4410";

export const BORROWING_MANIFEST = `---
apiVersion: v1
kind: ConfigMap
metadata:
  name: api-settings
data:
  MODE: prod
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: ledger-settings
  namespace: payments
data:
  LEDGER_KEY: a-guess
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ledger
  namespace: payments
spec:
  selector:
    matchLabels: {app: ledger}
  template:
    metadata:
      labels: {app: ledger}
    spec:
      containers:
        - name: ledger
          image: registry.example/ledger:9.1
`;

/** The cluster's side: shop's ConfigMap, and payments' ConfigMap (holding LEDGER_VALUE) and Deployment. */
export function borrowingObjects(): object[] {
  return [
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "api-settings", namespace: "shop" },
      data: { MODE: "prod" },
    },
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "ledger-settings", namespace: "payments" },
      data: { LEDGER_KEY: LEDGER_VALUE },
    },
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "ledger", namespace: "payments" },
      spec: {
        selector: { matchLabels: { app: "ledger" } },
        template: {
          metadata: { labels: { app: "ledger" } },
          spec: { containers: [{ name: "ledger", image: "registry.example/ledger:9.1" }] },
        },
      },
    },
  ];
}
