-- Schema 15: signed feedback tokens (issue 13). A token is stateless: an HMAC over its claims
-- with this per-workspace secret. The secret is made on first use (NULL until then) and replaced
-- by POST /v1/workspace/feedback-token-secret/rotate, which revokes every token signed before.
ALTER TABLE workspaces ADD COLUMN feedback_token_secret bytea;
