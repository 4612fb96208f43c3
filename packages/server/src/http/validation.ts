/**
 * Request validation through the same zod schemas that document the API. Failures become a
 * FeedloopError naming the first bad field, so every route answers bad input the same way.
 * A schema can carry its own validator (see {@link withValidator}): feedback events use
 * `validateFeedbackEvent`, which tells an unknown type apart from a bad payload.
 */
import { firstIssue, type ErrorBody } from '@feedloop/core';
import type { FastifySchemaCompiler } from 'fastify';
import type { z } from 'zod';
import { FeedloopError } from '../errors.js';

type Check = (data: unknown) => { ok: true; value: unknown } | { ok: false; error: ErrorBody };

const customValidators = new WeakMap<object, Check>();

/**
 * Documents a part of a request with `schema` but validates it with `check`.
 *
 * @example
 * body: withValidator(feedbackEventSchema, validateFeedbackEvent)
 */
export function withValidator<S extends z.ZodType>(schema: S, check: Check): S {
  customValidators.set(schema, check);
  return schema;
}

const partNames: Record<string, string> = { body: '', querystring: '', params: '', headers: 'headers' };

/** Fastify validator compiler for zod schemas. */
export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart }) => {
  const custom = customValidators.get(schema);
  const prefix = partNames[httpPart ?? 'body'] || undefined;
  return (data: unknown) => {
    if (custom) {
      const result = custom(data);
      return result.ok ? { value: result.value } : { error: FeedloopError.from(result.error) };
    }
    const parsed = schema.safeParse(data);
    return parsed.success ? { value: parsed.data } : { error: FeedloopError.from(firstIssue(parsed.error, prefix)) };
  };
};
