/**
 * A `deno lint` rule of the project's own: no function in `lib/` longer
 * than {@link MAX_FUNCTION_LINES} lines, tests and their helpers
 * (`lib/testing/`) apart.  A long function is
 * split into named parts; `deno task check` (and so CI) runs it.
 *
 * @module
 */

/** The longest a function in `lib/` may be, in lines, its braces included. */
export const MAX_FUNCTION_LINES = 100;

/** Whether the rule applies to a file: product code under `lib/`. */
export function governed(filename: string): boolean {
  const path = filename.replaceAll("\\", "/");
  return /(^|\/)lib\//.test(path) && !/(^|\/)lib\/testing\//.test(path) &&
    !path.endsWith(".test.ts");
}

/** The number of lines the text between two offsets spans. */
export function linesSpanned(text: string, start: number, end: number): number {
  let lines = 1;
  for (let i = start; i < end; i++) if (text.charCodeAt(i) === 10) lines++;
  return lines;
}

type FunctionNode =
  | Deno.lint.FunctionDeclaration
  | Deno.lint.FunctionExpression
  | Deno.lint.ArrowFunctionExpression;

/** The plugin `deno.json`'s `lint.plugins` loads. */
const plugin: Deno.lint.Plugin = {
  name: "house",
  rules: {
    "function-length": {
      create(context) {
        if (!governed(context.filename)) return {};
        const check = (node: FunctionNode) => {
          if (node.body == null) return;
          const [start, end] = node.range;
          const lines = linesSpanned(context.sourceCode.text, start, end);
          if (lines <= MAX_FUNCTION_LINES) return;
          context.report({
            node,
            message: `this function is ${lines} lines long, over the ` +
              `${MAX_FUNCTION_LINES} a function in lib/ may take`,
            hint: "split it into named functions, each with one job",
          });
        };
        return {
          FunctionDeclaration: check,
          FunctionExpression: check,
          ArrowFunctionExpression: check,
        };
      },
    },
  },
};

export default plugin;
