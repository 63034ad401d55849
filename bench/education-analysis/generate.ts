/**
 * Generated inputs of the education analysis benchmark and of the bound tests, deterministic for a seed:
 * - two framework slices as CASE 1.1 CFPackage JSON of exactly N CFItems each: grades, four domains per grade, three
 *   clusters per domain and standards under them, linked by isChildOf. The target paraphrases about 85% of the
 *   source's standards (other wording and order, its own coding scheme MA.6.RP.1.1, grades written 6 instead of 06,
 *   "Math" for "Mathematics", some domains renamed) and fills up with standards of its own; about 3% of the pairs
 *   are declared with exactMatchOf. The pairs are returned as the ground truth (source id to target id);
 * - an artifact recommendation request of N candidates with fingerprints, some near-duplicates and copies.
 */
import { createHash } from 'node:crypto';
import { Rng, streamSeed } from '../pack/vocabulary.ts';
import { CONTEXTS, DOMAINS, OBJECTS, VERBS, paraphrase, shuffled, type Domain } from './vocabulary.ts';

/** A CASE 1.1 CFPackage as plain JSON. */
export type CaseJson = { CFDocument: Record<string, unknown>; CFItems: Array<Record<string, unknown>>; CFAssociations: Array<Record<string, unknown>> };

/** Two slices and the true correspondences between their standards. */
export interface GeneratedPair {
  source: CaseJson;
  target: CaseJson;
  /** Source standard identifier to the target standard that paraphrases it. */
  truth: Map<string, string>;
}

/** A UUID-shaped identifier derived from a name (not random: the same seed, the same identifiers). */
function uuidOf(name: string): string {
  const h = createHash('sha256').update(name).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const STAMP = '2025-01-15T12:00:00+00:00';

/** One standard's words before wording: its verb, domain words, objects and context. */
interface Idea {
  verb: string;
  words: string[];
  objects: string[];
  context: string;
}

function drawIdea(rng: Rng, domain: Domain): Idea {
  const words = shuffled(rng, domain.words).slice(0, rng.range(3, 5));
  const objects = [rng.pick(OBJECTS), rng.pick(OBJECTS)];
  return { verb: rng.pick(VERBS), words, objects, context: rng.pick(CONTEXTS) };
}

function wordIdea(idea: Idea): string {
  return `${idea.verb[0]!.toUpperCase()}${idea.verb.slice(1)} ${idea.words.join(', ')} about ${idea.objects.join(' and ')} ${idea.context}.`;
}

interface Builder {
  items: Array<Record<string, unknown>>;
  associations: Array<Record<string, unknown>>;
}

function addItem(b: Builder, base: string, parent: string, fields: { key: string; code: string; type: string; statement: string; levels: string[] }): string {
  const identifier = uuidOf(`${base}/${fields.key}`);
  b.items.push({
    identifier,
    uri: `https://case.example.org/${base}/CFItems/${identifier}`,
    fullStatement: fields.statement,
    humanCodingScheme: fields.code,
    CFItemType: fields.type,
    educationLevel: fields.levels,
    language: 'en',
    lastChangeDateTime: STAMP,
  });
  const n = b.associations.length;
  b.associations.push({
    identifier: uuidOf(`${base}/assoc/${n}`),
    uri: `https://case.example.org/${base}/CFAssociations/${n}`,
    associationType: 'isChildOf',
    originNodeURI: { title: fields.code, identifier, uri: `https://case.example.org/${base}/uri/${identifier}` },
    destinationNodeURI: { title: 'parent', identifier: parent, uri: `https://case.example.org/${base}/uri/${parent}` },
    lastChangeDateTime: STAMP,
  });
  return identifier;
}

function documentOf(base: string, title: string, creator: string, subject: string): Record<string, unknown> {
  const identifier = uuidOf(`${base}/document`);
  return { identifier, uri: `https://case.example.org/${base}/CFDocuments/${identifier}`, creator, title, lastChangeDateTime: STAMP, subject: [subject], language: 'en', version: '1', adoptionStatus: 'Adopted' };
}

const GRADE_LABELS = ['K', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11', '12'];
const CLUSTERS = ['A', 'B', 'C'];

/** Generates the two slices, each of exactly `items` CFItems (at least 17). */
export function generateFrameworkPair(items: number, seed: number): GeneratedPair {
  const grades = Math.min(13, Math.max(1, Math.round(items / 150)));
  const standards = items - grades * 17;
  if (standards < 0) throw new Error(`at least ${grades * 17} items are needed`);
  const rng = new Rng(streamSeed(seed, items, 20));
  const source: Builder = { items: [], associations: [] };
  const target: Builder = { items: [], associations: [] };
  const sourceDoc = documentOf(`a-${seed}`, 'Generated State Mathematics Standards', 'Generated State Board', 'Mathematics');
  const targetDoc = documentOf(`b-${seed}`, 'Generated Province Mathematics Curriculum', 'Generated Province Ministry', 'Math');
  const truth = new Map<string, string>();
  // Standards go round-robin over the clusters, so every cluster gets its share.
  const clusters: Array<{ g: number; d: number; c: number; domain: Domain; targetCode: string; sParent: string; tParent: string; count: number }> = [];
  for (let g = 0; g < grades; g++) {
    const grade = GRADE_LABELS[(g + 6) % 13]!;
    const sLevel = grade === 'K' ? 'KG' : grade.padStart(2, '0');
    const sGrade = addItem(source, `a-${seed}`, sourceDoc.identifier as string, { key: `g${g}`, code: grade, type: 'Grade Level', statement: `Grade ${grade} mathematics`, levels: [sLevel] });
    const tGrade = addItem(target, `b-${seed}`, targetDoc.identifier as string, { key: `g${g}`, code: `MA.${grade}`, type: 'Grade', statement: `Mathematics of grade ${grade}`, levels: [grade] });
    for (let d = 0; d < 4; d++) {
      const domain = DOMAINS[(g * 4 + d) % DOMAINS.length]!;
      const targetCode = rng.chance(0.2) ? `${domain.code}X` : domain.code;
      const sDomain = addItem(source, `a-${seed}`, sGrade, { key: `g${g}d${d}`, code: `${grade}.${domain.code}`, type: 'Domain', statement: domain.name, levels: [sLevel] });
      const tDomain = addItem(target, `b-${seed}`, tGrade, { key: `g${g}d${d}`, code: `MA.${grade}.${targetCode}`, type: 'Strand', statement: `${domain.name} strand`, levels: [grade] });
      for (let c = 0; c < 3; c++) {
        const sCluster = addItem(source, `a-${seed}`, sDomain, { key: `g${g}d${d}c${c}`, code: `${grade}.${domain.code}.${CLUSTERS[c]}`, type: 'Cluster', statement: `${domain.name}: cluster ${CLUSTERS[c]}`, levels: [sLevel] });
        const tCluster = addItem(target, `b-${seed}`, tDomain, { key: `g${g}d${d}c${c}`, code: `MA.${grade}.${targetCode}.${c + 1}`, type: 'Benchmark Group', statement: `${domain.name}, group ${c + 1}`, levels: [grade] });
        clusters.push({ g, d, c, domain, targetCode, sParent: sCluster, tParent: tCluster, count: 0 });
      }
    }
  }
  let targetStandards = 0;
  for (let k = 0; k < standards; k++) {
    const cluster = clusters[k % clusters.length]!;
    cluster.count += 1;
    const grade = GRADE_LABELS[(cluster.g + 6) % 13]!;
    const sLevel = grade === 'K' ? 'KG' : grade.padStart(2, '0');
    const idea = drawIdea(rng, cluster.domain);
    const sCode = `${grade}.${cluster.domain.code}.${CLUSTERS[cluster.c]}.${cluster.count}`;
    const sId = addItem(source, `a-${seed}`, cluster.sParent, { key: `s${k}`, code: sCode, type: 'Standard', statement: wordIdea(idea), levels: [sLevel] });
    if (rng.chance(0.85) && targetStandards < standards) {
      targetStandards += 1;
      const tCode = `MA.${grade}.${cluster.targetCode}.${cluster.c + 1}.${cluster.count}`;
      const tId = addItem(target, `b-${seed}`, cluster.tParent, { key: `s${k}`, code: tCode, type: 'Benchmark', statement: paraphrase(rng, idea, cluster.domain), levels: [grade] });
      truth.set(sId, tId);
      if (rng.chance(0.03)) {
        target.associations.push({
          identifier: uuidOf(`b-${seed}/declared/${k}`),
          uri: `https://case.example.org/b-${seed}/CFAssociations/declared-${k}`,
          associationType: 'exactMatchOf',
          originNodeURI: { title: tCode, identifier: tId, uri: `https://case.example.org/b-${seed}/uri/${tId}` },
          destinationNodeURI: { title: sCode, identifier: sId, uri: `https://case.example.org/a-${seed}/uri/${sId}` },
          lastChangeDateTime: STAMP,
        });
      }
    }
  }
  // The target's own standards fill it up to the same size.
  for (let k = 0; targetStandards < standards; k++, targetStandards++) {
    const cluster = clusters[k % clusters.length]!;
    const grade = GRADE_LABELS[(cluster.g + 6) % 13]!;
    const idea = drawIdea(rng, cluster.domain);
    addItem(target, `b-${seed}`, cluster.tParent, { key: `own${k}`, code: `MA.${grade}.${cluster.targetCode}.${cluster.c + 1}.${100 + k}`, type: 'Benchmark', statement: wordIdea(idea), levels: [grade] });
  }
  return {
    source: { CFDocument: sourceDoc, CFItems: source.items, CFAssociations: source.associations },
    target: { CFDocument: targetDoc, CFItems: target.items, CFAssociations: target.associations },
    truth,
  };
}

/** A hash of 16 hexadecimal digits of a name (a content shingle stand-in). */
function hash16(name: string): string {
  return createHash('sha256').update(name).digest('hex').slice(0, 16);
}

/** A bottom-k sketch of 64 hashes of an imagined content. */
function sketchOf(rng: Rng, content: number): string[] {
  return Array.from({ length: 96 }, (_, k) => hash16(`content-${content}-shingle-${k}-${rng.int(4)}`))
    .sort()
    .slice(0, 64);
}

const TAGS = ['ratio reasoning', 'unit rates', 'tape diagrams', 'double number lines', 'percent', 'proportional relationships', 'fraction division', 'integers', 'expressions', 'statistics'];
const CODES = ['6.RP.A.1', '6.RP.A.2', '6.RP.A.3', 'CCSS.Math.Content.6.RP.A.3', '6.RP.A', '6.NS.A.1', '6.EE.A.2', '7.RP.A.2', '6.SP.A.1'];
const FORMATS = ['worksheet', 'worksheet', 'slides', 'quiz', 'handout', 'lesson-plan'];
const LANGUAGES = ['en', 'en', 'en', 'en', 'en', 'en', 'en-GB', 'es', 'fr'];
const SUPPORTS = ['reading-support', 'extension', 'visual-supports', 'large-print'];

const GOAL = {
  goalTags: ['ratio reasoning', 'unit rates', 'tape diagrams'],
  standardCodes: ['6.RP.A.2', '6.RP.A.3'],
  courseId: 'course-1',
  format: 'worksheet',
  language: 'en',
  differentiation: ['reading-support', 'extension'],
};

/**
 * An artifact recommendation request of `count` candidates: a third made for the goal (its tags, standards and
 * course, then a format, language or support drawn at random, so every recommendation occurs), the others drawn from
 * small lists; 10% near-duplicates of an earlier candidate (a few shingles changed) and 3% copies of its title.
 */
export function generateRecommendRequest(count: number, seed: number): Record<string, unknown> {
  const rng = new Rng(streamSeed(seed, count, 21));
  const candidates: Array<Record<string, unknown>> = [];
  for (let k = 0; k < count; k++) {
    const earlier = k > 0 && rng.chance(0.13) ? candidates[rng.int(k)]! : undefined;
    const copyTitle = earlier !== undefined && rng.chance(0.25);
    const sketch = earlier && !copyTitle ? (earlier.fingerprint as string[]).map((h, i) => (i % 16 === 3 ? hash16(`${h}-${k}`) : h)).sort() : sketchOf(rng, k);
    const aligned = rng.chance(0.35);
    candidates.push({
      id: `artifact-${seed}-${String(k).padStart(4, '0')}`,
      title: copyTitle ? earlier.title : `Generated ${rng.pick(TAGS)} activity ${k}`,
      goalTags: aligned ? [...GOAL.goalTags, rng.pick(TAGS)] : shuffled(rng, TAGS).slice(0, rng.range(1, 4)),
      standardCodes: aligned ? GOAL.standardCodes : shuffled(rng, CODES).slice(0, rng.range(0, 3)),
      courseId: aligned ? GOAL.courseId : `course-${rng.range(1, 3)}`,
      format: copyTitle ? earlier.format : rng.pick(FORMATS),
      language: copyTitle ? earlier.language : rng.pick(LANGUAGES),
      accepted: rng.chance(0.6),
      updatedAt: new Date(Date.UTC(2025, rng.int(12), rng.range(1, 28), rng.int(24))).toISOString(),
      differentiation: aligned && rng.chance(0.6) ? GOAL.differentiation : shuffled(rng, SUPPORTS).slice(0, rng.range(0, 2)),
      ...(copyTitle ? {} : { fingerprint: sketch }),
    });
  }
  return { goal: GOAL, candidates };
}
