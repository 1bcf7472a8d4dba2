/**
 * The call walk of issue #37, on the TypeScript compiler's type checker: from one function, the calls its body makes
 * (in source order), depth first, into the functions this repository defines. bench/walk.ts is its command line and
 * docs/bench.md ("The call walk") states the convention; this file only walks and counts.
 */
import { relative } from "node:path";
import ts from "typescript";

export interface Place {
  depth: number;
  /** Relative to the walked tree's root. */
  file: string;
  line: number;
  name: string;
  /** "interface": a method or function-typed member of an interface or type (a port), never followed further. */
  kind: "function" | "interface";
  /** Already expanded earlier in the walk: printed, not expanded again. */
  seen: boolean;
  /** The walk enters a file it had left earlier. */
  returnInto: boolean;
}

export interface Walk {
  places: Place[];
  files: number;
  returns: number;
  /** Calls on a value the checker cannot tie to a definition (a parameter, a field, a function a call returned). */
  unresolved: number;
  /** Calls into node_modules or TypeScript's lib (.d.ts): not followed, not printed. */
  external: number;
}

export type FunctionNode = ts.FunctionLikeDeclaration & { body?: ts.Node };

/** A function with a body, reachable as a definition. */
function isFunctionWithBody(node: ts.Node): node is FunctionNode {
  return (
    (ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isConstructorDeclaration(node) ||
      ts.isGetAccessorDeclaration(node) ||
      ts.isSetAccessorDeclaration(node) ||
      ts.isArrowFunction(node) ||
      ts.isFunctionExpression(node)) &&
    node.body !== undefined
  );
}

function unwrap(node: ts.Expression): ts.Expression {
  let inner = node;
  while (ts.isParenthesizedExpression(inner) || ts.isAsExpression(inner) || ts.isSatisfiesExpression(inner)) {
    inner = inner.expression;
  }
  return inner;
}

/** The function a declaration defines: itself, or the function a variable, property or field is initialised with. */
function definedFunction(decl: ts.Declaration): FunctionNode | undefined {
  if (isFunctionWithBody(decl)) return decl;
  if (
    (ts.isVariableDeclaration(decl) || ts.isPropertyAssignment(decl) || ts.isPropertyDeclaration(decl)) &&
    decl.initializer
  ) {
    const value = unwrap(decl.initializer);
    if (isFunctionWithBody(value)) return value;
  }
  if (ts.isClassDeclaration(decl)) {
    return decl.members.find(
      (member): member is ts.ConstructorDeclaration & FunctionNode =>
        isFunctionWithBody(member) && ts.isConstructorDeclaration(member),
    );
  }
  return undefined;
}

/** A member of an interface or type literal, the only thing a call on a port can be tied to without guessing. */
function portMember(decl: ts.Node): ts.Node | undefined {
  let node: ts.Node = decl;
  if (ts.isFunctionTypeNode(node) || ts.isCallSignatureDeclaration(node)) node = node.parent;
  const isMember = ts.isMethodSignature(node) || ts.isPropertySignature(node) || ts.isCallSignatureDeclaration(node);
  return isMember && (ts.isInterfaceDeclaration(node.parent) || ts.isTypeLiteralNode(node.parent)) ? node : undefined;
}

function nameText(name: ts.Node | undefined): string | undefined {
  if (!name) return undefined;
  return ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) ? name.text : name.getText();
}

/** The name of a type member's owner: the interface, or the type alias / variable / parameter a literal types. */
function ownerName(node: ts.Node): string {
  for (let at: ts.Node | undefined = node.parent; at; at = at.parent) {
    if (ts.isInterfaceDeclaration(at) || ts.isTypeAliasDeclaration(at) || ts.isClassLike(at)) {
      if (at.name) return nameText(at.name) as string;
      if (ts.isVariableDeclaration(at.parent)) return nameText(at.parent.name) as string;
      return `(class in ${ownerName(at)})`;
    }
    if (ts.isVariableDeclaration(at) || ts.isParameter(at) || ts.isPropertySignature(at))
      return nameText(at.name) ?? "{}";
    if (ts.isFunctionLike(at) && nameText(at.name)) return nameText(at.name) as string;
  }
  return "{}";
}

/** How a reader names the place: `f`, `Class.method`, `Port.member`, or the callee an inline function is passed to. */
export function placeName(node: ts.Node): string {
  const parent = node.parent;
  if (ts.isConstructorDeclaration(node)) return `${ownerName(node)}.constructor`;
  if (
    (ts.isMethodDeclaration(node) || ts.isAccessor(node) || ts.isPropertyDeclaration(node)) &&
    ts.isClassLike(parent)
  ) {
    return `${ownerName(node)}.${nameText(node.name)}`;
  }
  if (ts.isMethodSignature(node) || ts.isPropertySignature(node)) return `${ownerName(node)}.${nameText(node.name)}`;
  if (ts.isCallSignatureDeclaration(node)) return `${ownerName(node)}()`;
  if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) return nameText(node.name) ?? "(default)";
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return nameText(parent.name) ?? "(function)";
  if (ts.isPropertyDeclaration(parent)) return placeName(parent);
  if (ts.isCallExpression(parent) || ts.isNewExpression(parent)) {
    return `(function passed to ${parent.expression.getText().replace(/\s+/g, "")})`;
  }
  return "(function)";
}

/**
 * The calls a function makes, in the order they run: a call after its receiver and its arguments, as JavaScript
 * evaluates them (`a(b())` is b then a, `x.f().g()` is f then g, `new E(quote(x))` is quote then E). Inline functions (callbacks, options' arrows) are read as part of the body; nested
 * function declarations, classes and functions bound to a local `const` are not: they are reached when called.
 */
function callsIn(fn: FunctionNode): (ts.CallExpression | ts.NewExpression)[] {
  const calls: (ts.CallExpression | ts.NewExpression)[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionDeclaration(node) || ts.isClassLike(node)) return;
    if ((ts.isArrowFunction(node) || ts.isFunctionExpression(node)) && ts.isVariableDeclaration(node.parent)) return;
    ts.forEachChild(node, visit);
    if (
      (ts.isCallExpression(node) && node.expression.kind !== ts.SyntaxKind.ImportKeyword) ||
      ts.isNewExpression(node)
    ) {
      calls.push(node);
    }
  };
  for (const parameter of fn.parameters) visit(parameter);
  if (fn.body) visit(fn.body);
  return calls;
}

function calledName(call: ts.CallExpression | ts.NewExpression): ts.Node {
  const callee = unwrap(call.expression);
  if (ts.isPropertyAccessExpression(callee)) return callee.name;
  if (ts.isElementAccessExpression(callee)) return callee.argumentExpression;
  return callee;
}

/** "none": `new` of an own class without a constructor of its own (nothing runs that a reader would open). */
type Target = { node: ts.Node; kind: Place["kind"] } | "external" | "unresolved" | "none";

export class CallWalker {
  private readonly checker: ts.TypeChecker;
  private readonly root: string;

  constructor(program: ts.Program, root: string) {
    this.checker = program.getTypeChecker();
    this.root = root;
  }

  /** This repository's own source: not a declaration file, not under node_modules, inside the root. */
  private own(node: ts.Node): boolean {
    const file = node.getSourceFile();
    return (
      !file.isDeclarationFile &&
      !file.fileName.includes("/node_modules/") &&
      !relative(this.root, file.fileName).startsWith("..")
    );
  }

  /** The definition a call runs, or the port member it is typed by; never an implementation guessed for a port. */
  private target(call: ts.CallExpression | ts.NewExpression): Target {
    let symbol = this.checker.getSymbolAtLocation(calledName(call));
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = this.checker.getAliasedSymbol(symbol);
    const declarations: ts.Node[] = [...(symbol?.declarations ?? [])];
    const signature = this.checker.getResolvedSignature(call)?.declaration;
    if (signature) declarations.push(signature);
    for (const decl of declarations) {
      const fn = definedFunction(decl as ts.Declaration);
      if (fn && this.own(fn)) return { node: fn, kind: "function" };
    }
    for (const decl of declarations) {
      const member = portMember(decl);
      if (member && this.own(member)) return { node: member, kind: "interface" };
    }
    if (ts.isNewExpression(call) && declarations.some((decl) => ts.isClassDeclaration(decl) && this.own(decl)))
      return "none";
    return declarations.length > 0 && declarations.every((decl) => !this.own(decl)) ? "external" : "unresolved";
  }

  walk(start: FunctionNode, maxDepth: number): Walk {
    const places: Place[] = [];
    const expanded = new Set<ts.Node>();
    let unresolved = 0;
    let external = 0;
    const visit = (node: ts.Node, kind: Place["kind"], depth: number): void => {
      const file = node.getSourceFile();
      const seen = expanded.has(node);
      places.push({
        depth,
        file: relative(this.root, file.fileName),
        line: file.getLineAndCharacterOfPosition(node.getStart()).line + 1,
        name: placeName(node),
        kind,
        seen,
        returnInto: false,
      });
      if (kind === "interface" || seen || depth >= maxDepth) return;
      expanded.add(node);
      for (const call of callsIn(node as FunctionNode)) {
        const target = this.target(call);
        if (target === "external") external++;
        else if (target === "unresolved") unresolved++;
        else if (target !== "none") visit(target.node, target.kind, depth + 1);
      }
    };
    visit(start, "function", 0);
    const left = new Set<string>();
    let returns = 0;
    places.forEach((place, i) => {
      const previous = places[i - 1]?.file;
      if (previous === undefined || previous === place.file) return;
      left.add(previous);
      if (left.has(place.file)) {
        place.returnInto = true;
        returns++;
      }
    });
    return { places, files: new Set(places.map((p) => p.file)).size, returns, unresolved, external };
  }
}
