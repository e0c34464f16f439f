// The spec's Markdown read as a document: its numbered sections, and in each the statements it makes,
// every one with its line in the file. remark (CommonMark with GFM tables) does the reading, so a table
// written with other spacing, a cell holding a pipe in code, or a paragraph wrapped over lines reads the
// same; this module only turns the syntax tree into what the contract model needs.
import type { List, Paragraph, Root, RootContent, Table, TableCell } from 'mdast';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';

/** One statement of the spec: a line of a paragraph, a list item, or a table row; `text` is its Markdown as written. */
export interface SpecLine {
  line: number;
  text: string;
}

/** A table row: its cells' Markdown, keyed by the header's words (`Field`, `Type`, `Notes`...). */
export interface SpecRow extends SpecLine {
  cells: Record<string, string>;
}

export interface SpecTable {
  line: number;
  header: string[];
  rows: SpecRow[];
}

/** A numbered heading (`## 4. Endpoints`, `### 4.6 Create metric`) and what stands under it up to the next heading. */
export interface SpecSection {
  number: string;
  title: string;
  line: number;
  /** Paragraph lines and list items, in order. */
  lines: SpecLine[];
  tables: SpecTable[];
  /** Inline code that stands alone as a paragraph (`POST /console/v1/metrics`). */
  codeLines: SpecLine[];
}

export interface SpecDocument {
  title: string;
  sections: SpecSection[];
}

const HEADING_NUMBER = /^(\d+(?:\.\d+)*)\.?\s+(.*)$/;

/** The Markdown source of a node, as written. */
function source(text: string, node: { position?: { start: { offset?: number }; end: { offset?: number } } }): string {
  const { start, end } = node.position ?? { start: {}, end: {} };
  return text.slice(start.offset ?? 0, end.offset ?? 0);
}

const lineOf = (node: { position?: { start: { line: number } } }) => node.position?.start.line ?? 0;

/** A cell's Markdown without the pipes around it (remark's cell position takes in the leading pipe). */
function cellText(text: string, cell: TableCell): string {
  const first = cell.children[0];
  const last = cell.children[cell.children.length - 1];
  if (!first || !last) return '';
  return text.slice(first.position?.start.offset ?? 0, last.position?.end.offset ?? 0).trim();
}

function tableOf(text: string, node: Table): SpecTable {
  const [head, ...body] = node.children;
  const header = head.children.map((cell) => cellText(text, cell));
  return {
    line: lineOf(node),
    header,
    rows: body.map((row) => {
      const cells: Record<string, string> = {};
      row.children.forEach((cell, i) => {
        cells[header[i] ?? String(i)] = cellText(text, cell);
      });
      const firstLine = lineOf(row);
      return { line: firstLine, text: text.split('\n')[firstLine - 1] ?? '', cells };
    }),
  };
}

/** A paragraph's lines, each a statement of its own (the spec writes one per line). */
function paragraphLines(text: string, node: Paragraph): SpecLine[] {
  const first = lineOf(node);
  return source(text, node)
    .split('\n')
    .map((t, i) => ({ line: first + i, text: t.trim() }))
    .filter((l) => l.text.length > 0);
}

function listLines(text: string, node: List): SpecLine[] {
  return node.children.map((item) => ({
    line: lineOf(item),
    text: source(text, item)
      .replace(/^[-*+]\s+/, '')
      .replace(/\s*\n\s*/g, ' ')
      .trim(),
  }));
}

/** Reads the spec's Markdown into its numbered sections. Text before the first numbered heading is the preamble, section "0". */
export function readSpecDocument(markdown: string): SpecDocument {
  const tree = unified().use(remarkParse).use(remarkGfm).parse(markdown) as Root;
  let title = '';
  const preamble: SpecSection = { number: '0', title: '', line: 1, lines: [], tables: [], codeLines: [] };
  const sections: SpecSection[] = [preamble];
  let current = preamble;
  for (const node of tree.children as RootContent[]) {
    if (node.type === 'heading') {
      const words = source(markdown, node)
        .replace(/^#+\s*/, '')
        .trim();
      const numbered = HEADING_NUMBER.exec(words);
      if (node.depth === 1 && !numbered) {
        title = words;
        continue;
      }
      if (!numbered) throw new Error(`spec line ${lineOf(node)}: a heading without a section number: ${words}`);
      current = { number: numbered[1], title: numbered[2].trim(), line: lineOf(node), lines: [], tables: [], codeLines: [] };
      sections.push(current);
    } else if (node.type === 'table') current.tables.push(tableOf(markdown, node));
    else if (node.type === 'list') current.lines.push(...listLines(markdown, node));
    else if (node.type === 'paragraph') {
      if (node.children.length === 1 && node.children[0].type === 'inlineCode') current.codeLines.push({ line: lineOf(node), text: node.children[0].value });
      else current.lines.push(...paragraphLines(markdown, node));
    }
  }
  return { title, sections };
}

/** The section numbered `number`, or undefined. */
export function sectionOf(doc: SpecDocument, number: string): SpecSection | undefined {
  return doc.sections.find((s) => s.number === number);
}

/** Every statement of a section, lines and table rows, in the order of the file. */
export function statementsOf(section: SpecSection): SpecLine[] {
  return [...section.lines, ...section.tables.flatMap((t) => t.rows), ...section.codeLines].sort((a, b) => a.line - b.line);
}
