// The API key in every form it can take: the redaction applied to everything a run writes (the key
// never reaches an artifact), the forms the secret scan looks for (raw, near misses, encodings), and
// the wrong keys derived from it that `--auth-probes derived` sends (each a near miss, or the key and more).
export const KEY_HEADER = 'SERVICE-API-KEY';
export const REDACTED = '<redacted>';

/**
 * Headers whose value is a credential whatever it holds: the key's own, and the ones a request may carry
 * the key in where the spec does not put it (the auth tests send it in Authorization and Cookie).
 */
const CREDENTIAL_HEADERS = new Set([KEY_HEADER.toLowerCase(), 'authorization', 'cookie', 'proxy-authorization']);

export const isCredentialHeader = (name: string) => CREDENTIAL_HEADERS.has(name.toLowerCase());

export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k] = isCredentialHeader(k) ? REDACTED : v;
  return out;
}

/** Header values that are no key: nothing sent, already redacted, or the curl line's reference to the variable. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the text a curl line or a config uses to refer to the variable
const KEEP = new Set(['', REDACTED, '$CONSOLE_API_KEY', '${CONSOLE_API_KEY}']);

/**
 * The SERVICE-API-KEY header with its value, in the forms Playwright and Node print it, any case of
 * the name: group 1 is what comes before the value, group 2 the value, group 3 what closes it.
 */
const HEADER_FORMS: RegExp[] = [
  // JSON: "SERVICE-API-KEY":"x" or "SERVICE-API-KEY": "x"
  /("service-api-key"\s*:\s*")((?:[^"\\]|\\.)*)(")/gi,
  // Node's util.inspect of a headers object: 'SERVICE-API-KEY': 'x'
  /('service-api-key'\s*:\s*')((?:[^'\\]|\\.)*)(')/gi,
  // JSON held in a JSON string (an attachment inside a report): \"SERVICE-API-KEY\":\"x\"
  /(\\"service-api-key\\"\s*:\s*\\")((?:(?!\\").)*)(\\")/gi,
  // A header line: SERVICE-API-KEY: x at the start of a line, after a list marker (Playwright's call
  // log: "  - SERVICE-API-KEY: x") or an opening quote (curl -H "..."), in raw text or in text that
  // was JSON-encoded (where a line starts after \n). The value runs to the end of the line, or to
  // what ends it in encoded text (an escape, a quote, an ANSI colour code). Mid-sentence the name is
  // not a header line ("a request without SERVICE-API-KEY: must not be accepted"), and is kept.
  /((?:^|[\r\n"'-]|\\[nr])[ \t]*service-api-key[ \t]*:[ \t]*)([^\r\n\x1b"'\\]*)()/gi,
];

/**
 * Redacts every SERVICE-API-KEY header value in a text, whatever the value is: the key, a near miss
 * of it (a test's wrong key, which a network error's call log prints), or any other.
 */
export function redactKeyHeaders(text: string): string {
  let out = text;
  for (const form of HEADER_FORMS) {
    out = out.replace(form, (whole, before: string, value: string, after: string) => (KEEP.has(value.trim()) ? whole : `${before}${REDACTED}${after}`));
  }
  return out;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Removes every occurrence of the key (raw, URL- and base64-encoded) and of its near misses (in any
 * case: a wrong key derived from it that a server echoed in its answer) from a text, and the value of
 * every SERVICE-API-KEY header line in it, key or not.
 */
export function redactText(text: string, key: string | undefined): string {
  let out = text;
  if (key) {
    for (const form of [key, encodeURIComponent(key), Buffer.from(key).toString('base64')]) out = out.split(form).join(REDACTED);
    // The key inside a larger base64 text (a Basic pair `key:` echoed back): the fragments its bits alone make.
    for (const fragment of base64Fragments(key)) if (fragment.length >= 16) out = out.split(fragment).join(REDACTED);
    // Longest first: the key's first half is inside the key cut short, which is inside the key.
    for (const near of [...nearMisses(key)].sort((a, b) => b.length - a.length)) out = out.replace(new RegExp(escapeRegExp(near), 'gi'), REDACTED);
  }
  return redactKeyHeaders(out);
}

/**
 * Base64 text of the key wherever it sits in a larger encoded blob (a header line, a HAR entry, a
 * trace): the key starts at byte offset 0, 1 or 2 of a 3-byte group, and only the characters made
 * from the key's bits alone are fixed, so each alignment gives one fragment to look for.
 */
function base64Fragments(key: string): string[] {
  const bytes = Buffer.from(key);
  const out: string[] = [];
  for (const shift of [0, 1, 2]) {
    const text = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    const fragment = text.slice(Math.ceil((shift * 8) / 6), Math.floor(((shift + bytes.length) * 8) / 6));
    out.push(fragment, fragment.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return out;
}

/** The key with the case of each letter turned (cc_AbC -> CC_aBc). */
export const swapCase = (key: string) => [...key].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');

/**
 * The key's first half (rounded up), the prefix a derived probe sends; undefined when that is under 16
 * characters (a key under 31): a short key's first half may be little more than its vendor's prefix
 * (`console-`), text that is in every file, and the scan would call each of them a leak.
 */
export function keyPrefix(key: string): string | undefined {
  const prefix = key.slice(0, Math.ceil(key.length / 2));
  return prefix.length >= 16 ? prefix : undefined;
}

/**
 * The key and the near misses from which it can be recovered: upper-, lower- and swapped-case (a
 * case-folded key is the key to anyone who tries both cases), one character short at either end (one
 * guess away), and its first half (half the key). A test that sends such a key (`--auth-probes
 * derived`), or a header printed with its value cut, writes one of these.
 */
export function nearMisses(key: string): string[] {
  const prefix = keyPrefix(key);
  return [...new Set([key, key.toUpperCase(), key.toLowerCase(), swapCase(key), key.slice(0, -1), key.slice(1), ...(prefix ? [prefix] : [])])];
}

/**
 * The wrong keys derived from the real one that `--auth-probes derived` sends, each with what it is:
 * a server that compares keys by prefix, over the length sent or ignoring case takes one of them.
 * Every one is a near miss of the key or holds the key (redacted and scanned for as such).
 */
export function derivedKeys(key: string): { what: string; key: string }[] {
  const prefix = keyPrefix(key);
  const all = [
    { what: 'the key one character short', key: key.slice(0, -1) },
    ...(prefix ? [{ what: "the key's first half", key: prefix }] : []),
    { what: 'the key with one character added', key: `${key}0` },
    { what: 'the key upper-cased', key: key.toUpperCase() },
    { what: 'the key lower-cased', key: key.toLowerCase() },
    { what: 'the key with its case swapped', key: swapCase(key) },
  ];
  return all.filter((d, i) => d.key !== '' && d.key !== key && all.findIndex((e) => e.key === d.key) === i);
}

/**
 * The forms a key can take in a file: the key and each near miss, each raw, URL-encoded, base64 (any
 * alignment, standard and URL alphabet) and hex (lower and upper case).
 */
export function keyForms(key: string): string[] {
  return [
    ...new Set(
      nearMisses(key).flatMap((k) => {
        const hex = Buffer.from(k).toString('hex');
        return [k, encodeURIComponent(k), ...base64Fragments(k), hex, hex.toUpperCase()];
      }),
    ),
  ];
}
