/**
 * How the knowledge pages show what every record carries: its evidence (a link to the lines in the note view), the
 * time this replica came to know it, and the way to a further page of a bounded read.
 */
import { html, showDate, type SafeHtml } from './layout.ts';
import { evidenceUrl } from './knowledge-urls.ts';

/** The query parameter that carries a domain cursor to the next page. */
export const CURSOR_PARAM = 'after';

/** Where a record comes from, as every knowledge read answers it (EvidenceSchema). */
export interface EvidenceView {
  path: string;
  lines: readonly number[];
  blockId?: string | undefined;
}

/** A record's evidence: the note, linked at the line where the record starts, its line range and block id. */
export function evidenceLink(mappingId: string, evidence: EvidenceView): SafeHtml {
  const [first = 1, last = first] = evidence.lines;
  const lines = first === last ? `line ${first}` : `lines ${first}–${last}`;
  return html`<a href="${evidenceUrl(mappingId, evidence)}">${evidence.path}</a> <span class="muted">${lines}${evidence.blockId ? html` · <code>^${evidence.blockId}</code>` : ''}</span>`;
}

/**
 * When this replica came to know a version (its observation receipt). Content stored before receipts existed has
 * none: its earlier availability is unknown, and the page says so rather than guess (docs/knowledge.md).
 */
export function knownTime(knownFrom: string | null): SafeHtml {
  return knownFrom === null ? html`<span class="muted">known time unavailable</span>` : showDate(new Date(knownFrom));
}

/** A date a note states (YYYY-MM-DD), or a dash. */
export function noteDate(date: string | null): SafeHtml {
  return date === null ? html`<span class="muted">–</span>` : html`<time datetime="${date}">${date}</time>`;
}

/** A timestamp or a note's date, whichever it is, or a dash. */
export function pointInTime(value: string | null): SafeHtml {
  if (value === null) return noteDate(null);
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? noteDate(value) : showDate(new Date(value));
}

/**
 * The end of a page of a bounded read: a link to the next one when the read was cut, which also says that what is
 * shown is not all there is (spec 4.3 rule 9).
 */
export function morePage(truncated: boolean, nextUrl: string | undefined, what: string): SafeHtml | string {
  if (!truncated || nextUrl === undefined) return '';
  return html`<p class="warning">There are more ${what} than this page shows. <a href="${nextUrl}" rel="next">More ${what}</a></p>`;
}

/** The cursor of the page asked for, if any (the domain refuses one it did not make with `invalid_request`). */
export function cursorOf(query: string | undefined): { cursor?: string } {
  return query ? { cursor: query } : {};
}
