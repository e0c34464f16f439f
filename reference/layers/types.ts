// What a fault or a legal variant is, as data: its name, what it does, the clause it targets and that
// clause's level, the layer it lives in and the change it makes there. The handlers in routes/ hold only
// what the spec says; every switch changes the server from outside them, in one of four layers:
//
//   request   before the handler: the key check, the request schema, rewrites of what was sent,
//             refusals (checks), arrivals refused before anything else, writes held in flight
//   storage   around the store (store/store.ts), per operation: what is written and read back
//   response  after the handler, per operation: the success body (and status) as the client gets it
//   errors    the error answer: status, body and media type
//
// A switch is one entry of one layer (files layers/<layer>.ts); the registry (reference/faults.ts)
// lists them all. Nothing here knows Fastify beyond the request's parts.
import type { HttpError } from '../errors.ts';
import type { Doc, Store } from '../store/store.ts';
import type { Json, JsonObject } from '../../core/json.ts';
import type { Level } from '../../core/formats.ts';

/** The level of a clause in contracts/clauses.yaml (core/formats.ts; faults.test.ts holds each entry to it). */
export type { Level };
export type LayerName = 'request' | 'storage' | 'response' | 'errors';
type Schema = JsonObject;

/**
 * What a switch is: a fault (a defect the suite must catch: it fails under --strict) or a legal
 * variant (a reading of a "not shown" item the suite must accept: 'pass' passes under --strict;
 * 'warns' is legal but meets an inferred clause, so it passes in default mode with a warning and
 * --strict fails it on that clause, docs/vendor-shapes.md).
 */
export type Kind = { kind: 'fault' } | { kind: 'variant'; strict: 'pass' | 'warns' };

interface About {
  name: string;
  description: string;
  /** The clause (contracts/clauses.yaml) the switch exercises. */
  clause: string;
  level: Level;
  /** Experiments a reference needs for the switch to show (a defect deep in a list): the self-test and proof map seed that many. */
  scale?: number;
  /**
   * The suite files (contracts/conformance/<name>.spec.ts) the self-test runs for a fault, where they are
   * not those whose tests name its clause (the default): a fault met first by another file's test.
   */
  files?: readonly string[];
}

/**
 * A switch of layer L with a change C: fixed, or made from a parameter given after the name
 * (`--variant rules-cap:10`), `configure` answering the change or the one-line reason the text is
 * not a parameter. `configure` runs once per server, so a change may keep state (a counter).
 */
export type Switch<L extends LayerName, C> = About &
  Kind & { layer: L } & ({ change: C } | { parameter: { syntax: string; configure(text: string | undefined): C | string } });

/** The parts of a request a request change reads and rewrites (the parsed body and query). */
export interface RequestView {
  operationId: string;
  params: Record<string, string>;
  query: JsonObject;
  body: Json;
  /** The request's headers, names lower-cased (as Node gives them). */
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** How the key check (plugins/auth.ts) is loosened; the clean server has none of these. */
export interface AuthPolicy {
  /** Any key value is accepted. */
  anyKey?: boolean;
  /** A request without a key is served. */
  withoutKey?: boolean;
  /** These operations are served without a key (their route forgot the check). */
  openOperations?: readonly string[];
  /** The key is also taken from these query parameters. */
  queryKeys?: readonly string[];
  /** The key is also taken from the JSON body's field apiKey. */
  bodyKey?: boolean;
  /**
   * The key is also taken from the Authorization header in these schemes: `Bearer <key>`, `Basic
   * base64(<user>:<password>)` (the key as either part, the other empty or anything), or the bare key (plain).
   */
  authorization?: readonly ('Bearer' | 'Basic' | 'plain')[];
  /** The key is also taken from a cookie of one of these names. */
  cookieNames?: readonly string[];
  /**
   * The key is taken only from a header whose name is spelt exactly so, as it was sent (the raw header
   * names, req.rawHeaders): header names are case-insensitive (RFC 9110 5.1), and HTTP/2 sends them lower-cased.
   */
  headerSpelling?: string;
  /** The key is compared ignoring case. */
  ignoreCase?: boolean;
  /** Only the first N characters of the key are compared (a key looked up by its prefix, the rest never checked). */
  prefixLength?: number;
}

export interface RequestChange {
  /** The operations it applies to (schema, rewrite, check, answer, hold); all of them when absent. */
  operations?: readonly string[];
  /** Before the key check, on every request: an error to answer instead (nothing else runs), or nothing. */
  arrive?(): HttpError | undefined;
  auth?: AuthPolicy;
  /** Changes the contract's schema of one part of the request (a copy, before any request). */
  schema?(schema: Schema, part: 'body' | 'querystring' | 'params'): void;
  /** Rewrites what was sent, after validation and before the handler; `store` is for reading. */
  rewrite?(req: RequestView, store: Store): void;
  /** Refuses a request, after the rewrites: throws an HttpError. */
  check?(req: RequestView, store: Store): void;
  /**
   * Adjusts the success answer of the operations it names: numbering given back in the client's terms
   * for a request it rewrote, or a refusal made after the handler wrote (the status may change).
   */
  answer?(r: ResponseView): void;
  /**
   * The write holds the resource `key` names for `ms` before it answers; another write to the same
   * resource meanwhile is refused with 409 and does nothing. Writes to other resources go on.
   */
  hold?: {
    key(req: RequestView): string;
    ms: number;
    /** The refusal of the other write (default: 409, a conflict). */
    refuse?(key: string): HttpError;
  };
  /**
   * The request waits this long after its rewrites, checks and hold, before its handler runs: what a
   * rewrite read is written that much later (a read-modify-write with a gap). Reads and refusals go on.
   */
  delay?: number;
}

/** The store an operation's handler sees, with what `wrap` replaces (the rest passes through to `next`). */
export interface StorageChange {
  operations: readonly string[];
  wrap(next: Store, env: { now(): number }): Partial<Store>;
}

/** A response on its way out: change body and status in place. */
export interface ResponseView {
  /** undefined: no operation of the contract (an unknown path). */
  operationId: string | undefined;
  status: number;
  body: Json;
  /** Sent as the answer's media type when set (the body is still JSON). */
  contentType?: string;
  request: { body: Json; query: Json; headers?: Record<string, unknown> };
}

export interface ResponseChange {
  operations: readonly string[] | 'all';
  /** Also error answers (by default only success bodies are changed). */
  errors?: boolean;
  transform(r: ResponseView): void;
}

/** An error answer being made: change it in place; a body set here is sent as it is. */
export interface ErrorView {
  status: number;
  /** What went wrong; a shape that has room for one line takes the first. */
  message: string;
  /** From the error handler (a route's error or a schema violation), not the router or the 404/405 answers. */
  fromHandler: boolean;
  /** Schema violations, when the error is one. */
  validation?: { instancePath: string }[];
  body?: unknown;
  contentType?: string;
}

export interface ErrorChange {
  transform(e: ErrorView): void;
}

export type RequestSwitch = Switch<'request', RequestChange>;
export type StorageSwitch = Switch<'storage', StorageChange>;
export type ResponseSwitch = Switch<'response', ResponseChange>;
export type ErrorSwitch = Switch<'errors', ErrorChange>;
export type AnySwitch = RequestSwitch | StorageSwitch | ResponseSwitch | ErrorSwitch;

export type { Doc };
