/**
 * `/examples/widget`: a page showing the `<feedloop-feedback>` widget against this server. Filled
 * in with the widget package (see below); public, like the docs.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppServices } from '../services.js';

/** The example routes. */
export const exampleRoutes: FastifyPluginAsync<AppServices> = async () => {};
