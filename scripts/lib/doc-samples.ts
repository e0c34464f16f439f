// The sample screens in README.md and docs/, between markers, so that a command (npm run docs:update)
// can remake them from a real run and a test can tell a hand-edited screen from a made one:
//   <!-- sample NAME: made by npm run docs:update from a real run; do not edit -->
//   ```text
//   ...
//   ```
//   <!-- /sample -->

const OPEN = (name: string) => `<!-- sample ${name}: made by npm run docs:update from a real run; do not edit -->`;
const CLOSE = '<!-- /sample -->';
const BLOCK = /<!-- sample ([\w-]+): [^\n]*-->\n```text\n([\s\S]*?)\n```\n<!-- \/sample -->/g;

/** The marked samples of a document: name and text. */
export function samplesIn(doc: string): { name: string; text: string }[] {
  return [...doc.matchAll(BLOCK)].map((m) => ({ name: m[1], text: m[2] }));
}

/** `doc` with the sample `name` made `text`; the document unchanged if it has no such sample. */
export function withSample(doc: string, name: string, text: string): string {
  return doc.replace(BLOCK, (whole, found: string) => (found === name ? `${OPEN(name)}\n\`\`\`text\n${text.trimEnd()}\n\`\`\`\n${CLOSE}` : whole));
}

/** The verdict screen verify prints last: from its `=== verdict ===` rule to the `verdict` line. */
export function verdictScreenIn(output: string): string | undefined {
  const lines = output.split('\n');
  const start = lines.findIndex((l) => /^=+ verdict =+$/.test(l));
  if (start < 0) return undefined;
  const end = lines.findIndex((l, i) => i > start && /^verdict {3}/.test(l));
  return end < 0 ? undefined : lines.slice(start, end + 1).join('\n');
}
