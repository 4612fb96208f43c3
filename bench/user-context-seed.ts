/** The user-context benchmarks' user: `size` responses of their own, each with one event of a mix of votes, edits, categories and ratings. */
import type { TestApp } from '../packages/server/test/harness.js';

/**
 * Registers `size` responses for `user` and one feedback event on each, through the API.
 *
 * @example
 * await seedUser(t, 'bench-u2000', 2_000);
 */
export async function seedUser(t: TestApp, user: string, size: number): Promise<void> {
  const types = ['thumbs_down', 'edit', 'error_categories', 'thumbs_up', 'rating'];
  const responses = [];
  for (let i = 0; i < size; i++) responses.push({ id: `${user}-r${i}`, query: `question ${i}`, answer: `Hey! I think the answer is ${i} 🎉\n- one\n- two`, userId: user, queryType: i % 2 ? 'sql' : 'chat' });
  for (let i = 0; i < responses.length; i += 1_000) await t.app.inject({ method: 'POST', url: '/v1/responses/batch', headers: t.auth, payload: { responses: responses.slice(i, i + 1_000) } });
  const events = responses.map((r, i) => {
    const type = types[i % types.length];
    const payload =
      type === 'edit' ? { edited: `The answer is ${i}. One and two.` } : type === 'error_categories' ? { categories: ['hallucination'], comment: 'made up numbers again' } : type === 'rating' ? { rating: 2, comment: 'too verbose' } : {};
    return { responseId: r.id, userId: user, type, payload };
  });
  for (let i = 0; i < events.length; i += 1_000) await t.app.inject({ method: 'POST', url: '/v1/feedback/batch', headers: t.auth, payload: { events: events.slice(i, i + 1_000) } });
}
