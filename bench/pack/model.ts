/** The generated pack's shapes (`bench/pack-generator.ts`), as held in memory before they are written. */
import type { Clause } from './vocabulary.ts';

/** One version of a source: its dates, its extraction and its text. */
export interface GeneratedVersion {
  label: string;
  published: string;
  reported: string;
  extraction: number;
  text: string;
}

/** A source with its versions. */
export interface GeneratedSource {
  id: string;
  title: string;
  citation: string;
  versions: GeneratedVersion[];
}

/** An assertion with its evidence; `clause` is what it paraphrases (not written to the pack). */
export interface GeneratedAssertion {
  id: string;
  statement: string;
  accepted: string;
  retracted?: string;
  supersedes: string[];
  evidence: { source: string; version: string; lines: [number, number]; quote: string }[];
  clause: Clause;
}

/** A derived insight. */
export interface GeneratedInsight {
  id: string;
  statement: string;
  availableFrom: string;
  derivedFrom: string[];
}

/** A whole generated pack, in memory. */
export interface GeneratedPack {
  product: string;
  slug: string;
  title: string;
  sources: GeneratedSource[];
  assertions: GeneratedAssertion[];
  insights: GeneratedInsight[];
}
