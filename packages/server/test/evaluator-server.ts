/**
 * A deterministic evaluator for the evaluator suites: a real local HTTP server standing in for a
 * team's judge. It checks each call's signature, and answers from the answer's text alone: a
 * response whose answer says "good" is up (rating 5, score 0.9), any other down (rating 1, score
 * 0.1); of a pair it prefers the one that says "good", or answers a tie. A test may override the
 * status of the nth call (503 then 200, a 500 for ever, a 400) or the body it answers, or give the
 * judge a rule of its own (the calibration replay judges real data by a documented rule).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { verifyWebhookSignature } from '../src/emit/webhook-signature.js';

/** One call as the judge read it. */
export interface JudgeCall {
  body: Record<string, unknown>;
  signed: boolean;
  event: string | undefined;
}

/** What the judge does with its nth call (1-based): a status with its usual answer, or a body of its own. */
export type JudgeBehaviour = (n: number) => { status: number } | { status: number; body: string } | undefined;

export interface TestJudge {
  url: string;
  calls: JudgeCall[];
  secret: string;
  behave(b: JudgeBehaviour): void;
  close(): Promise<void>;
}

interface SentResponse {
  id: string;
  answer: string;
}

const judges: TestJudge[] = [];

/** The deterministic answer to a call body. */
export function judgeAnswer(body: Record<string, unknown>): Record<string, unknown> {
  if (body['kind'] === 'pairwise') {
    const [a, b] = body['responses'] as [SentResponse, SentResponse];
    const goodA = a.answer.includes('good');
    const goodB = b.answer.includes('good');
    return { preferred: goodA === goodB ? 'tie' : goodA ? a.id : b.id, rationale: 'prefers good answers' };
  }
  const good = (body['response'] as SentResponse).answer.includes('good');
  if (body['output'] === 'rating') return { rating: good ? 5 : 1 };
  if (body['output'] === 'score') return { score: good ? 0.9 : 0.1 };
  return { thumbs: good ? 'up' : 'down', label: good ? 'grounded' : 'ungrounded', rationale: 'looked for "good"' };
}

/** What a judge answers to a call body. */
export type JudgeRule = (body: Record<string, unknown>) => Record<string, unknown>;

/**
 * Starts a judge on 127.0.0.1 (the suites allow loopback as an operator would:
 * FEEDLOOP_WEBHOOK_ALLOW_PRIVATE), answering by `rule` (default {@link judgeAnswer}).
 */
export async function startJudge(secret = 'judge-secret-0123456789', rule: JudgeRule = judgeAnswer): Promise<TestJudge> {
  const calls: JudgeCall[] = [];
  let behaviour: JudgeBehaviour = () => undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const body = JSON.parse(raw) as Record<string, unknown>;
      const header = req.headers['x-feedloop-signature'];
      calls.push({ body, signed: verifyWebhookSignature(secret, raw, typeof header === 'string' ? header : undefined), event: req.headers['x-feedloop-event'] as string | undefined });
      const override = behaviour(calls.length);
      const status = override?.status ?? 200;
      const answer = override && 'body' in override ? override.body : JSON.stringify(rule(body));
      res.writeHead(status, { 'content-type': 'application/json' }).end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const judge: TestJudge = {
    url: `http://127.0.0.1:${port}/judge`,
    calls,
    secret,
    behave: (b) => {
      behaviour = b;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  judges.push(judge);
  return judge;
}

afterEach(async () => {
  await Promise.all(judges.splice(0).map((j) => j.close()));
});
