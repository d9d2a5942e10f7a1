/**
 * Why a test was ignored, from its file's source: the `Deno.test`
 * declarations ({@link testDeclarations}: each one's name, as a pattern of
 * the names it gives at run time, and its `ignore:` expression), and the
 * condition of the declaration that gave a name ({@link ignoreCondition}),
 * with the definitions of the names it uses; and every ignored test of a
 * test report given its condition from its file ({@link withIgnoreConditions}).
 * It reads the source as text, brackets, strings, templates and comments
 * skipped whole; it does not run it.
 *
 * @module
 */
import { join } from "node:path";
import type { TestReport } from "./test_output.ts";

/** A `Deno.test` declaration found in a test file's source. */
export interface TestDeclaration {
  /** Its name's literal text, `…` where it is computed. */
  readonly name: string;
  /** Matches the names it gives at run time. */
  readonly pattern: RegExp;
  /** Its `ignore:` expression, whitespace collapsed; `null` if none. */
  readonly ignore: string | null;
}

const escapeRegExp = (text: string) =>
  text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const OPENERS = "([{";
const CLOSERS = ")]}";

/**
 * The index just past the string, template or comment starting at `i`, or
 * `i` when none starts there.  A template's `${…}` parts are skipped whole,
 * nested templates included.
 */
function skipLiteral(src: string, i: number): number {
  const c = src[i];
  if (c === "/" && src[i + 1] === "/") {
    const end = src.indexOf("\n", i);
    return end < 0 ? src.length : end;
  }
  if (c === "/" && src[i + 1] === "*") {
    const end = src.indexOf("*/", i + 2);
    return end < 0 ? src.length : end + 2;
  }
  if (c === '"' || c === "'") {
    for (let j = i + 1; j < src.length; j++) {
      if (src[j] === "\\") j++;
      else if (src[j] === c || src[j] === "\n") return j + 1;
    }
    return src.length;
  }
  if (c === "`") {
    for (let j = i + 1; j < src.length; j++) {
      if (src[j] === "\\") j++;
      else if (src[j] === "`") return j + 1;
      else if (src[j] === "$" && src[j + 1] === "{") {
        j = expressionEnd(src, j + 2);
      }
    }
    return src.length;
  }
  return i;
}

/**
 * The index of the `,` or closing bracket that ends the expression starting
 * at `i` (brackets, strings, templates and comments skipped whole).
 */
function expressionEnd(src: string, i: number): number {
  let depth = 0;
  for (let j = i; j < src.length;) {
    const skipped = skipLiteral(src, j);
    if (skipped !== j) {
      j = skipped;
      continue;
    }
    const c = src[j];
    if (OPENERS.includes(c)) depth++;
    else if (CLOSERS.includes(c)) {
      if (depth === 0) return j;
      depth--;
    } else if (c === "," && depth === 0) return j;
    j++;
  }
  return src.length;
}

/**
 * The top-level properties of the object literal whose `{` is at `open`:
 * each name and its expression's source.
 */
function objectProperties(src: string, open: number): Map<string, string> {
  const properties = new Map<string, string>();
  for (let j = open + 1; j < src.length;) {
    while (j < src.length) {
      const skipped = skipLiteral(src, j);
      if (skipped !== j && src[j] === "/") j = skipped;
      else if (/[\s,]/.test(src[j])) j++;
      else break;
    }
    if (src[j] === "}" || j >= src.length) break;
    const key = /^(\.\.\.|[A-Za-z_$][\w$]*)\s*:?\s*/.exec(
      src.slice(j, j + 200),
    );
    if (key == null) {
      j = expressionEnd(src, j) + 1;
      continue;
    }
    const valueStart = j + key[0].length;
    const valueEnd = expressionEnd(src, valueStart);
    if (key[1] !== "...") {
      properties.set(key[1], src.slice(valueStart, valueEnd));
    }
    if (src[valueEnd] !== ",") break;
    j = valueEnd + 1;
  }
  return properties;
}

/**
 * A pattern for the names a name expression gives: its string and
 * template literals' text kept, anything computed (`${…}`, a variable)
 * matching anything, `+` joining the parts.
 */
function namePattern(expression: string): { text: string; pattern: RegExp } {
  let regex = "";
  let text = "";
  const wild = () => {
    if (!regex.endsWith(".*")) regex += ".*";
    if (!text.endsWith("…")) text += "…";
  };
  for (let j = 0; j < expression.length;) {
    const c = expression[j];
    if (c === '"' || c === "'") {
      const end = skipLiteral(expression, j);
      const literal = expression.slice(j + 1, end - 1).replace(/\\(.)/g, "$1");
      regex += escapeRegExp(literal);
      text += literal;
      j = end;
    } else if (c === "`") {
      for (let k = j + 1; k < expression.length; k++) {
        if (expression[k] === "\\") {
          regex += escapeRegExp(expression[k + 1] ?? "");
          text += expression[k + 1] ?? "";
          k++;
        } else if (expression[k] === "`") {
          j = k + 1;
          break;
        } else if (expression[k] === "$" && expression[k + 1] === "{") {
          wild();
          k = expressionEnd(expression, k + 2);
        } else {
          regex += escapeRegExp(expression[k]);
          text += expression[k];
        }
        if (k >= expression.length - 1) j = expression.length;
      }
    } else if (/[\s+]/.test(c)) j++;
    else if (OPENERS.includes(c)) {
      // A computed part in brackets, `(x ? "a" : "b")`: anything.
      wild();
      j = expressionEnd(expression, j + 1) + 1;
    } else {
      wild();
      const end = expression.slice(j).search(/[\s+"'`([{]/);
      j = end < 0 ? expression.length : j + end;
    }
  }
  return { text, pattern: new RegExp(`^${regex}$`, "s") };
}

/**
 * The `Deno.test` declarations of a test file's source: each one's name
 * (`Deno.test("…"`, or `name:` in its options, string, template or a sum
 * of them) and its `ignore:` expression.  What the name computes (`${…}`,
 * a variable) matches anything.
 */
export function testDeclarations(source: string): TestDeclaration[] {
  const found: TestDeclaration[] = [];
  for (const match of source.matchAll(/\bDeno\.test\(\s*/g)) {
    const at = match.index! + match[0].length;
    let name: string;
    let ignore: string | null = null;
    if (source[at] === "{") {
      const properties = objectProperties(source, at);
      const expression = properties.get("name");
      if (expression == null) continue;
      name = expression;
      ignore = properties.get("ignore") ?? null;
    } else {
      name = source.slice(at, expressionEnd(source, at));
      const after = expressionEnd(source, at) + 1;
      const next = source.slice(after).match(/^\s*\{/);
      if (next != null) {
        ignore = objectProperties(source, after + next[0].length - 1)
          .get("ignore") ?? null;
      }
    }
    const { text, pattern } = namePattern(name.trim());
    found.push({
      name: text,
      pattern,
      ignore: ignore?.replace(/\s+/g, " ").trim() ?? null,
    });
  }
  return found;
}

/** Names an ignore condition may use that are no definition of the file's. */
const GLOBALS = new Set([
  "Deno",
  "null",
  "undefined",
  "true",
  "false",
  "await",
  "new",
  "typeof",
]);

/**
 * The condition that ignored the test `name` in a file's `source`: its
 * `ignore:` expression, followed by the definitions (`const X = …;`) of
 * the names in it that the file defines; `null` when no declaration
 * matches the name or the matching one has no `ignore:`.
 */
export function ignoreCondition(source: string, name: string): string | null {
  const declaration = testDeclarations(source)
    .find((d) => d.pattern.test(name));
  if (declaration?.ignore == null) return null;
  const definitions: string[] = [];
  const words = [...declaration.ignore.matchAll(/(?<![.\w$])[A-Za-z_$][\w$]*/g)]
    .map((m) => m[0]).filter((w) => !GLOBALS.has(w));
  for (const word of new Set(words)) {
    const defined = new RegExp(
      `\\b(?:const|let) ${word}\\s*=\\s*([\\s\\S]*?);`,
    ).exec(source);
    if (defined != null) {
      const text = defined[1].replace(/\s+/g, " ").trim();
      definitions.push(
        `${word} = ${text.length > 160 ? text.slice(0, 157) + "…" : text}`,
      );
    }
  }
  return definitions.length === 0
    ? declaration.ignore
    : `${declaration.ignore} (${definitions.join("; ")})`;
}

/**
 * A test report whose ignored tests carry their conditions, each read from
 * its file in the clone ({@link ignoreCondition}); `null` where the file
 * cannot be read.
 *
 * @param clone The clone's folder, which the files' paths are relative to.
 * @param report What `deno task test` printed, read.
 */
export async function withIgnoreConditions(
  clone: string,
  report: TestReport,
): Promise<TestReport> {
  const sources = new Map<string, string | null>();
  const ignored = [];
  for (const test of report.ignored) {
    if (!sources.has(test.file)) {
      sources.set(
        test.file,
        await Deno.readTextFile(join(clone, test.file)).catch(() => null),
      );
    }
    const source = sources.get(test.file);
    ignored.push({
      ...test,
      condition: source == null ? null : ignoreCondition(source, test.name),
    });
  }
  return { ...report, ignored };
}
