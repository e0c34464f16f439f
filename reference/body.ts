// Request bodies: JSON text in UTF-8 (RFC 8259, spec 4.0), parsed strictly. Anything else is a 400
// in the one error shape, decided here before a route sees it.
import { isUtf8 } from 'node:buffer';
import { HttpError } from './errors.ts';

/**
 * Deepest nesting of arrays and objects accepted. The contract's bodies nest about 6 levels
 * (rules, conditions, targetValue; free-form returnValue aside); a limit keeps a body of 2 MiB
 * of brackets from exhausting the stack when it is parsed, validated or stored.
 */
export const MAX_DEPTH = 64;

/** Nesting depth of JSON text, brackets inside strings not counted; stops counting past `limit`. */
export function nestingDepth(text: string, limit = MAX_DEPTH): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return max;
}

/** The parsed body, or undefined for an empty one (enable and disable take no body). */
export function parseJsonBody(raw: Buffer): unknown {
  // Without this check the decoder would turn invalid bytes into U+FFFD and the body would pass.
  if (!isUtf8(raw)) throw new HttpError(400, 'malformed JSON body: not valid UTF-8');
  const text = raw.toString('utf8');
  if (text.trim() === '') return undefined;
  if (nestingDepth(text) > MAX_DEPTH) throw new HttpError(400, `malformed JSON body: nested deeper than ${MAX_DEPTH} levels`);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new HttpError(400, `malformed JSON body: ${(err as Error).message}`);
  }
}
