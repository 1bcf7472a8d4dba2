/**
 * Go's regexp (RE2 syntax, as helm's `list -f` compiles it) through re2js, where the two disagree: Go accepts a
 * capture group name used twice (`(?P<v>a)|(?P<v>b)`; regexp/syntax has no such error), re2js refuses it. Names
 * never change what matches, so such a pattern is compiled with its groups unnamed.
 */
import { RE2JS } from "re2js";

export function compileGoRegexp(pattern: string): RE2JS {
  try {
    return RE2JS.compile(pattern);
  } catch (error) {
    if (!/duplicate capture group name/.test((error as Error).message)) throw error;
    return RE2JS.compile(withoutGroupNames(pattern));
  }
}

/**
 * `(?P<name>` and `(?<name>` as `(`, outside escapes, `\Q…\E` and character classes (where `(` is a literal).
 * Only valid names (word characters) are dropped: anything else stays for the compiler's own error.
 */
export function withoutGroupNames(pattern: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      if (pattern[i + 1] === "Q") {
        const end = pattern.indexOf("\\E", i + 2);
        const stop = end < 0 ? pattern.length : end + 2;
        out += pattern.slice(i, stop);
        i = stop - 1;
      } else {
        out += pattern.slice(i, i + 2);
        i++;
      }
      continue;
    }
    if (inClass) {
      if (c === "[" && pattern[i + 1] === ":") {
        const end = pattern.indexOf(":]", i + 2);
        if (end >= 0) {
          out += pattern.slice(i, end + 2);
          i = end + 1;
          continue;
        }
      }
      if (c === "]") inClass = false;
      out += c;
      continue;
    }
    if (c === "[") {
      inClass = true;
      out += c;
      // A `]` (after an optional `^`) right after `[` is a literal, not the end of the class.
      const literal = pattern[i + 1] === "^" ? 2 : 1;
      if (pattern[i + literal] === "]") {
        out += pattern.slice(i + 1, i + literal + 1);
        i += literal;
      }
      continue;
    }
    const named = /^\(\?P?<([A-Za-z0-9_]+)>/.exec(pattern.slice(i, i + 260));
    if (c === "(" && named) {
      out += "(";
      i += named[0].length - 1;
      continue;
    }
    out += c;
  }
  return out;
}
