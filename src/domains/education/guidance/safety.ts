/**
 * The safety checks of learner guidance (docs/education.md, "Student guidance: what the checks catch"): a model's
 * text is withheld when it would reveal the activity's answer, link out of the platform, or open a direct channel
 * to someone. Pure and deterministic: the same text and answer key always give the same verdict. The checks are
 * deliberately wide (a false alarm shows the learner our safe fallback; a miss shows them the answer or a contact),
 * and they only read text: what they cannot see is listed in the documentation.
 */
import { containsTokens, normalizedTokens, spellsTokens } from './normalize.ts';

/** The version of these checks, named in every safety receipt; raised whenever what they catch changes. */
export const GUIDANCE_SAFETY_VERSION = 'student-guidance-safety/1';

/** The checks, in the order they run. */
export const SAFETY_CHECKS = ['answer_revelation', 'external_links', 'direct_messaging'] as const;
/** See SAFETY_CHECKS. */
export type SafetyCheck = (typeof SAFETY_CHECKS)[number];

/** Why a text was withheld: one code per failed check. */
export const WITHHELD_REASONS = ['answer_revealed', 'external_link', 'direct_messaging'] as const;
/** See WITHHELD_REASONS. */
export type WithheldReason = (typeof WITHHELD_REASONS)[number];

const REASON_OF: Readonly<Record<SafetyCheck, WithheldReason>> = {
  answer_revelation: 'answer_revealed',
  external_links: 'external_link',
  direct_messaging: 'direct_messaging',
};

/** The outcome of every check over one text. Never holds the text or what matched (that could be the answer). */
export interface SafetyVerdict {
  checks: Array<{ check: SafetyCheck; passed: boolean }>;
  /** The reasons of the failed checks, in check order; empty when every check passed. */
  reasons: WithheldReason[];
  withheld: boolean;
}

// A window this long of a long answer key appearing in a text reveals it, even when the rest is reworded.
const ANSWER_WINDOW = 5;

/** Lowercase, accents removed: the form the pattern checks read. */
function folded(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
}

// The verbs of choosing, matched in either case of their first letter (the letter after them must be a capital).
const CHOOSING = ['pick', 'choose', 'select', 'circle', 'mark', 'go with'].map((verb) => `[${verb[0]!.toUpperCase()}${verb[0]!}]${verb.slice(1)}`).join('|');

/**
 * Whether a one-letter answer (a multiple-choice key such as "B") is given: the letter named as the answer, option,
 * choice or letter, "(b)", a line starting "b)" or "b.", or "choose B" with the capital letter. A bare letter is
 * not enough, or every "a" would withhold.
 */
function namesChoiceLetter(text: string, letter: string): boolean {
  const lower = folded(text);
  const l = letter.toLowerCase();
  const named = new RegExp(`\\b(?:answer|option|choice|letter)\\s*(?:is|was|would be|should be|must be|=|:)?\\s*[("'\\[]?${l}(?![\\p{L}\\p{N}])`, 'u');
  const bracketed = new RegExp(`\\(${l}\\)`);
  const listed = new RegExp(`(?:^|\\n)\\s*${l}[).:](?=\\s|$)`);
  const chosen = new RegExp(`\\b(?:${CHOOSING})\\s+(?:option\\s+|choice\\s+|letter\\s+)?[("']?${letter.toUpperCase()}(?![\\p{L}\\p{N}])`, 'u');
  return named.test(lower) || bracketed.test(lower) || listed.test(lower) || chosen.test(text.normalize('NFKD'));
}

/**
 * Whether the text reveals an entry of the answer key: the entry's normalized tokens (case, spacing, punctuation,
 * accents and number spelling aside) appear in the text's, in order, or consecutive tokens of the text spell them
 * joined ("photo synthesis", "p-h-o-t-o-s-y-n-t-h-e-s-i-s"); for an entry longer than five tokens, any five
 * of its consecutive tokens do; a one-letter entry is checked as a multiple-choice key.
 */
export function revealsAnswer(text: string, answerKey: readonly string[]): boolean {
  const tokens = normalizedTokens(text);
  for (const entry of answerKey) {
    const key = normalizedTokens(entry);
    if (key.length === 0) continue;
    if (key.length === 1 && /^\p{L}$/u.test(key[0]!)) {
      if (namesChoiceLetter(text, key[0]!)) return true;
      continue;
    }
    // The key's words, in order, or written with their spaces, hyphens or dots moved ("photo-synthesis", "x=7").
    if (containsTokens(tokens, key) || spellsTokens(tokens, key.join(''))) return true;
    for (let i = 0; key.length > ANSWER_WINDOW && i + ANSWER_WINDOW <= key.length; i += 1) {
      if (containsTokens(tokens, key.slice(i, i + ANSWER_WINDOW))) return true;
    }
  }
  return false;
}

// Top-level domains common enough in links to be worth naming; a word.word of anything else ("e.g.", "3.5",
// "index.html") is not taken for a domain.
const TLDS = [
  'com', 'org', 'net', 'edu', 'gov', 'mil', 'int', 'io', 'co', 'ai', 'ly', 'me', 'app', 'dev', 'info', 'biz', 'xyz',
  'tv', 'gg', 'us', 'uk', 'ca', 'au', 'de', 'fr', 'es', 'it', 'nl', 'in', 'jp', 'cn', 'ru', 'br', 'mx', 'site',
  'online', 'link', 'page', 'club', 'live', 'store', 'shop', 'blog', 'fun', 'games', 'tk', 'ws', 'cc', 'to', 'be',
];
const TLD = `(?:${TLDS.join('|')})`;
const SPELLED_TLD = '(?:com|org|net|edu|gov|io)';
// E-mail addresses, also spelled out: "name at example dot com", "name (at) example dot com".
const EMAIL_PATTERNS: readonly RegExp[] = [
  /[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}/u,
  /\b[a-z0-9._-]+\s*[([]\s*at\s*[)\]]\s*[a-z0-9-]+(?:\s*(?:\.|[([]?\s*dot\s*[)\]]?)\s*[a-z]{2,})*/u,
  // Spelled with "dot" only: "more at example.org" is a link, not an address.
  new RegExp(`\\b[a-z0-9._-]+\\s+at\\s+[a-z0-9-]+\\s*[([]?\\s*dot\\s*[)\\]]?\\s*${SPELLED_TLD}\\b`, 'u'),
];

const LINK_PATTERNS: readonly RegExp[] = [
  // A scheme: https://, http://, ftp://, and any other.
  /\b[a-z][a-z0-9+.-]{1,15}:\/\//,
  /\bwww\d{0,3}\s*(?:\.|\bdot\b)/,
  // A host name: label.label.tld.
  new RegExp(`\\b(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)+${TLD}(?![\\p{L}\\p{N}-])`, 'u'),
  // A host name spelled out: "example dot com", "example [dot] org" (the few endings nobody says otherwise: "a dot
  // to mark" and "polka dot in" are not links).
  new RegExp(`\\b[a-z0-9-]+\\s*[([]?\\s*dot\\s*[)\\]]?\\s*${SPELLED_TLD}\\b`),
  // Markup links.
  /\]\(\s*[^)\s]/,
  /<\s*a\s[^>]*href/,
  /\bhref\s*=/,
  // Invitations to follow a link or visit a site.
  /\bclick\s+(?:on\s+)?(?:here|this|the\s+link|that\s+link|below)\b/,
  /\b(?:follow|open|use)\s+(?:this|the|that|my)\s+link\b/,
  /\b(?:visit|go\s+to|check\s+out|look\s+at)\s+(?:this|the|that|my|our)\s+(?:web\s*site|site|page|link|channel|video)\b/,
];

/** Whether the text links out: a URL, a host name (also spelled with "dot"), "www.", markup links, "click here". */
export function linksOut(text: string): boolean {
  // An e-mail address is a direct channel (messagesDirectly), not a link: its domain alone does not count twice.
  const lower = EMAIL_PATTERNS.reduce((rest, pattern) => rest.replace(new RegExp(pattern.source, 'gu'), ' '), folded(text));
  return LINK_PATTERNS.some((pattern) => pattern.test(lower));
}

const CONTACT_PATTERNS: readonly RegExp[] = [
  ...EMAIL_PATTERNS,
  // Phone numbers: +44 20 7946 0958, (555) 123-4567, 555-123-4567, 555.123.4567; one separator between groups, so
  // that arithmetic ("+100 - 20 - 30") is not a number. Seven digits alone (555-1234) look like subtraction: not caught.
  /\+\d{1,3}[\s.-]?\(?\d{1,4}\)?(?:[\s.-]?\d{2,4}){2,4}\b/,
  /(?:\(\d{3}\)\s?|\b\d{3}[\s.-])\d{3}[\s.-]\d{4}\b/,
  // Handles: @name.
  /(?:^|[\s(:,])@[a-z0-9_][a-z0-9_.]{1,}/,
  // Asking to be contacted, or moving the talk elsewhere.
  /\b(?:dm|pm|message|msg|text|txt|call|phone|ring|email|e-mail|mail|ping|contact|whatsapp|snap|friend|follow|add|write\s+to|reach)\s+me\b/,
  /\breach\s+out\s+to\s+me\b/,
  /\bsend\s+me\s+(?:a\s+)?(?:message|dm|text|email|e-mail|note|photo|picture|pic)\b/,
  /\b(?:find|follow|add)\s+me\s+on\b/,
  /\bdirect(?:ly)?\s+messag/,
  /\bprivate(?:ly)?\s+(?:message|messaging|chat|talk|conversation)\b/,
  /\bmy\s+(?:phone|number|cell|mobile|email|e-mail|address|handle|username|user\s+name|account|profile)\b/,
  /\b(?:whatsapp|snapchat|instagram|discord|telegram|tiktok|kik|wechat|messenger|facebook|twitter|skype|zoom\s+link)\b/,
  /\b(?:outside|off)\s+(?:of\s+)?(?:this|the)\s+(?:app|platform|site|chat)\b/,
  /\bdon'?t\s+tell\s+(?:your|the|any)\s*(?:teacher|parents?|anyone|one)\b/,
  /\bkeep\s+(?:this|it|that)\s+(?:a\s+)?secret\b/,
  /\bbetween\s+(?:you\s+and\s+me|us)\b/,
];
// "DM" as a word in capitals (a lowercase "dm" is caught with "dm me" above; "dm" alone is too often a unit).
const DM_WORD = /\bDMs?\b/;

/**
 * Whether the text opens a direct channel: an e-mail address, a phone number, a handle, "message me", "DM",
 * a platform to talk on, talking outside the platform, or secrecy from the teacher.
 */
export function messagesDirectly(text: string): boolean {
  const lower = folded(text);
  return CONTACT_PATTERNS.some((pattern) => pattern.test(lower)) || DM_WORD.test(text);
}

/** Runs every check over a text the learner would see. */
export function checkGuidanceText(text: string, answerKey: readonly string[]): SafetyVerdict {
  const outcome: Record<SafetyCheck, boolean> = {
    answer_revelation: !revealsAnswer(text, answerKey),
    external_links: !linksOut(text),
    direct_messaging: !messagesDirectly(text),
  };
  const checks = SAFETY_CHECKS.map((check) => ({ check, passed: outcome[check] }));
  const reasons = checks.filter((c) => !c.passed).map((c) => REASON_OF[c.check]);
  return { checks, reasons, withheld: reasons.length > 0 };
}
