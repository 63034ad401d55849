import type { ProductChange, ProductDefinition, RuntimeProduct } from '../../domains/runtime/admin/index.ts';
import { DOMAIN_PACKS, type BrandProfile } from '../../domains/runtime/presentation/index.ts';
import { html, type SafeHtml } from './layout.ts';
import { pastedJson, refusalAlert, type FormRefusal } from './runtime-forms.ts';

// The two forms of an organization admin that take more than a button: a product definition and the brand profile.
// Each keeps what was typed, to show the form again as written when it is refused, with the refusal by its field.

/** What the product form holds, as typed. */
export interface ProductValues {
  slug: string;
  name: string;
  domainPack: string;
  /** The experience pack as JSON text; blank for none. */
  experiencePack: string;
  /** Return origins and redirect URIs, one per line. */
  returnOrigins: string;
}

/** The empty product form. */
export const EMPTY_PRODUCT: ProductValues = { slug: '', name: '', domainPack: '', experiencePack: '', returnOrigins: '' };

/** Browsers send a textarea's line breaks as CRLF; the domain's texts use LF. */
const lines = (text: string) => text.replace(/\r\n?/g, '\n');

/** The product form's fields as posted. */
export function productValuesOf(form: URLSearchParams): ProductValues {
  const text = (name: string) => form.get(name) ?? '';
  return {
    slug: text('slug'),
    name: text('name'),
    domainPack: text('domain_pack'),
    experiencePack: lines(text('experience_pack')),
    returnOrigins: lines(text('return_origins')),
  };
}

/** A stored product as the edit form shows it. */
export function productValuesFrom(product: RuntimeProduct): ProductValues {
  return {
    slug: product.slug,
    name: product.name,
    domainPack: product.domainPack ?? '',
    experiencePack: product.experiencePack ? JSON.stringify(product.experiencePack, null, 2) : '',
    returnOrigins: product.returnOrigins.join('\n'),
  };
}

/** The change the edit form asks for: every field given, so each is replaced (the domain checks them). */
export function productChangeOf(values: ProductValues): Required<ProductChange> {
  return {
    name: values.name,
    domainPack: values.domainPack === '' ? null : values.domainPack,
    experiencePack: pastedJson(values.experiencePack, 'experiencePack', 'experience pack'),
    returnOrigins: values.returnOrigins
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== ''),
  };
}

/** The definition the create form asks for. */
export function productDefinitionOf(values: ProductValues): ProductDefinition {
  return { slug: values.slug, ...productChangeOf(values) };
}

type ProductInput = 'slug' | 'name' | 'domainPack' | 'experiencePack' | 'returnOrigins';
const PRODUCT_INPUTS: readonly ProductInput[] = ['slug', 'name', 'domainPack', 'experiencePack', 'returnOrigins'];

/** The input a refusal is about: its field's first segment; a field inside the experience pack is the pack's. */
function productInputOf(refusal: FormRefusal | undefined): ProductInput | undefined {
  if (!refusal?.field) return undefined;
  const head = refusal.field.split('.')[0] as ProductInput;
  return PRODUCT_INPUTS.includes(head) ? head : 'experiencePack';
}

/** The attributes and the alert of one input: the alert stands before it and describes it when it is refused. */
function fieldState(id: string, refused: boolean, refusal: FormRefusal | undefined, help?: string) {
  const describedBy = [refused ? `${id}-error` : '', help ? `${id}-help` : ''].filter(Boolean).join(' ');
  return {
    alert: refused ? refusalAlert(refusal, `${id}-error`) : '',
    attributes: html`${describedBy ? html` aria-describedby="${describedBy}"` : ''}${refused ? html` aria-invalid="true"` : ''}`,
  };
}

/**
 * The product fields (the slug only when defining one: it never changes), prefixed `prefix` for their ids. A refusal
 * of a field stands before that field; one of no field, above them all.
 */
export function productFields(prefix: string, values: ProductValues, refusal: FormRefusal | undefined, withSlug: boolean): SafeHtml {
  const refused = productInputOf(refusal);
  const state = (input: ProductInput, help?: string) => fieldState(`${prefix}-${input}`, refused === input, refusal, help);
  const slug = state('slug', 'help');
  const name = state('name');
  const pack = state('domainPack');
  const experience = state('experiencePack', 'help');
  const origins = state('returnOrigins', 'help');
  return html`${refused === undefined ? refusalAlert(refusal) : ''}
    ${withSlug
      ? html`${slug.alert}<label for="${prefix}-slug">Slug</label>
        <input type="text" id="${prefix}-slug" name="slug" required maxlength="64" value="${values.slug}"${slug.attributes}>
        <p id="${prefix}-slug-help" class="muted">Lowercase letters and digits joined by hyphens, unique on this server; it never changes.</p>`
      : ''}
    ${name.alert}<label for="${prefix}-name">Name</label>
    <input type="text" id="${prefix}-name" name="name" required maxlength="200" value="${values.name}"${name.attributes}>
    ${pack.alert}<label for="${prefix}-domainPack">Domain pack</label>
    <select id="${prefix}-domainPack" name="domain_pack"${pack.attributes}>
      <option value=""${values.domainPack === '' ? html` selected` : ''}>None</option>
      ${DOMAIN_PACKS.map((p) => html`<option value="${p.slug}"${values.domainPack === p.slug ? html` selected` : ''}>${p.title} (${p.slug})</option>`)}
    </select>
    ${experience.alert}<label for="${prefix}-experiencePack">Experience pack (JSON)</label>
    <textarea id="${prefix}-experiencePack" name="experience_pack" rows="8" spellcheck="false"${experience.attributes}>${values.experiencePack}</textarea>
    <p id="${prefix}-experiencePack-help" class="muted">Presentation only (theme, navigation, terms, onboarding, which capabilities the
      product's own navigation shows), format version 1. Blank: none. It never enables a capability nor grants anything.</p>
    ${origins.alert}<label for="${prefix}-returnOrigins">Return origins</label>
    <textarea id="${prefix}-returnOrigins" name="return_origins" rows="3" spellcheck="false"${origins.attributes}>${values.returnOrigins}</textarea>
    <p id="${prefix}-returnOrigins-help" class="muted">One per line, at most 10: an HTTPS origin (<code>https://app.example</code>) or an
      exact HTTPS redirect URI, where delegated provider connections return.</p>`;
}

/** What the brand form holds, as typed. */
export interface BrandValues {
  displayName: string;
  primary: string;
  accent: string;
  text: string;
  background: string;
  logoUrl: string;
  supportUrl: string;
  tagline: string;
  welcomeText: string;
}

type BrandInput = keyof BrandValues;

/** The brand form's inputs: the field of the profile each fills, its label and its help. */
const BRAND_INPUTS: ReadonlyArray<{ input: BrandInput; field: string; label: string; help?: string; area?: boolean }> = [
  { input: 'displayName', field: 'displayName', label: 'Display name', help: 'Required; at most 80 characters.' },
  { input: 'primary', field: 'colors.primary', label: 'Primary colour', help: 'Each colour #rrggbb, or blank.' },
  { input: 'accent', field: 'colors.accent', label: 'Accent colour' },
  { input: 'text', field: 'colors.text', label: 'Text colour', help: 'Text and background go together, with a contrast of at least 4.5:1.' },
  { input: 'background', field: 'colors.background', label: 'Background colour' },
  { input: 'logoUrl', field: 'logoUrl', label: 'Logo URL', help: 'HTTPS, without a user name or password.' },
  { input: 'supportUrl', field: 'supportUrl', label: 'Support URL', help: 'HTTPS, without a user name or password.' },
  { input: 'tagline', field: 'tagline', label: 'Tagline', help: 'At most 140 characters.' },
  { input: 'welcomeText', field: 'welcomeText', label: 'Welcome text', help: 'At most 500 characters; line breaks are kept.', area: true },
];

/** A stored brand as the form shows it; none: the empty form. */
export function brandValuesFrom(brand: BrandProfile | null): BrandValues {
  return {
    displayName: brand?.displayName ?? '',
    primary: brand?.colors?.primary ?? '',
    accent: brand?.colors?.accent ?? '',
    text: brand?.colors?.text ?? '',
    background: brand?.colors?.background ?? '',
    logoUrl: brand?.logoUrl ?? '',
    supportUrl: brand?.supportUrl ?? '',
    tagline: brand?.tagline ?? '',
    welcomeText: brand?.welcomeText ?? '',
  };
}

/** The brand form's fields as posted. */
export function brandValuesOf(form: URLSearchParams): BrandValues {
  const values = brandValuesFrom(null);
  for (const { input } of BRAND_INPUTS) values[input] = lines(form.get(input) ?? '');
  return values;
}

/** The profile the form asks for: blank fields left out (the domain checks the rest). */
export function brandProfileOf(values: BrandValues): Record<string, unknown> {
  const profile: Record<string, unknown> = {};
  const colors: Record<string, string> = {};
  for (const { input, field } of BRAND_INPUTS) {
    if (values[input] === '') continue;
    if (field.startsWith('colors.')) colors[input] = values[input];
    else profile[field] = values[input];
  }
  if (Object.keys(colors).length > 0) profile.colors = colors;
  return profile;
}

/** The brand inputs, prefixed `prefix` for their ids; a refusal stands before the field it names. */
export function brandFields(prefix: string, values: BrandValues, refusal: FormRefusal | undefined): SafeHtml {
  const refused = BRAND_INPUTS.find(({ field }) => refusal?.field === field)?.input;
  return html`${refused === undefined ? refusalAlert(refusal) : ''}
    ${BRAND_INPUTS.map(({ input, label, help, area }) => {
      const id = `${prefix}-${input}`;
      const state = fieldState(id, refused === input, refusal, help);
      const control = area
        ? html`<textarea id="${id}" name="${input}" rows="3"${state.attributes}>${values[input]}</textarea>`
        : html`<input type="text" id="${id}" name="${input}" value="${values[input]}"${input === 'displayName' ? html` required` : ''}${state.attributes}>`;
      return html`${state.alert}<label for="${id}">${label}</label>${control}${help ? html`<p id="${id}-help" class="muted">${help}</p>` : ''}`;
    })}`;
}
