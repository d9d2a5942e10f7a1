/**
 * HTML text for `report.html`: escaping, and the little Markdown the
 * report's prose uses (headings, nested lists, quotes, paragraphs, bold and
 * code), turned into HTML so the page shows the same environment and notes
 * as `latest.md`.
 *
 * @module
 */

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;")
    .replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** Escaped inline Markdown: `**bold**` and `` `code` ``. */
export function inline(text: string): string {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
}

/**
 * The report's Markdown prose as HTML: `#` headings (shifted by
 * `headingShift` levels), `-` lists nested by two spaces, `>` quotes and
 * paragraphs.  Tables and images are not part of this prose.
 */
export function proseHtml(markdown: string, headingShift = 0): string {
  const out: string[] = [];
  const open: number[] = []; // indents of the open lists
  const closeTo = (indent: number) => {
    while (open.length > 0 && open[open.length - 1] >= indent) {
      out.push("</li></ul>");
      open.pop();
    }
  };
  for (const line of markdown.split("\n")) {
    const item = /^( *)- (.*)$/.exec(line);
    if (item != null) {
      const indent = item[1].length;
      if (open.length > 0 && open[open.length - 1] === indent) {
        out.push(`</li><li>${inline(item[2])}`);
        continue;
      }
      closeTo(indent + 1);
      if (open.length > 0 && open[open.length - 1] === indent) {
        out.push(`</li><li>${inline(item[2])}`);
      } else {
        out.push(`<ul><li>${inline(item[2])}`);
        open.push(indent);
      }
      continue;
    }
    if (/^\s+\S/.test(line) && open.length > 0) {
      out.push(" " + inline(line.trim()));
      continue;
    }
    closeTo(0);
    const heading = /^(#+) (.*)$/.exec(line);
    if (heading != null) {
      const level = Math.min(6, heading[1].length + headingShift);
      out.push(`<h${level}>${inline(heading[2])}</h${level}>`);
    } else if (line.startsWith("> ")) {
      out.push(`<blockquote>${inline(line.slice(2))}</blockquote>`);
    } else if (line.trim() !== "") {
      out.push(`<p>${inline(line)}</p>`);
    }
  }
  closeTo(0);
  return out.join("\n");
}

/**
 * JSON for a `<script type="application/json">` block: `<` escaped so no
 * text in the data can close the block.
 */
export function jsonBlock(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c");
}
