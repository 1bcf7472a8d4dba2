/**
 * One bound on how deeply nested a value may be (release values, manifest
 * documents), the 256 levels many JSON parsers use. Recursive code (canonical
 * JSON, YAML output, renderers) overflows the stack somewhere past a few
 * thousand levels; values are checked against this bound first, without
 * recursion, so a hostile document fails alone and by name.
 */
export const MAX_NESTING_DEPTH = 256;

/** Whether `value` nests deeper than `limit` objects/arrays (a cycle counts as too deep). */
export function nestedDeeperThan(value: unknown, limit = MAX_NESTING_DEPTH): boolean {
  // Depth first (LIFO), so a deep chain, or a cycle, is found after about `limit` steps.
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== "object") continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
    }
  }
  return false;
}
