-- feedloop schema 31: responses built from traces (issue 26, docs/compat.md).
-- The tracing drop-ins (Langfuse, LangSmith, OpenTelemetry) register a response from a trace that
-- arrives in pieces, and a score may name a trace not seen yet. Such a response is created bare:
-- known by id only, query and answer '' until a piece of its trace gives one. The response list
-- leaves bare responses out; feedback given to one stays attached when its trace completes it.
ALTER TABLE responses ADD COLUMN IF NOT EXISTS bare boolean NOT NULL DEFAULT false;
