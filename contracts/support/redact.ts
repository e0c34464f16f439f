// One redaction for everything the suite writes: the API key never reaches an artifact (issue 6).
export const KEY_HEADER = 'SERVICE-API-KEY';
export const REDACTED = '<redacted>';

export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k] = k.toLowerCase() === KEY_HEADER.toLowerCase() ? REDACTED : v;
  return out;
}

/** Removes every occurrence of the key (raw, URL- and base64-encoded) from a text. */
export function redactText(text: string, key: string | undefined): string {
  if (!key) return text;
  let out = text;
  for (const form of [key, encodeURIComponent(key), Buffer.from(key).toString('base64')]) out = out.split(form).join(REDACTED);
  return out;
}
