/**
 * The alert lifecycle end to end, on the scheduled job (every 50 ms here) and real HTTP receivers
 * in all three formats: negative votes fire the default satisfaction alerts; positive votes that
 * bring satisfaction into the hysteresis band resolve the critical one only (no flapping); more
 * resolve the warning. Every delivery is signed. A second worker on the same database evaluates
 * the same ticks: nothing is notified twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNATURE_HEADER, verifyWebhookSignature } from '../src/emit/webhook-signature.js';
import { eventually, vote } from './alert-helpers.js';
import { BACKENDS, REDIS_URL, redisUp, startTestApp, type TestApp } from './harness.js';
import { SECRET, startReceiver, type Receiver } from './webhook-helpers.js';

const FORMATS = ['feedloop', 'alertmanager', 'slack'] as const;
const PUBLIC_URL = 'https://feedloop.example.com';

interface Seen {
  event: string;
  body: Record<string, unknown>;
}

// Embedded (in-process queue) on both stores, and production (BullMQ repeatable jobs on Redis) on Postgres.
const PROFILES = [
  ...BACKENDS.map((backend) => ({ name: backend.name, available: backend.available, backend, env: {} as Record<string, string> })),
  ...BACKENDS.filter((b) => b.name === 'postgres').map((backend) => ({
    name: 'postgres with BullMQ',
    available: backend.available && redisUp,
    backend,
    env: { REDIS_URL } as Record<string, string>,
  })),
];

/** /metrics carries per-workspace series only for a scraper that holds the token (issue 22). */
const METRICS_TOKEN = 'metrics-token-for-the-alerts-suite';

for (const { name, available, backend, env: profileEnv } of PROFILES) {
  describe.skipIf(!available)(`alert lifecycle end to end on ${name}`, () => {
    let t: TestApp;
    let second: TestApp;
    beforeAll(async () => {
      const env = { FEEDLOOP_METRICS_TOKEN: METRICS_TOKEN, FEEDLOOP_PUBLIC_URL: PUBLIC_URL, FEEDLOOP_ALERT_INTERVAL_SECONDS: '0.05', FEEDLOOP_SWEEP_INTERVAL_SECONDS: '0.2', FEEDLOOP_WEBHOOK_ALLOW_PRIVATE: 'true', ...profileEnv };
      t = await startTestApp(await backend.open(), env, { worker: true });
      // Another process's worker, as far as the database can tell: its own queue and schedule.
      second = await startTestApp({ db: t.db, close: async () => undefined }, env, { worker: true });
    });
    afterAll(async () => {
      await second.close();
      await t.close();
    });

    it('notifies firing, holds inside the hysteresis band, then notifies resolved, in every format', async () => {
      const receivers = new Map<(typeof FORMATS)[number], Receiver>();
      for (const format of FORMATS) {
        const receiver = await startReceiver(() => 200);
        receivers.set(format, receiver);
        const res = await t.app.inject({
          method: 'POST',
          url: '/v1/webhooks',
          headers: t.auth,
          payload: { url: receiver.url, events: ['alert.firing', 'alert.resolved'], secret: SECRET, format },
        });
        expect(res.statusCode).toBe(201);
      }
      const seen = (format: (typeof FORMATS)[number]): Seen[] =>
        (receivers.get(format)?.requests ?? []).map((r) => {
          // Every body is signed with the webhook's secret, whatever its format.
          expect(verifyWebhookSignature(SECRET, r.body, r.headers[SIGNATURE_HEADER.toLowerCase()] as string)).toBe(true);
          return { event: String(r.headers['x-feedloop-event']), body: JSON.parse(r.body) as Record<string, unknown> };
        });
      // This workspace's feedloop_alerts_active series on /metrics, its other labels sorted.
      const activeAlertSeries = async (): Promise<string[]> => {
        // Per-workspace series are served with the metrics token only (issue 22).
        const text = (await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).body;
        return text
          .split('\n')
          .filter((line) => line.startsWith('feedloop_alerts_active{') && line.includes(`workspace="${t.workspaceId}"`) && line.endsWith(' 1'))
          .map((line) => (line.slice(line.indexOf('{') + 1, line.indexOf('}')).split(',').filter((l) => !l.startsWith('workspace=')).sort().join(',')))
          .sort();
      };
      const waitFor = (count: number) =>
        eventually(async () => (FORMATS.every((f) => seen(f).length >= count) ? true : undefined), 30_000, `${count} deliveries per webhook`);

      // 30 negatives: satisfaction 0 %, under both default levels.
      await vote(t, t.auth, 30, 'thumbs_down');
      await waitFor(2);
      // Prometheus sees the open alerts too, one series each.
      expect(await eventually(async () => ((await activeAlertSeries()).length === 2 ? await activeAlertSeries() : undefined), 30_000, 'two active-alert series')).toEqual([
        `rule="satisfaction-critical",severity="critical",state="firing"`,
        `rule="satisfaction-warning",severity="warning",state="firing"`,
      ]);
      for (const format of FORMATS) expect(seen(format).map((s) => s.event)).toEqual(['alert.firing', 'alert.firing']);
      const feedloop = seen('feedloop').map((s) => s.body);
      expect(feedloop.map((b) => (b.data as { ruleId: string }).ruleId).sort()).toEqual(['satisfaction-critical', 'satisfaction-warning']);
      expect(feedloop[0]).toMatchObject({ type: 'alert.firing', workspaceId: t.workspaceId, data: { state: 'firing', metric: 'satisfaction_rate', value: 0, sample: 30 } });
      const am = seen('alertmanager')[0]?.body as Record<string, unknown>;
      expect(am).toMatchObject({
        version: '4',
        status: 'firing',
        receiver: expect.stringMatching(/^wh_/),
        groupLabels: { alertname: expect.stringMatching(/^satisfaction-/) },
        commonLabels: { severity: expect.any(String), workspace: t.workspaceId },
        commonAnnotations: { summary: expect.stringContaining('Satisfaction 0 % is below') },
        externalURL: PUBLIC_URL,
      });
      expect(am.groupKey).toEqual(expect.any(String));
      expect(am.alerts).toEqual([
        {
          status: 'firing',
          labels: expect.objectContaining({ alertname: expect.any(String) }),
          annotations: expect.objectContaining({ summary: expect.any(String) }),
          startsAt: expect.stringMatching(/^\d{4}-/),
          endsAt: '0001-01-01T00:00:00Z',
          generatorURL: expect.stringMatching(/^https:\/\/feedloop\.example\.com\/v1\/alerts\/al_/),
          fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/),
        },
      ]);
      // The generatorURL is the alert's own page in the API.
      const link = new URL((am.alerts as Array<{ generatorURL: string; labels: { alertname: string } }>)[0]!.generatorURL);
      const linked = await t.app.inject({ method: 'GET', url: link.pathname, headers: t.auth });
      expect(linked.statusCode).toBe(200);
      expect(linked.json()).toMatchObject({ state: 'firing', ruleId: (am.alerts as Array<{ labels: { alertname: string } }>)[0]!.labels.alertname });
      const unknown = await t.app.inject({ method: 'GET', url: '/v1/alerts/al_nope', headers: t.auth });
      expect([unknown.statusCode, unknown.json().error.code]).toEqual([404, 'FEEDLOOP_ERR_ALERT_NOT_FOUND']);
      const slack = seen('slack')[0]?.body as { text: string; blocks: Array<{ type: string }> };
      expect(slack.text).toMatch(/^Firing \[(warning|critical)\] satisfaction-/);
      expect(slack.blocks.map((b) => b.type)).toEqual(['header', 'section', 'section', 'context']);

      // 75 positives: 75 / 105 = 71.43 %. Above 55 %: the critical one resolves. Above 70 % but
      // below 75 %: the warning stays firing (hysteresis), through many evaluations.
      await vote(t, t.auth, 75, 'thumbs_up');
      await waitFor(3);
      // Until an evaluation has seen all 75 (processing may take a few ticks on a busy machine).
      const stillFiring = await eventually(async () => {
        const [alert] = (await t.app.inject({ method: 'GET', url: '/v1/alerts', headers: t.auth })).json().alerts;
        return alert?.value === 71.43 ? alert : undefined;
      }, 30_000, 'an evaluation of all 105 votes');
      expect(stillFiring).toMatchObject({ ruleId: 'satisfaction-warning', state: 'firing', value: 71.43 });
      for (const format of FORMATS) expect(seen(format).map((s) => s.event)).toEqual(['alert.firing', 'alert.firing', 'alert.resolved']);
      expect((seen('feedloop')[2]?.body.data as { ruleId: string; value: number }).ruleId).toBe('satisfaction-critical');

      // 15 more: 90 / 120 = 75 %, past 70 % + 5: the warning resolves.
      await vote(t, t.auth, 15, 'thumbs_up');
      await waitFor(4);
      for (const format of FORMATS) expect(seen(format).map((s) => s.event)).toEqual(['alert.firing', 'alert.firing', 'alert.resolved', 'alert.resolved']);
      const amResolved = seen('alertmanager')[3]?.body as { status: string; alerts: Array<{ status: string; endsAt: string; fingerprint: string }> };
      expect(amResolved.status).toBe('resolved');
      expect(amResolved.alerts[0]?.endsAt).not.toBe('0001-01-01T00:00:00Z');
      // Resolved carries the fingerprint it fired with.
      const firedWarning = seen('alertmanager')
        .slice(0, 2)
        .map((s) => s.body as { alerts: Array<{ fingerprint: string; labels: { alertname: string } }> })
        .find((b) => b.alerts[0]?.labels.alertname === 'satisfaction-warning');
      expect(amResolved.alerts[0]?.fingerprint).toBe(firedWarning?.alerts[0]?.fingerprint);
      expect((seen('slack')[3]?.body as { text: string }).text).toMatch(/^Resolved \[warning\] satisfaction-warning/);
      expect((await t.app.inject({ method: 'GET', url: '/v1/alerts', headers: t.auth })).json().alerts).toEqual([]);
      await eventually(async () => ((await activeAlertSeries()).length === 0 ? true : undefined), 30_000, 'no active-alert series once resolved');
      expect((await t.app.inject({ method: 'GET', url: '/v1/alerts?state=resolved', headers: t.auth })).json().alerts).toHaveLength(2);
      // Both workers kept evaluating: still nothing notified twice.
      await new Promise((resolve) => setTimeout(resolve, 500));
      for (const format of FORMATS) expect(seen(format)).toHaveLength(4);
    });
  });
}
