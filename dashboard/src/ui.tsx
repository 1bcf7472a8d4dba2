/** Small pieces every page uses: health badges, loading and error states, the cluster filter, a list of fields. */
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";

export { HEALTHS } from "./status-view.ts";

/**
 * A health's colour for the rules that paint with `--health` (badge, swatch, the timeline's stripes and series): its
 * palette entry in styles.css, named once there. Preact sets it through the CSSOM, which the page's CSP allows.
 */
export const healthColour = (health: string) => ({ "--health": `var(--${health})` });

export function Health({ health, title }: { health: string; title?: string }) {
  return (
    <span class={`health h-${health}`} style={healthColour(health)} title={title}>
      {health === "NotAudited" ? "not audited" : health}
    </span>
  );
}

/** Loads `load()` whenever `key` changes; `reload()` loads again (Refresh). */
export function useLoad<T>(key: string, load: () => Promise<T>) {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ data: s.data, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error: Error) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [key, tick]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}

export function Problem({ error }: { error?: Error }) {
  if (!error) return null;
  return (
    <p class="problem" role="alert">
      {error.message}
    </p>
  );
}

export function Loading({ when }: { when: boolean }) {
  return when ? (
    <p class="loading" aria-live="polite">
      loading…
    </p>
  ) : null;
}

/**
 * A load's three states in one place: its error, "loading…" until the first answer, then what its data renders
 * (a reload keeps the last data on screen).
 */
export function Loaded<T>({
  load,
  children,
}: {
  load: { data?: T; error?: Error; loading: boolean };
  children: (data: T) => ComponentChildren;
}) {
  return (
    <>
      <Problem error={load.error} />
      <Loading when={load.loading && !load.data} />
      {load.data !== undefined && children(load.data)}
    </>
  );
}

export function Section({ title, children, id }: { title: string; children: ComponentChildren; id?: string }) {
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/** The cluster filter of the fleet and its timeline ("" is every cluster the person may see). */
export function ClusterSelect({
  value,
  clusters,
  onPick,
}: {
  value: string;
  clusters: string[];
  onPick: (cluster: string) => void;
}) {
  return (
    <label>
      Cluster
      <select value={value} onChange={(e) => onPick(e.currentTarget.value)}>
        <option value="">all</option>
        {clusters.map((c) => (
          <option key={c} value={c}>
            {c}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Label and value pairs (a status's header lines, a report's figures); `hint` is the pair's tooltip. */
export function Fields({ fields }: { fields: readonly (readonly [string, ComponentChildren, string?])[] }) {
  return (
    <dl class="fields">
      {fields.map(([label, value, hint]) => (
        <div key={label} title={hint}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
