// Authentication (spec 5): every request carries the key in the SERVICE-API-KEY header, or is refused
// with 401 before anything else is read. The request layer's auth switches loosen it (each an
// AuthPolicy, layers/types.ts); the clean server has none and takes the header only.
import { hash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { HttpError } from '../errors.ts';
import type { AuthPolicy } from '../layers/types.ts';
import { operationOf } from '../operations.ts';
import { atRoot } from './root.ts';

const digest = (s: string) => hash('sha256', s, 'buffer');
const MISSING = 'SERVICE-API-KEY header is required';

export const authentication = atRoot<{ apiKey: string; loosened: readonly AuthPolicy[] }>((app, { apiKey, loosened }, done) => {
  const policy = {
    anyKey: loosened.some((p) => p.anyKey),
    withoutKey: loosened.some((p) => p.withoutKey),
    bodyKey: loosened.some((p) => p.bodyKey),
    ignoreCase: loosened.some((p) => p.ignoreCase),
    prefixLength: loosened.find((p) => p.prefixLength)?.prefixLength,
    headerSpelling: loosened.find((p) => p.headerSpelling)?.headerSpelling,
  };
  // The clean server compares the whole key as sent; the auth switches may fold its case or cut it.
  const compared = (key: string) => {
    const folded = policy.ignoreCase ? key.toLowerCase() : key;
    return policy.prefixLength ? folded.slice(0, policy.prefixLength) : folded;
  };
  const expected = digest(compared(apiKey));
  // Constant-time: compare fixed-length digests, so neither content nor length leaks through timing.
  const valid = (key: unknown) => typeof key === 'string' && timingSafeEqual(digest(compared(key)), expected);
  /** The header's value: by its name in any case (Node lower-cases names), or only as spelt by headerSpelling. */
  const headerKey = (req: FastifyRequest): string | string[] | undefined => {
    if (!policy.headerSpelling) return req.headers['service-api-key'];
    const raw = req.raw.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i] === policy.headerSpelling) return raw[i + 1];
    return undefined;
  };
  const open = new Set(loosened.flatMap((p) => p.openOperations ?? []));
  const queryKeys = loosened.flatMap((p) => p.queryKeys ?? []);
  const schemes = new Set(loosened.flatMap((p) => p.authorization ?? []));
  const cookieNames = loosened.flatMap((p) => p.cookieNames ?? []);
  /** The key as a loosened server finds it in Authorization: a Basic pair gives each of its parts to try. */
  const fromAuthorization = (value: string | undefined): string | undefined => {
    if (!value) return undefined;
    const m = /^(\S+)\s+(.*)$/.exec(value.trim());
    if (m && /^bearer$/i.test(m[1]) && schemes.has('Bearer')) return m[2];
    if (m && /^basic$/i.test(m[1]) && schemes.has('Basic')) {
      const pair = Buffer.from(m[2], 'base64').toString('utf8');
      const i = pair.indexOf(':');
      const parts = i < 0 ? [pair] : [pair.slice(0, i), pair.slice(i + 1)];
      return parts.find((p) => valid(p)) ?? parts.find((p) => p !== '');
    }
    return schemes.has('plain') ? value.trim() : undefined;
  };
  const fromCookie = (value: string | undefined): string | undefined => {
    for (const part of (value ?? '').split(';')) {
      const eq = part.indexOf('=');
      if (eq > 0 && cookieNames.includes(part.slice(0, eq).trim())) return decodeURIComponent(part.slice(eq + 1).trim());
    }
    return undefined;
  };

  // A callback hook, not an async one: it runs on every request, and a promise per request is a
  // measurable share of a fast list call (npm run bench:server).
  app.addHook('onRequest', (req, _reply, next) => {
    if (policy.withoutKey) return next();
    let key = headerKey(req);
    if (key === undefined && open.size > 0 && open.has(operationOf(req) ?? '')) return next();
    for (const name of queryKeys) if (key === undefined) key = (req.query as Record<string, string>)[name];
    if (key === undefined && schemes.size > 0) key = fromAuthorization(req.headers.authorization);
    if (key === undefined && cookieNames.length > 0) key = fromCookie(req.headers.cookie);
    // The body is not parsed yet: a request without a key is let through to preValidation, which looks there.
    if (policy.bodyKey && key === undefined) return next();
    if (!valid(key) && !policy.anyKey) return next(new HttpError(401, key === undefined ? MISSING : 'SERVICE-API-KEY is not valid'));
    next();
  });

  if (policy.bodyKey) {
    app.addHook('preValidation', (req, _reply, next) => {
      if (headerKey(req) !== undefined) return next();
      const b = req.body as Record<string, unknown> | undefined;
      if (b && typeof b === 'object' && valid(b.apiKey)) {
        delete b.apiKey;
        return next();
      }
      next(new HttpError(401, MISSING));
    });
  }
  done();
});
