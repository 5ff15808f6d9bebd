import type { FastifyReply } from 'fastify';

/**
 * Serialised JSON of answers the domain hands out more than once as the very same object (cached
 * reads such as GetTool). The text is kept for as long as the object lives.
 */
const serialised = new WeakMap<object, string>();

export function sendJson(reply: FastifyReply, value: object): FastifyReply {
  let text = serialised.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    serialised.set(value, text);
  }
  return reply.type('application/json; charset=utf-8').send(text);
}
