// A plugin whose hooks, handlers and decorations apply to the whole server rather than to a child
// context of its own: what fastify-plugin does (Fastify's `skip-override` property), without the package.
import type { FastifyPluginCallback, FastifyPluginOptions } from 'fastify';

export function atRoot<Options extends FastifyPluginOptions>(plugin: FastifyPluginCallback<Options>): FastifyPluginCallback<Options> {
  return Object.assign(plugin, { [Symbol.for('skip-override')]: true });
}
