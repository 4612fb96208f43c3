import { describe, expect, it } from 'vitest';
import {
  scoreConfigOfLangSmith,
  assembleLangSmithMultipart,
  checkLangSmithFeedbackConfig,
  langSmithCorrectionText,
  langSmithFeedbackEvents,
  langSmithFeedbackState,
  langSmithInputText,
  langSmithOutputText,
  langSmithRunSchema,
  langSmithTime,
  mapLangSmithRun,
  updatedLangSmithFeedback,
} from '../src/index.js';

const run = (r: Record<string, unknown>) => langSmithRunSchema.parse(r);

describe('LangSmith run text', () => {
  it('reads the query from question, input, query, a message list, else compact JSON', () => {
    expect(langSmithInputText({ question: 'What is feedloop?', input: 'other' })).toBe('What is feedloop?');
    expect(langSmithInputText({ input: 'Hi' })).toBe('Hi');
    expect(langSmithInputText({ query: { role: 'user', content: 'Q' } })).toBe('Q');
    expect(
      langSmithInputText({ messages: [{ role: 'system', content: 'Be brief' }, { role: 'user', content: 'first' }, { role: 'assistant', content: 'a' }, { role: 'user', content: [{ type: 'text', text: 'last' }] }] }),
    ).toBe('last');
    // LangChain's batch form of serialized messages.
    expect(langSmithInputText({ messages: [[{ lc: 1, type: 'constructor', id: ['langchain', 'schema', 'messages', 'HumanMessage'], kwargs: { content: 'lc q' } }]] })).toBe('lc q');
    expect(langSmithInputText({ a: 1, b: [2] })).toBe('{"a":1,"b":[2]}');
    expect(langSmithInputText({})).toBeUndefined();
    expect(langSmithInputText(undefined)).toBeUndefined();
  });

  it('reads the answer from answer, output, text, outputs, a generation, a choice, a message, else compact JSON', () => {
    expect(langSmithOutputText({ answer: 'A', output: 'B' })).toBe('A');
    expect(langSmithOutputText({ outputs: 'wrapped string' })).toBe('wrapped string');
    expect(langSmithOutputText({ generations: [[{ text: 'gen' }]] })).toBe('gen');
    expect(langSmithOutputText({ generations: [[{ text: '', message: { lc: 1, id: ['x', 'AIMessage'], kwargs: { content: 'msg' } } }]] })).toBe('msg');
    expect(langSmithOutputText({ choices: [{ message: { role: 'assistant', content: 'choice' } }] })).toBe('choice');
    expect(langSmithOutputText({ role: 'assistant', content: 'direct' })).toBe('direct');
    expect(langSmithOutputText({ output: { content: 'nested message' } })).toBe('nested message');
    expect(langSmithOutputText({ score: 3 })).toBe('{"score":3}');
  });
});

describe('mapLangSmithRun', () => {
  it('maps a root run onto its response: query, answer, model, user, session, experiment, tags, time', () => {
    const m = mapLangSmithRun(
      run({
        id: 'root-1',
        trace_id: 'root-1',
        name: 'rag',
        run_type: 'chain',
        inputs: { question: 'Q?' },
        outputs: { answer: 'A.' },
        extra: { metadata: { ls_model_name: 'gpt-x', user_id: 'u1', thread_id: 't1', experimentId: 'exp', variant: 'B', revision_id: 'r', team: 'x' } },
        tags: ['prod'],
        start_time: 1_700_000_000_000,
        session_name: 'default',
      }),
    );
    expect(m).toEqual({
      runId: 'root-1',
      traceId: 'root-1',
      root: true,
      fields: {
        query: 'Q?',
        answer: 'A.',
        model: 'gpt-x',
        userId: 'u1',
        sessionId: 't1',
        experimentId: 'exp',
        variant: 'B',
        tags: ['prod'],
        createdAt: '2023-11-14T22:13:20.000Z',
        metadata: { langsmith: { name: 'rag', runType: 'chain', project: 'default', metadata: { experimentId: 'exp', variant: 'B', user_id: 'u1', thread_id: 't1', team: 'x' } } },
      },
    });
  });

  it('gives a child llm run its trace and model only; a patch without its trace uses the recorded one', () => {
    expect(mapLangSmithRun(run({ id: 'c1', trace_id: 'root-1', parent_run_id: 'root-1', run_type: 'llm', inputs: { messages: [] }, extra: { invocation_params: { model: 'gpt-4o' } } }))).toEqual({
      runId: 'c1',
      traceId: 'root-1',
      root: false,
      fields: {},
      childModel: 'gpt-4o',
    });
    expect(mapLangSmithRun(run({ id: 'c1', outputs: { text: 'x' } }), 'root-1')).toMatchObject({ traceId: 'root-1', root: false, fields: {} });
    expect(mapLangSmithRun(run({ id: 'c2', trace_id: 'root-1', parent_run_id: 'root-1', run_type: 'tool' })).childModel).toBeUndefined();
  });

  it('leaves ids that feedloop cannot hold in the metadata only', () => {
    const m = mapLangSmithRun(run({ id: 'r', extra: { metadata: { user_id: 'has spaces in it', session_id: 42 } } }));
    expect(m.fields.userId).toBeUndefined();
    expect(m.fields.sessionId).toBe('42');
  });

  it('reads run times in both SDKs forms', () => {
    expect(langSmithTime('2026-11-27T10:00:00.123456')).toBe('2026-11-27T10:00:00.123Z');
    expect(langSmithTime('2026-11-27T10:00:00+02:00')).toBe('2026-11-27T08:00:00.000Z');
    expect(langSmithTime('not a time')).toBeUndefined();
  });
});

describe('LangSmith feedback', () => {
  const target = { responseId: 'resp', runId: 'child', feedbackId: 'f1', eventId: 'f1' };

  it('makes a score named by the key, with the comment, and a correction', () => {
    const state = langSmithFeedbackState({ key: 'user_score', score: 1, comment: 'good', correction: { output: 'better' } });
    expect(langSmithFeedbackEvents(state, target)).toEqual([
      { id: 'f1', responseId: 'resp', type: 'score', payload: { name: 'user_score', value: 1, comment: 'good' }, metadata: { source: 'api', langsmith: { feedbackId: 'f1', runId: 'child', key: 'user_score', source: 'api' } } },
      { id: 'f1:correction', responseId: 'resp', type: 'correction', payload: { corrected: 'better' }, metadata: { source: 'api', langsmith: { feedbackId: 'f1', runId: 'child', key: 'user_score', source: 'api' } } },
    ]);
  });

  it('maps booleans to 1/0, a string value to stringValue, a comment alone to a comment, a correction alone to a correction', () => {
    expect(langSmithFeedbackEvents(langSmithFeedbackState({ key: 'thumbs', score: false }), target)[0]).toMatchObject({ type: 'score', payload: { name: 'thumbs', value: 0 } });
    expect(langSmithFeedbackEvents(langSmithFeedbackState({ key: 'tone', value: 'formal' }), target)[0]).toMatchObject({ payload: { name: 'tone', stringValue: 'formal' } });
    expect(langSmithFeedbackEvents(langSmithFeedbackState({ key: 'note', comment: 'hm' }), target)).toEqual([expect.objectContaining({ id: 'f1', type: 'comment', payload: { comment: 'hm' } })]);
    expect(langSmithFeedbackEvents(langSmithFeedbackState({ key: 'fix', correction: 'right text' }), target)).toEqual([expect.objectContaining({ id: 'f1', type: 'correction' })]);
    expect(langSmithFeedbackEvents(langSmithFeedbackState({ key: 'seen' }), target)).toEqual([]);
  });

  it("names a model's feedback a judge's", () => {
    const events = langSmithFeedbackEvents(langSmithFeedbackState({ key: 'groundedness', score: 0.5, feedback_source: { type: 'model' } }), target);
    expect(events[0]?.metadata).toMatchObject({ source: 'judge', langsmith: { source: 'model' } });
  });

  it('replaces only the fields an update sends', () => {
    const state = langSmithFeedbackState({ key: 'k', score: 1, comment: 'c' });
    expect(updatedLangSmithFeedback(state, { score: 0, comment: null })).toMatchObject({ score: 0, comment: 'c' });
  });

  it('checks a score against its feedback config', () => {
    expect(checkLangSmithFeedbackConfig({ score: 0.5, value: null }, { type: 'continuous', min: 0, max: 1 })).toBeUndefined();
    expect(checkLangSmithFeedbackConfig({ score: 2, value: null }, { type: 'continuous', min: 0, max: 1 })).toMatchObject({ field: 'score' });
    expect(checkLangSmithFeedbackConfig({ score: null, value: 3 }, { type: 'categorical', categories: [{ value: 1 }, { value: 2 }] })).toMatchObject({ field: 'value' });
    expect(langSmithCorrectionText({ foo: 1 })).toBe('{"foo":1}');
  });
});

describe('assembleLangSmithMultipart', () => {
  it("puts the Python SDK's parts back together and refuses what it cannot read", () => {
    const out = assembleLangSmithMultipart([
      { name: 'post.r1', text: '{"id":"r1","name":"chain","trace_id":"r1"}' },
      { name: 'post.r1.inputs', text: '{"question":"Q"}' },
      { name: 'patch.r1', text: '{"id":"r1","trace_id":"r1"}' },
      { name: 'patch.r1.outputs', text: '{"answer":"A"}' },
      { name: 'feedback.f1', text: '{"run_id":"r1","key":"user_score","score":1}' },
      { name: 'attachment.r1.img', text: 'binary' },
      { name: 'post.r2.inputs', text: '{}' },
      { name: 'post.r3', text: 'not json' },
      { name: 'other.x', text: '{}' },
    ]);
    expect(out.post).toEqual([{ id: 'r1', name: 'chain', trace_id: 'r1', inputs: { question: 'Q' } }]);
    expect(out.patch).toEqual([{ id: 'r1', trace_id: 'r1', outputs: { answer: 'A' } }]);
    expect(out.feedback).toEqual([{ id: 'f1', run_id: 'r1', key: 'user_score', score: 1 }]);
    expect(out.attachments).toBe(1);
    expect(out.refused.map((r) => r.part).sort()).toEqual(['other.x', 'post.r2.inputs', 'post.r3']);
  });
});

describe('a LangSmith feedback config as a score config', () => {
  it('keeps continuous bounds and categorical values; freeform and refused configs give none', () => {
    expect(scoreConfigOfLangSmith('correctness', { type: 'continuous', min: 0, max: 1 })).toMatchObject({ name: 'correctness', dataType: 'numeric', min: 0, max: 1 });
    expect(scoreConfigOfLangSmith('tone', { type: 'categorical', categories: [{ value: 0, label: 'rude' }, { value: 1 }] })).toMatchObject({
      dataType: 'categorical',
      categories: [{ value: 0, label: 'rude' }, { value: 1, label: '1' }],
    });
    expect(scoreConfigOfLangSmith('note', { type: 'freeform' })).toBeUndefined();
    expect(scoreConfigOfLangSmith('backwards', { type: 'continuous', min: 5, max: 1 })).toBeUndefined();
  });
});
