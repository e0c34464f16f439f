// Text for an XML element or attribute, for the JUnit files CI reads: the conformance suite's and the
// load profiles' (load/lib/junit.ts).

/** Escapes the five XML specials and drops the control characters that XML 1.0 forbids. */
export function xmlEscape(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');
}
