/**
 * `feedloop import` on the real datasets, through a listening server's public API, on both
 * stores: what is stored equals what the source holds (counted from the raw files here, not by
 * the importer's mapping), the HH-RLHF corrections give back the original pairs, and a re-run
 * stores nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinConversation } from '../src/cli/import-hh-rlhf.js';
import { importFile } from '../src/cli/import-command.js';
import { BACKENDS, startTestApp, type TestApp } from './harness.js';
import { DATASETS_DIR, datasetsAvailable } from './datasets.js';

const hasData = datasetsAvailable();
const OASST = join(DATASETS_DIR, 'oasst-en100-trees/en_100_tree.jsonl');
const HH = join(DATASETS_DIR, 'hh-rlhf-harmless-test/harmless-base-test.jsonl.gz');

interface RawMessage {
  role: string;
  rank?: number | null;
  emojis?: Record<string, number> | null;
  replies?: RawMessage[];
}

/** The source's own figures: assistant messages, their +1 and -1 emoji sums, ranked ones. */
function oasstFigures(): { assistants: number; up: number; down: number; ranked: number } {
  const f = { assistants: 0, up: 0, down: 0, ranked: 0 };
  const walk = (m: RawMessage): void => {
    if (m.role === 'assistant') {
      f.assistants++;
      f.up += m.emojis?.['+1'] ?? 0;
      f.down += m.emojis?.['-1'] ?? 0;
      if (typeof m.rank === 'number') f.ranked++;
    }
    for (const r of m.replies ?? []) walk(r);
  };
  for (const line of readFileSync(OASST, 'utf8').split('\n').filter(Boolean)) walk((JSON.parse(line) as { prompt: RawMessage }).prompt);
  return f;
}

function hhPairs(): Array<{ chosen: string; rejected: string }> {
  return gunzipSync(readFileSync(HH)).toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { chosen: string; rejected: string });
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available || !hasData)(`feedloop import on the real datasets (${backend.name})`, () => {
    let t: TestApp;
    let url: string;
    beforeAll(async () => {
      t = await startTestApp(await backend.open(), {}, { worker: true });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.server.address();
      url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    });
    afterAll(() => t?.close());

    const countByType = async (prefix: string) =>
      Object.fromEntries(
        (
          await t.db.query<{ type: string; n: number }>(
            `SELECT type, count(*)::int AS n FROM feedback_events WHERE workspace_id = $1 AND response_id LIKE $2 GROUP BY type`,
            [t.workspaceId, `${prefix}%`],
          )
        ).map((r) => [r.type, r.n]),
      );

    it('OASST: one response per assistant message, one thumbs event per emoji, one review per rank; a re-run adds nothing', async () => {
      const source = oasstFigures();
      expect(source).toMatchObject({ assistants: 687, ranked: 641 }); // the dataset README's figures
      const first = await importFile('oasst', OASST, { url, key: t.secretKey });
      expect(first.errors).toEqual([]);
      expect(first.responses).toEqual({ created: source.assistants, duplicate: 0, rejected: 0 });
      expect(first.events).toEqual({ accepted: source.up + source.down + source.ranked, duplicate: 0, rejected: 0 });
      const [responses] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM responses WHERE workspace_id = $1 AND id LIKE 'oasst:%'`, [t.workspaceId]);
      expect(responses?.n).toBe(source.assistants);
      expect(await countByType('oasst:')).toEqual({ thumbs_up: source.up, thumbs_down: source.down, review: source.ranked });

      // Every vote is its own user's, so the pipeline counts each one: the KTO-relevant thumbs equal the emoji counts.
      await t.services.pipeline.idle(60_000);
      const counted = await t.db.query<{ type: string; n: number }>(
        `SELECT type, count(*)::int AS n FROM feedback_signals WHERE workspace_id = $1 AND status = 'counted' AND type LIKE 'thumbs%' GROUP BY type ORDER BY type`,
        [t.workspaceId],
      );
      expect(counted).toEqual([
        { type: 'thumbs_down', n: source.down },
        { type: 'thumbs_up', n: source.up },
      ]);

      const again = await importFile('oasst', OASST, { url, key: t.secretKey });
      expect(again.responses).toEqual({ created: 0, duplicate: source.assistants, rejected: 0 });
      expect(again.events).toEqual({ accepted: 0, duplicate: source.up + source.down + source.ranked, rejected: 0 });
      expect(await countByType('oasst:')).toEqual({ thumbs_up: source.up, thumbs_down: source.down, review: source.ranked });
    }, 300_000);

    it('HH-RLHF: the corrections give back the original pairs (prompt, chosen, rejected); a re-run adds nothing', async () => {
      const pairs = hhPairs();
      const first = await importFile('hh-rlhf', HH, { url, key: t.secretKey });
      expect(first.errors).toEqual([]);
      expect(first.responses).toEqual({ created: 2 * pairs.length, duplicate: 0, rejected: 0 });

      // The exports' correction rule, applied to what was stored: prompt = query, chosen = corrected, rejected = answer.
      const rows = await t.db.query<{ prompt: string; chosen: string; rejected: string }>(
        `SELECT r.query AS prompt, e.payload->>'corrected' AS chosen, r.answer AS rejected
           FROM feedback_events e JOIN responses r ON r.workspace_id = e.workspace_id AND r.id = e.response_id
          WHERE e.workspace_id = $1 AND e.type = 'correction' AND e.response_id LIKE 'hh-rlhf:%'`,
        [t.workspaceId],
      );
      const replayed = rows.map((r) => JSON.stringify([joinConversation(r.prompt, r.chosen), joinConversation(r.prompt, r.rejected)])).sort();
      // Pairs a correction cannot carry: the conversations differ before the last turn, or the chosen turn is empty.
      const last = (s: string) => s.slice(0, s.lastIndexOf('\n\nAssistant: '));
      const asCorrection = pairs.filter((p) => last(p.chosen) === last(p.rejected) && !p.chosen.endsWith('\n\nAssistant: '));
      expect(asCorrection.length).toBe(2_303); // 2,307 share the prompt (README), 4 of them have an empty chosen turn
      expect(replayed).toEqual(asCorrection.map((p) => JSON.stringify([p.chosen, p.rejected])).sort());
      const others = pairs.length - asCorrection.length;
      expect(await countByType('hh-rlhf:')).toEqual({ correction: asCorrection.length, thumbs_up: others, thumbs_down: others });

      const again = await importFile('hh-rlhf', HH, { url, key: t.secretKey });
      expect(again.responses.created).toBe(0);
      expect(again.events.accepted).toBe(0);
      expect(again.events.duplicate).toBe(asCorrection.length + 2 * others);
    }, 300_000);

    // The round trips through the exports (GET /v1/exports/:format), on the data imported above.
    const exportLines = async (query: string): Promise<Array<Record<string, unknown>>> => {
      const r = await t.app.inject({ method: 'GET', url: `/v1/exports/${query}`, headers: t.auth });
      expect(r.statusCode, r.body).toBe(200);
      return r.body.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    };

    it('the KTO export of the OASST thumbs matches the emoji counts', async () => {
      const rows = await exportLines('trl-kto?agent=oasst&dedup=false');
      const source = oasstFigures();
      expect(rows.filter((r) => r.label === true)).toHaveLength(source.up);
      expect(rows.filter((r) => r.label === false)).toHaveLength(source.down);
    }, 120_000);

    it('the DPO export of the replayed HH-RLHF pairs equals the original pairs', async () => {
      const rows = await exportLines('trl-dpo?agent=hh-rlhf&dedup=false');
      const original = new Set(hhPairs().map((p) => JSON.stringify([p.chosen, p.rejected])));
      const replayed = rows.map((r) => JSON.stringify([joinConversation(String(r.prompt), String(r.chosen)), joinConversation(String(r.prompt), String(r.rejected))]));
      // Every exported pair is an original one, and every pair a correction carries is exported.
      for (const pair of replayed) expect(original.has(pair)).toBe(true);
      expect(new Set(replayed).size).toBeGreaterThanOrEqual(2_303);
    }, 120_000);
  });
}
