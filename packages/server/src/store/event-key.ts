/**
 * How a committed feedback event is named between the layers: ingest hands these to the
 * pipeline, whose jobs carry them. Below both (issue 25: ingest and pipeline are peers).
 */

/** A feedback event named by its workspace and id. */
export type EventKey = [workspaceId: string, eventId: string];
