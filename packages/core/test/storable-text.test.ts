import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  escapeUnstorable,
  findUnstorable,
  mapRagFeedbackEntry,
  mapRlhfEvent,
  unstorableReason,
  validateFeedbackEvent,
  validateResponse,
} from '../src/index.js';

/** Reference: what Postgres takes is NUL-free, well-formed UTF-16 (encodeURIComponent throws on a lone surrogate). */
function storableByReference(s: string): boolean {
  if (s.includes('\u0000')) return false;
  try {
    encodeURIComponent(s);
    return true;
  } catch {
    return false;
  }
}

/** Any UTF-16 string, lone surrogates and NULs included. */
const anyString = fc.string({ unit: 'binary', maxLength: 40 });
const badChar = fc.constantFrom('\u0000', '\ud800', '\udbff', '\udc00', '\udfff');

describe('storable text', () => {
  it('agrees with the reference on any UTF-16 string', () => {
    fc.assert(
      fc.property(anyString, (s) => {
        expect(unstorableReason(s) === undefined).toBe(storableByReference(s));
      }),
      { numRuns: 5_000 },
    );
  });

  it('accepts every valid surrogate pair (emoji) and plain text', () => {
    expect(unstorableReason('héllo \ud83d\ude00 \u{10ffff}')).toBeUndefined();
    expect(unstorableReason('\ud83d\ude00\ud83d')).toMatch(/lone UTF-16 surrogate/);
    expect(unstorableReason('\ude00\ud83d\ude00')).toMatch(/lone UTF-16 surrogate/);
    expect(unstorableReason('a\u0000b')).toMatch(/NUL/);
  });

  it('finds nothing in JSON values made only of storable strings', () => {
    const storableJson = fc.json({ depthSize: 'small' }).map((t) => JSON.parse(t) as unknown);
    fc.assert(
      fc.property(storableJson, (v) => {
        // fc.json's strings may hold lone surrogates; the finder must then agree they do.
        const anyBad = JSON.stringify(v).match(/\\u0000|\\ud[89a-f][0-9a-f]{2}/i) !== null;
        expect(findUnstorable(v) !== undefined).toBe(anyBad);
      }),
      { numRuns: 1_000 },
    );
  });

  it('finds a bad character planted anywhere, in a value or a key, at its path', () => {
    const leaf = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null));
    const tree = fc.letrec<{ node: unknown }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc.array(tie('node'), { maxLength: 4 }),
        fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), tie('node'), { maxKeys: 4 }),
      ),
    })).node;
    fc.assert(
      fc.property(tree, fc.nat(), badChar, fc.boolean(), (root, pick, bad, inKey) => {
        // Collect the places a string can go, choose one, plant the bad character there.
        const slots: Array<{ parent: Record<string, unknown> | unknown[]; key: string | number; path: Array<string | number> }> = [];
        const walk = (v: unknown, path: Array<string | number>) => {
          if (Array.isArray(v)) v.forEach((c, i) => (slots.push({ parent: v, key: i, path: [...path, i] }), walk(c, [...path, i])));
          else if (v !== null && typeof v === 'object') {
            for (const [k, c] of Object.entries(v)) {
              slots.push({ parent: v as Record<string, unknown>, key: k, path: [...path, k] });
              walk(c, [...path, k]);
            }
          }
        };
        const wrapper = { root: structuredClone(root) as unknown };
        walk(wrapper, []);
        const slot = slots[pick % slots.length];
        if (!slot) return;
        const { parent, key } = slot;
        if (inKey && !Array.isArray(parent)) {
          const value = (parent as Record<string, unknown>)[key as string];
          delete (parent as Record<string, unknown>)[key as string];
          (parent as Record<string, unknown>)[`${String(key)}${bad}`] = value;
          const found = findUnstorable(wrapper);
          expect(found?.path).toEqual([...slot.path.slice(0, -1), escapeUnstorable(`${String(key)}${bad}`)]);
          expect(found?.reason).toMatch(/^the key holds/);
        } else {
          (parent as Record<string | number, unknown>)[key] = `x${bad}y`;
          const found = findUnstorable(wrapper);
          expect(found?.path).toEqual(slot.path);
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('walks very deep nesting without overflowing the stack', () => {
    let deep: unknown = 'a\u0000';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(findUnstorable(deep)?.path).toHaveLength(200_000);
  });

  it('escapes bad characters of a key as \\uXXXX text', () => {
    expect(escapeUnstorable('k\u0000\ud800\ud83d\ude00')).toBe('k\\u0000\\ud800\ud83d\ude00');
  });
});

describe('validation refuses unstorable text, naming the field', () => {
  const expectUnstorable = (result: { ok: boolean; error?: { code: string; field?: string } }, field: string) => {
    expect(result.ok).toBe(false);
    expect(result.error?.code).toBe('FEEDLOOP_ERR_VALIDATION_UNSTORABLE');
    expect(result.error?.field).toBe(field);
  };

  it('feedback events: payload strings, metadata keys and values, nested', () => {
    expectUnstorable(validateFeedbackEvent({ responseId: 'r', type: 'thumbs_down', payload: { comment: 'bad\u0000' } }), 'payload.comment');
    expectUnstorable(validateFeedbackEvent({ responseId: 'r', type: 'skip', metadata: { 'k\ud800': 1 } }), 'metadata.k\\ud800');
    expectUnstorable(validateFeedbackEvent({ responseId: 'r', type: 'skip', metadata: { a: [{ b: 'x\udfff' }] } }), 'metadata.a[0].b');
    expect(validateFeedbackEvent({ responseId: 'r', type: 'thumbs_down', payload: { comment: 'ok \ud83d\ude00' } }).ok).toBe(true);
  });

  it('responses: query, answer, sources, metadata keys', () => {
    expectUnstorable(validateResponse({ query: 'q\u0000', answer: 'a' }), 'query');
    expectUnstorable(validateResponse({ query: 'q', answer: '\ud800' }), 'answer');
    expectUnstorable(validateResponse({ query: 'q', answer: 'a', sources: ['s', 'x\u0000'] }), 'sources[1]');
    expectUnstorable(validateResponse({ query: 'q', answer: 'a', metadata: { '\u0000': 'v' } }), 'metadata.\\u0000');
  });

  it('the seeds\' events name the seeds\' own fields', () => {
    expectUnstorable(mapRlhfEvent({ response_id: 'r', feedback_type: 'correction', data: { corrected_sql: 'SELECT \u0000' } }), 'data.corrected_sql');
    expectUnstorable(mapRlhfEvent({ response_id: 'r', feedback_type: 'thumbs_up', tenant_id: 't\ud800' }), 'tenant_id');
    expectUnstorable(mapRlhfEvent({ response_id: 'r', feedback_type: 'implicit_accept', data: { 'k\u0000': 1 } }), 'data.k\\u0000');
    expectUnstorable(mapRagFeedbackEntry({ queryId: 'q', rating: 'negative', comment: 'c\u0000' }), 'comment');
    expectUnstorable(mapRagFeedbackEntry({ queryId: 'q', rating: 'negative', query: 'q\ud800' }), 'query');
  });
});
