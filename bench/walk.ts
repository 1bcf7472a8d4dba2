/**
 * The call walk of issue #37 ("the walk from releaseStatus", "from the API route"): which functions a reader
 * follows, in order, from one function, and how often that reading comes back into a file it had left.
 * Run: `node bench/walk.ts --from releaseStatus`, `node bench/walk.ts --route /status [--in functions/api/routes/status.ts]`,
 * `node bench/walk.ts --from shared/usecases/status.ts:64`; options `--depth N` (3), `--json`, `--root DIR` (another
 * checkout, read through its own tsconfig.json). docs/bench.md ("The call walk") states what is counted.
 */
import { readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { CallWalker, type FunctionNode, type Walk } from "./walk-calls.ts";

interface Start {
  file: string;
  /** Where the start function's text begins (its getStart()). */
  position: number;
}

function fail(message: string): never {
  process.stderr.write(`walk: ${message}\n`);
  process.exit(2);
}

function isFunctionLike(node: ts.Node): node is FunctionNode {
  return ts.isFunctionLike(node) && (node as FunctionNode).body !== undefined;
}

function eachNode(file: ts.SourceFile, found: (node: ts.Node) => void): void {
  const visit = (node: ts.Node): void => {
    found(node);
    ts.forEachChild(node, visit);
  };
  visit(file);
}

function parsed(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
}

/** A function, method or function-valued `const` of that name, in the tree's own files (tests excluded). */
function byName(files: string[], name: string): Start[] {
  const starts: Start[] = [];
  for (const file of files) {
    if (!readFileSync(file, "utf8").includes(name)) continue;
    eachNode(parsed(file), (node) => {
      const named =
        (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.body && node.name?.getText() === name
          ? node
          : ts.isVariableDeclaration(node) && node.name.getText() === name && node.initializer
            ? node.initializer
            : undefined;
      if (named && isFunctionLike(named)) starts.push({ file, position: named.getStart() });
    });
  }
  return starts;
}

/** The first (outermost) function that begins on that line. */
function byLine(file: string, line: number): Start[] {
  const source = parsed(file);
  const starts: Start[] = [];
  eachNode(source, (node) => {
    if (isFunctionLike(node) && source.getLineAndCharacterOfPosition(node.getStart()).line + 1 === line) {
      starts.push({ file, position: node.getStart() });
    }
  });
  return starts.slice(0, 1);
}

/**
 * The handler registered for an API path: a call under functions/ (or the file or folder `--in` names) with the path
 * as an argument and a function as its last argument (`releaseRoute("/status", …, async (…) => …)`).
 */
function byRoute(files: string[], root: string, path: string, within?: string): Start[] {
  const starts: Start[] = [];
  for (const file of files.filter((f) => relative(root, f).startsWith(within ?? "functions/"))) {
    if (!readFileSync(file, "utf8").includes(`"${path}"`)) continue;
    eachNode(parsed(file), (node) => {
      if (!ts.isCallExpression(node)) return;
      const names = node.arguments.some((arg) => ts.isStringLiteral(arg) && arg.text === path);
      const handler = node.arguments.at(-1);
      if (names && handler && isFunctionLike(handler)) starts.push({ file, position: handler.getStart() });
    });
  }
  return starts;
}

function argument(args: string[], flag: string): string | undefined {
  const at = args.indexOf(flag);
  if (at === -1) return undefined;
  const value = args[at + 1];
  if (value === undefined || value.startsWith("--")) fail(`${flag} needs a value`);
  return value;
}

export function listing(walk: Walk, header: string): string {
  const width = Math.max(...walk.places.map((p) => `${p.file}:${p.line}`.length));
  const lines = walk.places.map((p) => {
    const marks = [p.seen ? "(seen)" : "", p.kind === "interface" ? "(interface: implementations not followed)" : ""];
    const back = p.returnInto ? `  ↩ return into ${p.file}` : "";
    return (
      `${p.depth}  ${`${p.file}:${p.line}`.padEnd(width)}  ${"  ".repeat(p.depth)}${p.name} ${marks.join(" ").trim()}`.trimEnd() +
      back
    );
  });
  const ports = walk.places.filter((p) => p.kind === "interface").length;
  return [
    header,
    ...lines,
    `places visited: ${walk.places.length}, distinct files: ${walk.files}, returns: ${walk.returns}`,
    `(of the places, ${ports} are interface members; calls not followed: ${walk.unresolved} on values with no definition to open, ${walk.external} into node_modules or TypeScript's lib)`,
  ].join("\n");
}

export interface WalkOptions {
  /** The tree to read, through its own tsconfig.json. */
  root: string;
  /** A function's name, or FILE:LINE of the line it begins on. */
  from?: string;
  /** An API path a handler is registered for (`/status`), with `within` narrowing the files searched. */
  route?: string;
  within?: string;
  depth: number;
}

/** The walk from the start the options name; throws when it names no function or several. */
export function walkFrom(options: WalkOptions): Walk {
  const { root, from, route } = options;
  const configFile = ts.readConfigFile(join(root, "tsconfig.json"), ts.sys.readFile);
  if (configFile.error) throw new Error(`no tsconfig.json under ${root}`);
  const config = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
  const own = config.fileNames.filter((f) => !relative(root, f).startsWith("test/"));
  if ((from === undefined) === (route === undefined))
    throw new Error("give one of --from NAME|FILE:LINE or --route PATH");
  const line = from?.match(/^(.+\.tsx?):(\d+)$/);
  const starts = route
    ? byRoute(own, root, route, options.within)
    : line
      ? byLine(join(root, line[1]), Number(line[2]))
      : byName(own, from as string);
  if (starts.length !== 1) {
    const found = starts.map(
      (s) => `${relative(root, s.file)}:${parsed(s.file).getLineAndCharacterOfPosition(s.position).line + 1}`,
    );
    throw new Error(
      `${starts.length} start functions for ${from ?? route}${found.length ? `: ${found.join(", ")}` : ""} (name one as FILE:LINE)`,
    );
  }
  const [start] = starts;
  // The start file as the only root: the checker reaches every file it imports, and no more is parsed.
  const program = ts.createProgram([start.file], config.options);
  const walker = new CallWalker(program, root); // its type checker binds the files (and so sets each node's parent)
  let node: FunctionNode | undefined;
  eachNode(program.getSourceFile(start.file) as ts.SourceFile, (n) => {
    if (!node && isFunctionLike(n) && n.getStart() === start.position) node = n;
  });
  if (!node) throw new Error("the start function is not in the program");
  return walker.walk(node, options.depth);
}

function main(args: string[]): void {
  const root = resolve(argument(args, "--root") ?? process.cwd());
  const depth = Number(argument(args, "--depth") ?? 3);
  if (!Number.isInteger(depth) || depth < 0) fail("--depth takes a whole number ≥ 0");
  const from = argument(args, "--from");
  const route = argument(args, "--route");
  let walk: Walk;
  try {
    walk = walkFrom({ root, from, route, within: argument(args, "--in"), depth });
  } catch (error) {
    fail((error as Error).message);
  }
  if (args.includes("--json")) {
    process.stdout.write(`${JSON.stringify({ root, start: from ?? route, depth, ...walk }, null, 2)}\n`);
    return;
  }
  const at = walk.places[0];
  process.stdout.write(`${listing(walk, `walk from ${at.name} (${at.file}:${at.line}) in ${root}, depth ${depth}`)}\n`);
}

if (import.meta.main) main(process.argv.slice(2));
