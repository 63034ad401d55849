/**
 * `get_note_content` over MCP (`POST /api/mcp`, a JSON-RPC `tools/call` with a bearer token, as an MCP client sends
 * it) against a running gateway, for several notes in turn: each round calls every subject once, in an order that
 * rotates from round to round, so that a slow moment of the shared machine falls on all of them alike.
 */
import { mcpHeaders, toolsCallBody } from '../mcp/requests.ts';
import { percentile } from '../support/stats.ts';

/** One note read in the measurement. */
export interface ReadSubject {
  label: string;
  mappingId: string;
  path: string;
  /** Requests its provider's fake has received so far; undefined for a hosted note. */
  providerRequests?: () => number;
}

/** What one subject measured. */
export interface ReadFigures {
  label: string;
  p50: number;
  p95: number;
  /** Provider requests per read (undefined for a hosted note). */
  requestsPerRead: number | undefined;
  /** The note's contentHash as the last answer gave it (the same for the same content, hosted or remote). */
  contentHash: string;
  /** The revision the last answer gave (a hosted note: its hash; a remote note: the provider's revision). */
  revision: string;
}

interface NoteAnswer {
  result?: { isError?: boolean; structuredContent?: { path?: string; contentHash?: string; revision?: string; content?: string } };
  error?: unknown;
}

/** One call; throws unless the answer is the note's content. */
async function readOnce(url: string, token: string, subject: ReadSubject): Promise<{ contentHash: string; revision: string }> {
  const response = await fetch(`${url}/api/mcp`, {
    method: 'POST',
    headers: mcpHeaders(token),
    body: toolsCallBody('get_note_content', { mappingId: subject.mappingId, path: subject.path }),
  });
  const text = await response.text();
  let answer: NoteAnswer;
  try {
    answer = JSON.parse(text) as NoteAnswer;
  } catch {
    throw new Error(`${subject.label}: not a JSON answer (${response.status}): ${text.slice(0, 200)}`);
  }
  const note = answer.result?.structuredContent;
  if (response.status !== 200 || answer.error !== undefined || answer.result?.isError || note?.path !== subject.path || !note.contentHash || !note.revision) {
    throw new Error(`${subject.label}: unexpected answer ${response.status} ${text.slice(0, 300)}`);
  }
  return { contentHash: note.contentHash, revision: note.revision };
}

/** Calls every subject `warmup` rounds unmeasured, then `rounds` rounds measured; answers each subject's figures. */
export async function measureReads(url: string, token: string, subjects: readonly ReadSubject[], options: { warmup: number; rounds: number }): Promise<ReadFigures[]> {
  const samples = subjects.map(() => [] as number[]);
  const last = subjects.map(() => ({ contentHash: '', revision: '' }));
  const requestsBefore = subjects.map(() => 0);
  for (let round = 0; round < options.warmup + options.rounds; round += 1) {
    if (round === options.warmup) subjects.forEach((s, k) => (requestsBefore[k] = s.providerRequests?.() ?? 0));
    for (let turn = 0; turn < subjects.length; turn += 1) {
      const k = (round + turn) % subjects.length;
      const started = performance.now();
      last[k] = await readOnce(url, token, subjects[k]!);
      if (round >= options.warmup) samples[k]!.push(performance.now() - started);
    }
  }
  return subjects.map((subject, k) => ({
    label: subject.label,
    p50: percentile(samples[k]!, 50),
    p95: percentile(samples[k]!, 95),
    requestsPerRead: subject.providerRequests === undefined ? undefined : (subject.providerRequests() - requestsBefore[k]!) / options.rounds,
    contentHash: last[k]!.contentHash,
    revision: last[k]!.revision,
  }));
}
