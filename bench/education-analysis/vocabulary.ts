/**
 * Word lists of the generated mathematics frameworks (`generate.ts`): domains with their own words, verbs with the
 * synonyms a second publisher would use, everyday objects that make each standard's wording distinctive, contexts,
 * and the paraphrase a target framework makes of a source standard.
 */
import type { Rng } from '../pack/vocabulary.ts';

/** A domain: its code, its name and the words its standards use. */
export interface Domain {
  code: string;
  name: string;
  words: readonly string[];
}

const words = (list: string): readonly string[] => list.trim().split(/\s*\|\s*/);

/** Ten domains of a mathematics framework. */
export const DOMAINS: readonly Domain[] = [
  { code: 'OA', name: 'Operations and algebraic thinking', words: words('addition | subtraction | multiplication | division | unknown quantities | factors | multiples | numerical patterns | properties of operations | equations | remainders | arrays') },
  { code: 'NBT', name: 'Number and operations in base ten', words: words('place value | digits | rounding | multi-digit whole numbers | powers of ten | decimals to hundredths | expanded form | standard algorithm | partial products | regrouping') },
  { code: 'NF', name: 'Number and operations with fractions', words: words('fractions | numerators | denominators | equivalent fractions | unit fractions | mixed numbers | common denominators | fraction models | benchmark fractions | improper fractions') },
  { code: 'MD', name: 'Measurement and data', words: words('length | area | perimeter | volume | elapsed time | money | line plots | bar graphs | angle measures | liquid volume | mass | conversions') },
  { code: 'G', name: 'Geometry', words: words('polygons | triangles | quadrilaterals | angles | symmetry | coordinate grids | nets | surface area | transformations | congruent figures | parallel lines') },
  { code: 'RP', name: 'Ratios and proportional relationships', words: words('ratios | rates | unit rates | percents | proportional relationships | tables of equivalent ratios | tape diagrams | double number lines | scale drawings | constant of proportionality') },
  { code: 'NS', name: 'The number system', words: words('rational numbers | integers | absolute value | number lines | opposites | greatest common factor | least common multiple | negative numbers | repeating decimals | irrational numbers') },
  { code: 'EE', name: 'Expressions and equations', words: words('expressions | variables | exponents | inequalities | one-variable equations | linear equations | systems of equations | scientific notation | square roots | equivalent expressions') },
  { code: 'SP', name: 'Statistics and probability', words: words('statistical questions | variability | distributions | mean | median | interquartile range | random samples | probability models | compound events | scatter plots') },
  { code: 'F', name: 'Functions', words: words('functions | inputs and outputs | linear functions | slope | rate of change | initial value | nonlinear functions | graphs of functions | function tables | qualitative graphs') },
];

/** How a standard starts, each verb with a second publisher's synonyms. */
export const VERBS: readonly string[] = words('describe | explain | solve problems with | compute with | represent | compare | interpret | model | apply | recognize | identify | analyze | construct | evaluate | estimate with | justify reasoning about');
const VERB_SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  describe: ['characterize', 'describe'],
  explain: ['justify', 'explain'],
  'solve problems with': ['solve problems involving', 'work problems with'],
  'compute with': ['calculate with', 'compute using'],
  represent: ['show', 'depict'],
  compare: ['contrast', 'compare'],
  interpret: ['make sense of', 'interpret'],
  model: ['represent with models', 'model'],
};

/** Everyday objects of word problems; two per standard make its wording distinctive. */
export const OBJECTS: readonly string[] = words(
  'apples | bicycles | garden beds | library books | marbles | paint cans | pizza slices | rain gauges | school buses | seed packets | ' +
    'soccer fields | stamps | sunflowers | swimming laps | tiles | train tickets | trail mix | water bottles | windows | yarn | ' +
    'bakery trays | bird feeders | board games | bookshelves | bus routes | cafeteria trays | campsites | canoes | chess clubs | ' +
    'class plants | concert seats | cookie batches | crayons | fish tanks | flower pots | fruit baskets | gym mats | hiking trails | ' +
    'ice cubes | juice boxes | kites | lemonade stands | lunch orders | map scales | museum tickets | notebooks | orchards | ' +
    'parking lots | pet shelters | picnic tables | postcards | puzzle pieces | recipe cards | recycling bins | robots | rope lengths | ' +
    'sailboats | sandwiches | science kits | skateboards | snow depths | solar panels | stickers | storage boxes | tents | ' +
    'theater rows | tomato plants | toy cars | track races | trees | vegetable patches | video games | wind speeds | zoo visitors',
);

/** Where a standard is applied. */
export const CONTEXTS: readonly string[] = words(
  'in real-world problems | using visual models | with tables and graphs | on a coordinate plane | using the standard algorithm | ' +
    'in mathematical contexts | with concrete objects | using number lines | with equations | in multi-step problems',
);

/** The Fisher-Yates shuffle with the generator's stream. */
export function shuffled<T>(rng: Rng, list: readonly T[]): T[] {
  const out = [...list];
  for (let k = out.length - 1; k > 0; k--) {
    const j = rng.int(k + 1);
    [out[k], out[j]] = [out[j]!, out[k]!];
  }
  return out;
}

/** A second publisher's wording of the same idea: a synonym verb, most of its words in another order, another context. */
export function paraphrase(rng: Rng, idea: { verb: string; words: string[]; objects: string[]; context: string }, domain: Domain): string {
  const verb = rng.pick(VERB_SYNONYMS[idea.verb] ?? [idea.verb]);
  const kept = shuffled(rng, idea.words).slice(0, Math.max(2, idea.words.length - 1));
  if (rng.chance(0.5)) kept.push(rng.pick(domain.words));
  const objects = rng.chance(0.8) ? shuffled(rng, idea.objects) : [idea.objects[0]!, rng.pick(OBJECTS)];
  const context = rng.chance(0.5) ? idea.context : rng.pick(CONTEXTS);
  return `Students ${verb} ${[...new Set(kept)].join(' and ')} in problems about ${objects.join(' or ')}, ${context}.`;
}
