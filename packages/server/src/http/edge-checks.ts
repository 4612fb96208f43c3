/**
 * What every request is checked for at the edge, before a route sees it (issue 22): a JSON body
 * must be valid UTF-8 (else it would be stored with U+FFFD in place of what was sent) and its
 * numbers must survive parsing as written; query parameters, path parameters and bodies must hold
 * nothing the store cannot keep (a NUL, a lone surrogate) and nest no deeper than the limit. A
 * route that judges each item of a batch alone (`config.itemsJudgedAlone`) checks its items
 * itself, so one bad item is refused alone.
 */
import { isUtf8 } from 'node:buffer';
import { checkJsonShape, checkStorable, ITEM_SHAPE_LIMITS, markUnfaithfulNumbers, type ErrorBody } from '@feedloop/core';
import type { FastifyInstance } from 'fastify';
import { FeedloopError } from '../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route validates each item of its batch alone (depth, size, storable text), before any write. */
    itemsJudgedAlone?: boolean;
  }
}

/**
 * The first thing in a request's query, path parameters and (unless the route judges items
 * alone) body that the store cannot hold or the limits refuse.
 *
 * @example
 * edgeProblem({ query: { action: 'a\u0000' }, params: {}, body: undefined }, false) // { code: 'FEEDLOOP_ERR_VALIDATION_UNSTORABLE', field: 'action', … }
 */
export function edgeProblem(parts: { query: unknown; params: unknown; body: unknown }, itemsJudgedAlone: boolean): ErrorBody | undefined {
  const inQuery = checkStorable(parts.query) ?? checkStorable(parts.params);
  if (inQuery) return inQuery;
  if (itemsJudgedAlone || parts.body === undefined || parts.body === null) return undefined;
  return checkJsonShape(parts.body, ITEM_SHAPE_LIMITS) ?? checkStorable(parts.body);
}

/**
 * Installs the JSON body parser (UTF-8 checked, unfaithful numbers marked) and the edge check.
 *
 * @example
 * installEdgeChecks(app);
 */
export function installEdgeChecks(app: FastifyInstance): void {
  // Fastify's own parser, with its prototype-poisoning protection, behind our checks.
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const raw = body as Buffer;
    if (!isUtf8(raw)) {
      done(new FeedloopError('FEEDLOOP_ERR_VALIDATION_INVALID_ENCODING', 'the body is not valid UTF-8: send text encoded as UTF-8'), undefined);
      return;
    }
    // Numbers that would change in parsing become marked strings, refused with their field by
    // checkJsonShape: per item on batch routes, for the whole body elsewhere.
    parse(request, markUnfaithfulNumbers(raw.toString('utf8')), done);
  });
  app.addHook('preValidation', async (request) => {
    const problem = edgeProblem(
      { query: request.query, params: request.params, body: request.body },
      request.routeOptions.config?.itemsJudgedAlone === true,
    );
    if (problem) throw FeedloopError.from(problem);
  });
}
