// The operations of the contract as the router sees them: which operationId a route serves, and
// which methods a path of the contract declares (for 405 and its Allow header).
import type { FastifyRequest } from 'fastify';
import { OPERATIONS as CONTRACT_OPERATIONS } from '../contracts/index.ts';
import { operation } from './schemas.ts';

/** Every operationId of the contract (routes/ serves each). */
export const OPERATION_IDS: readonly string[] = Object.keys(CONTRACT_OPERATIONS);

const fastifyPath = (p: string) => p.replace(/\{(\w+)\}/g, ':$1');
const OPERATION_BY_ROUTE = new Map(OPERATION_IDS.map((id) => [`${operation(id).method} ${fastifyPath(operation(id).path)}`, id]));

/** The operationId of a route as Fastify declares it (`POST`, `/console/v1/gates/:id/rules`), or undefined. */
export const operationOfRoute = (method: string, url: string): string | undefined => OPERATION_BY_ROUTE.get(`${method} ${url}`);

/** The operationId a request was routed to; undefined for a request no route of the contract serves. */
export const operationOf = (req: FastifyRequest): string | undefined => OPERATION_BY_ROUTE.get(`${req.method} ${req.routeOptions.url}`);

/** Each path of the contract as a pattern over the raw request path, with the methods it declares. */
const PATH_METHODS = [...new Set(OPERATION_IDS.map((id) => operation(id).path))].map((path) => ({
  pattern: new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`),
  allow: OPERATION_IDS.filter((id) => operation(id).path === path)
    .map((id) => operation(id).method)
    .join(', '),
}));

/** The methods declared for a request path, or undefined when the contract has no such path. */
export function allowedMethods(url: string): string | undefined {
  const path = url.split('?')[0];
  return PATH_METHODS.find((p) => p.pattern.test(path))?.allow;
}
