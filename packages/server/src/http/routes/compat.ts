/**
 * The seeds' own endpoints (filled in by the compatibility work).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppServices } from '../services.js';

/** The compatible routes. */
export const compatRoutes: FastifyPluginAsync<AppServices> = async () => undefined;
