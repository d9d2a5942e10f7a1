/**
 * A command's `--help` and the docs' option list (docs/options.md), both
 * written from the parameter tables, so neither can drift from the parser.
 *
 * @module
 */
import type { CommandTable, ParamSpec } from "./spec.ts";

type AnyTable = CommandTable<readonly ParamSpec[]>;

const WIDTH = 80;
const INDENT = 23;

/** The flag as typed with its placeholder, e.g. `--rate R,…`. */
export function usageOf(spec: ParamSpec): string {
  const flag = `--${spec.flag}`;
  if (spec.shape === "switch") return flag;
  const placeholder = spec.kind!.placeholder;
  return spec.shape === "list"
    ? `${flag} ${placeholder},…`
    : `${flag} ${placeholder}`;
}

/** The default as a user would type it; `""` when there is none to show. */
export function defaultOf(spec: ParamSpec): string {
  const value = spec.default;
  if (spec.shape === "switch" || value == null) return "";
  if (Array.isArray(value)) {
    return value.map((v) => spec.kind!.format(v)).join(",");
  }
  return spec.kind!.format(value);
}

function wrap(text: string, first: string): string {
  const lines: string[] = [];
  let line = first.length >= INDENT - 1
    ? `${first}\n${" ".repeat(INDENT)}`
    : first.padEnd(INDENT);
  let fresh = true;
  for (const word of text.split(/\s+/)) {
    const lastLine = line.slice(line.lastIndexOf("\n") + 1);
    if (!fresh && lastLine.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = " ".repeat(INDENT) + word;
    } else {
      line += (fresh ? "" : " ") + word;
    }
    fresh = false;
  }
  lines.push(line);
  return lines.join("\n");
}

/** Wraps a paragraph at the help's width, without indent. */
function paragraph(text: string): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line !== "" && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  return [...lines, line].join("\n");
}

function helpLine(spec: ParamSpec): string {
  const notes = [
    spec.env == null ? "" : `env ${spec.env}`,
    defaultOf(spec) === "" ? "" : `default ${defaultOf(spec)}`,
  ].filter((n) => n !== "");
  const text = notes.length > 0
    ? `${spec.help} (${notes.join("; ")})`
    : spec.help;
  const short = spec.short == null ? "" : `-${spec.short}, `;
  return wrap(text, `  ${short}${usageOf(spec)}`);
}

/** The `--help` text of a command. */
export function renderHelp(table: AnyTable): string {
  const parts = [`Usage: ${table.usage}`, "", paragraph(table.summary)];
  for (const section of table.sections) {
    const specs = table.params.filter((s) => s.section === section.title);
    if (specs.length === 0) continue;
    const note = section.note == null ? "" : ` (${section.note})`;
    parts.push("", `${section.title}${note}:`, ...specs.map(helpLine));
  }
  const presets = table.presets;
  if (presets != null) {
    parts.push("", `Presets (--${presets.param} NAME):`);
    for (const [name, preset] of Object.entries(presets.byName)) {
      parts.push(wrap(preset.description, `  ${name}`));
    }
  }
  if (table.footer !== "") parts.push("", table.footer);
  return parts.join("\n");
}

function cell(text: string): string {
  return text.replaceAll("|", "\\|");
}

/** The Markdown option list of the given commands, for docs/options.md. */
export function renderOptionsDoc(tables: readonly AnyTable[]): string {
  const out = [
    "# Options",
    "",
    "<!-- Written by `deno task docs` from lib/params/; do not edit by hand. -->",
    "",
    "Every option of every command, from the parameter table the parsers " +
    "and `--help` use. A flag wins over its environment variable, which " +
    "wins over a preset, which wins over the default. **Measured** says " +
    "whether the option changes what a figure measures: results that differ " +
    "in such an option are different measurements (`deno task compare` " +
    "names the difference, `--resume` re-runs).",
  ];
  for (const table of tables) {
    out.push("", `## \`${table.usage}\``, "", table.summary);
    for (const section of table.sections) {
      const specs = table.params.filter((s) => s.section === section.title);
      if (specs.length === 0) continue;
      out.push(
        "",
        `### ${section.title}`,
        "",
        "| Option | Environment | Default | Unit | Measured | What it does |",
        "| --- | --- | --- | --- | --- | --- |",
        ...specs.map((s) =>
          `| \`${cell(usageOf(s))}\` | ${s.env ?? ""} | ${
            cell(defaultOf(s))
          } | ${s.kind?.unit ?? ""} | ${
            s.affects === "measurement"
              ? "yes"
              : s.affects === "runs"
              ? "runs"
              : ""
          } | ${cell(s.help)} |`
        ),
      );
    }
    const presets = table.presets;
    if (presets == null) continue;
    out.push(
      "",
      `### Presets (\`--${presets.param} NAME\`)`,
      "",
      "| Name | What it models | Settings |",
      "| --- | --- | --- |",
      ...Object.entries(presets.byName).map(([name, preset]) => {
        const settings = Object.entries(preset.settings).map(([key, raw]) => {
          const spec = table.params.find((s) => s.name === key);
          const flag = `--${spec?.flag ?? key}`;
          return raw === true ? `\`${flag}\`` : `\`${flag} ${raw}\``;
        });
        return `| \`${name}\` | ${cell(preset.description)} | ${
          settings.join(" ")
        } |`;
      }),
    );
  }
  return out.join("\n") + "\n";
}
