// Everything shown on the page comes from the target's answers or from files: it is escaped, always.
// The page has no other way to put text into HTML than these helpers.

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for an element or an attribute value. */
export const esc = (v: unknown): string => String(v ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c]);

/** Playwright's error messages carry terminal colours (ESC[31m ...): text only on a page. */
export const stripAnsi = (text: string): string => text.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');

/** A value shown as code: strings as they are, anything else as indented JSON. */
export function pre(v: unknown, cls = ''): string {
  const text = typeof v === 'string' ? v : v === undefined ? '(none)' : JSON.stringify(v, null, 2);
  return `<pre${cls ? ` class="${esc(cls)}"` : ''}>${esc(text)}</pre>`;
}

/** A short one-line rendering of any JSON value (observations, drift). */
export function inline(v: unknown, max = 160): string {
  const text = typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v ?? null);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export const fmtMs = (n: number | null | undefined) => (n === null || n === undefined ? '–' : n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
export const fmtRatio = (n: number | null | undefined) => (n === null || n === undefined ? '–' : `${n.toFixed(2)}×`);
export const fmtPct = (n: number) => `${(n * 100).toFixed(n === 0 ? 0 : 2)}%`;

/** Sorts spec section numbers as numbers: 2.2 < 2.10 < 4.1 < 4.10. */
export function bySection(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}
