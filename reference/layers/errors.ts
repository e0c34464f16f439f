// The error layer: switches that change the error answer (status, body, media type), for every error
// the server gives, the framework's own included. Applied in order by plugins/errors.ts: status
// changes first, then the shapes (the first that sets a body wins).
import { errorBody } from '../errors.ts';
import type { ErrorSwitch } from './types.ts';

export const ERROR_SWITCHES = [
  {
    name: 'validation-500',
    kind: 'fault',
    files: ['negative', 'metrics'],
    layer: 'errors',
    description: 'schema violations answer 500',
    clause: 'errors.badInput.4xx',
    level: 'inferred',
    change: {
      transform: (e) => {
        if (e.validation) e.status = 500;
      },
    },
  },
  {
    name: 'unknown-id-500',
    kind: 'fault',
    files: ['gates'],
    layer: 'errors',
    description: 'an unknown gate, experiment, trigger or metric id answers 500 (a missing row dereferenced) instead of 404',
    clause: 'errors.unknownId.404',
    level: 'inferred',
    change: {
      transform: (e) => {
        if (e.fromHandler && e.status === 404) e.status = 500;
      },
    },
  },
  {
    name: 'unauthorized-403',
    kind: 'variant',
    strict: 'pass',
    layer: 'errors',
    description: 'a missing or wrong key answers 403 instead of 401 (spec 7)',
    clause: 'errors.shape',
    level: 'open',
    change: {
      transform: (e) => {
        if (e.status === 401) e.status = 403;
      },
    },
  },
  {
    name: 'errors-422-other-shape',
    kind: 'variant',
    strict: 'pass',
    layer: 'errors',
    description: 'validation errors answer 422 with {"errors": [{"path", "detail"}]} (spec 7)',
    clause: 'errors.shape',
    level: 'open',
    change: {
      transform: (e) => {
        if (!e.fromHandler || e.status !== 400) return;
        e.status = 422;
        e.body = { errors: [{ path: e.validation?.[0]?.instancePath ?? '', detail: e.message }] };
      },
    },
  },
  // RFC 9457's shape, and one line of plain text (a framework's default, e.g. Go's "404 page not found").
  {
    name: 'errors-problem-json',
    kind: 'variant',
    strict: 'pass',
    layer: 'errors',
    description:
      "every error answers application/problem+json (RFC 9457: type, title, status, detail) instead of the reference's own shape (spec 7: error bodies not shown)",
    clause: 'errors.shape',
    level: 'open',
    change: {
      transform: (e) => {
        if (e.body !== undefined) return;
        e.contentType = 'application/problem+json';
        e.body = { type: 'about:blank', title: errorBody(e.status, e.message).error, status: e.status, detail: e.message.split('\n')[0] };
      },
    },
  },
  {
    name: 'errors-plain-text',
    kind: 'variant',
    strict: 'pass',
    layer: 'errors',
    description: 'every error answers one line of text/plain, a framework default (spec 7: error bodies not shown)',
    clause: 'errors.shape',
    level: 'open',
    change: {
      transform: (e) => {
        if (e.body !== undefined) return;
        e.contentType = 'text/plain; charset=utf-8';
        e.body = `${e.status} ${e.message.split('\n')[0]}\n`;
      },
    },
  },
] as const satisfies readonly ErrorSwitch[];
