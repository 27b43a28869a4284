import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { MAX_ERRORS, type XsdOutcome, type XsdValidator, containsDtd, createXsdValidator } from './index';

const XSD_DIR = process.env.HACIENDA_XSD_DIR ?? resolve(__dirname, '../../../../shared/hacienda/xsd');
const SAMPLES_DIR = process.env.HACIENDA_SAMPLES_DIR ?? resolve(XSD_DIR, '../samples');
const FE_SAMPLE = join(SAMPLES_DIR, 'fe-50626052600310295087500100001010000000033159073080.xml');
const ready = existsSync(join(XSD_DIR, 'MensajeReceptor_V4.4.xsd')) && existsSync(FE_SAMPLE);
if (!ready && process.env.CI === 'true') throw new Error('CI=true and the XSDs or the samples are missing');

const validators: XsdValidator[] = [];
function validatorOf(options: Partial<Parameters<typeof createXsdValidator>[0]> = {}): XsdValidator {
  const v = createXsdValidator({ xsdDir: XSD_DIR, ...options });
  validators.push(v);
  return v;
}
afterAll(async () => {
  await Promise.all(validators.map((v) => v.close()));
});

const FE = 'FacturaElectronica_V4.4.xsd';
const MR = 'MensajeReceptor_V4.4.xsd';
const ns = 'https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/mensajeReceptor';
const feSample = () => readFileSync(FE_SAMPLE, 'utf8');
/** Invalid, with a complaint naming `mark` (a clave that breaks the 50-digit pattern). */
const badClave = (mark: string) => feSample().replace(/<Clave>\d+<\/Clave>/, `<Clave>${mark}</Clave>`);
/** Not well-formed. */
const truncated = () => feSample().slice(0, 3000);

const errorsOf = (o: XsdOutcome | undefined) => (o && !o.valid ? o.errors.join('\n') : '');

describe('XSD validation of untrusted XML', () => {
  const validator = validatorOf({ maxBytes: 64 * 1024 });

  it('when the document carries a DTD (an XML bomb), then it is refused before libxml2 sees it', async () => {
    const bomb = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><MensajeReceptor>&lol2;</MensajeReceptor>`;
    expect(containsDtd(bomb)).toBe(true);
    expect(await validator.validate(bomb, MR)).toMatchObject({
      valid: false,
      refused: expect.stringMatching(/DTD/),
    });
    // Refused even where no schema could be compiled.
    const nowhere = createXsdValidator({ xsdDir: '/nonexistent' });
    expect(await nowhere.validate(bomb, 'x.xsd')).toMatchObject({
      valid: false,
      refused: expect.stringMatching(/DTD/),
    });
  });

  it('when the document is larger than the limit, then it is refused', async () => {
    const out = await validator.validate(`<a>${'x'.repeat(70 * 1024)}</a>`, MR);
    expect(out).toMatchObject({ valid: false, refused: expect.stringMatching(/larger/) });
    // The bound is on the UTF-8 bytes: 40,000 characters of two bytes each are over 64 KiB, 30,000 are not.
    expect(await validator.validate(`<a>${'é'.repeat(40_000)}</a>`, MR)).toMatchObject({ refused: /larger/ });
    expect(await validator.validate(`<a>${'é'.repeat(30_000)}</a>`, MR)).not.toHaveProperty('refused');
    // A bound given with the document replaces the validator's, either way.
    const big = `<a>${'x'.repeat(70 * 1024)}</a>`;
    expect(await validator.validate(big, MR, { maxBytes: 128 * 1024 })).not.toHaveProperty('refused');
    expect(await validator.validate('<a>xx</a>', MR, { maxBytes: 4 })).toMatchObject({ refused: /4 bytes/ });
  });

  it('when a document breaks the schema, then libxml2 names the element by line; a wrong schema name or directory is unavailable', async () => {
    if (!ready) return console.warn('skipping: XSDs or samples missing');
    const out = await validator.validate(
      `<MensajeReceptor xmlns="${ns}">\n<Clave>1</Clave></MensajeReceptor>`,
      MR,
    );
    expect(out?.valid).toBe(false);
    expect(errorsOf(out)).toMatch(
      /^line 2: Schemas validity error: Element '\{[^}]+\}Clave': \[facet 'pattern'\] The value '1' is not accepted/,
    );
    expect(errorsOf(out)).toMatch(/\nline 1: Schemas validity error: .*Missing child element/);
    expect(await validator.validate(feSample(), FE)).toEqual({ valid: true });
    expect(await validator.validate('<a/>', '../etc/passwd')).toBeUndefined();
    expect(await validator.validate('<a/>', 'NoSuchSchema_V4.4.xsd')).toBeUndefined();
    expect(await createXsdValidator({ xsdDir: '/nonexistent' }).validate('<a/>', 'x.xsd')).toBeUndefined();
  });

  it('when documents of every kind are validated at once, then each gets its own verdict and errors', async () => {
    if (!ready) return console.warn('skipping: XSDs or samples missing');
    const kinds = {
      valid: () => feSample(),
      bad111: () => badClave('111'),
      bad222: () => badClave('222'),
      broken: () => truncated(),
    } as const;
    type Kind = keyof typeof kinds;
    const order: Kind[] = ['broken', 'bad222', 'valid', 'bad111', 'valid', 'broken', 'bad111'];
    const fresh = validatorOf();
    const outcomes = await Promise.all(order.map((k) => fresh.validate(kinds[k](), FE)));
    for (const [i, kind] of order.entries()) {
      const out = outcomes[i];
      const text = errorsOf(out);
      if (kind === 'valid') {
        expect(out).toEqual({ valid: true });
        continue;
      }
      expect(out?.valid).toBe(false);
      expect(text.includes("'111'")).toBe(kind === 'bad111');
      expect(text.includes("'222'")).toBe(kind === 'bad222');
      for (const l of text.split('\n'))
        expect(l).toMatch(
          kind === 'broken' ? /^line 2: parser error: / : /^line 2: Schemas validity error: .*Clave/,
        );
    }
  });

  it('when a document has more complaints than the cap, then the first ones are kept', async () => {
    if (!ready) return console.warn('skipping: XSDs or samples missing');
    // Every attribute the schema does not declare is a complaint of its own.
    const attributes = Array.from({ length: 40 }, (_, i) => ` a${i}=""`).join('');
    const out = await validator.validate(`<MensajeReceptor xmlns="${ns}"${attributes}/>`, MR);
    expect(out?.valid).toBe(false);
    expect(out && !out.valid && out.errors.length).toBe(MAX_ERRORS);
    expect(errorsOf(out)).toMatch(/^line 1: Schemas validity error: .*The attribute 'a0' is not allowed/);
  });

  it('when a derived schema is given, then it is compiled from memory with the official imports, once, and again after close', async () => {
    if (!ready) return console.warn('skipping: XSDs or samples missing');
    let derivations = 0;
    const official = readFileSync(join(XSD_DIR, MR), 'utf8');
    const derived = validatorOf({
      extendSchema: (text, dir) => {
        derivations += 1;
        expect(dir).toBe(XSD_DIR);
        return text.replace(
          '<xs:element name="MensajeReceptor">',
          '<xs:element name="MensajeReceptorDerivado">',
        );
      },
    });
    const [out, officialRoot, again] = await Promise.all(
      [
        `<MensajeReceptorDerivado xmlns="${ns}"><Clave>1</Clave></MensajeReceptorDerivado>`,
        `<MensajeReceptor xmlns="${ns}"><Clave>1</Clave></MensajeReceptor>`,
        `<MensajeReceptorDerivado xmlns="${ns}"><Clave>2</Clave></MensajeReceptorDerivado>`,
      ].map((xml) => derived.validate(xml, MR)),
    );
    // The derived root is declared (the complaint is about its content), the official one no longer is.
    expect(errorsOf(out)).toMatch(/'1' is not accepted/);
    expect(errorsOf(again)).toMatch(/'2' is not accepted/);
    expect(errorsOf(officialRoot)).toMatch(/No matching global declaration/);
    expect(derivations).toBe(1);
    // The official file is untouched; after close the schema is derived and compiled again.
    expect(readFileSync(join(XSD_DIR, MR), 'utf8')).toBe(official);
    await derived.close();
    expect(errorsOf(await derived.validate(`<MensajeReceptor xmlns="${ns}"/>`, MR))).toMatch(
      /No matching global declaration/,
    );
    expect(derivations).toBe(2);
  });

  it('when a schema would read a file outside the XSD directory, then it does not compile, is unavailable and is told, and is tried again later', async () => {
    if (!ready) return console.warn('skipping: XSDs or samples missing');
    const outside = mkdtempSync(join(tmpdir(), 'xsd-outside-'));
    try {
      // The very schema the import needs, readable by the process but outside the XSD directory: served, it
      // would compile; only the XSD directory's own files are served, so it does not.
      const evil = join(outside, 'evil.xsd');
      writeFileSync(evil, readFileSync(join(XSD_DIR, 'xmldsig-core-schema.xsd')));
      expect(statSync(evil).isFile()).toBe(true);
      const reach = (text: string) =>
        text.replace('schemaLocation="xmldsig-core-schema.xsd"', `schemaLocation="${evil}"`);
      const doc = (i: number) => `<MensajeReceptor xmlns="${ns}"><Clave>${i}</Clave></MensajeReceptor>`;
      const told: string[] = [];
      const onUnavailable = (file: string, err: Error) => told.push(`${file}: ${err.message}`);

      const reaching = validatorOf({ extendSchema: reach, onUnavailable });
      expect(await Promise.all([1, 2].map((i) => reaching.validate(doc(i), MR)))).toEqual([
        undefined,
        undefined,
      ]);
      // Within the retry window the failure is not compiled (nor told) again.
      expect(await reaching.validate(doc(3), MR)).toBeUndefined();
      expect(told).toEqual([
        expect.stringMatching(/^MensajeReceptor_V4.4.xsd: the schema .* does not compile: /),
      ]);

      // Once the window has passed, the schema is compiled again: here the fault is gone, so it validates.
      told.length = 0;
      let faulty = true;
      const recovering = validatorOf({
        extendSchema: (text) => (faulty ? reach(text) : text),
        onUnavailable,
        retryAfterMs: 0,
      });
      expect(await recovering.validate(doc(4), MR)).toBeUndefined();
      faulty = false;
      expect(errorsOf(await recovering.validate(doc(5), MR))).toContain("The value '5' is not accepted");
      expect(told).toHaveLength(1);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('when a document reaches for other files or nests without end, then it gets a verdict and nothing is read', async () => {
    if (!ready) return console.warn('skipping: XSDs or samples missing');
    // XInclude is not processed and a schemaLocation hint in the document is not followed.
    const reaching = `<MensajeReceptor xmlns="${ns}" xmlns:xi="http://www.w3.org/2001/XInclude" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="${ns} /etc/passwd"><xi:include href="/etc/passwd" parse="text"/></MensajeReceptor>`;
    const out = await validator.validate(reaching, MR);
    expect(errorsOf(out)).toMatch(/XInclude\}include': This element is not expected/);
    expect(errorsOf(out)).not.toMatch(/root:/);
    // libxml2's depth limit holds (no XML_PARSE_HUGE).
    const deep = await validatorOf().validate(`${'<a>'.repeat(5000)}${'</a>'.repeat(5000)}`, MR);
    expect(errorsOf(deep)).toMatch(/^line 1: parser error: Excessive depth/);
    // Duplicate attributes among 100,000 (xmllint 2.9 compared them pairwise, for seconds).
    const wide = `<MensajeReceptor${Array.from({ length: 100_000 }, (_, i) => ` a${i}=""`).join('')} a0=""/>`;
    expect(errorsOf(await validatorOf().validate(wide, MR))).toMatch(/parser error: Attribute a0 redefined/);
  });

  it('when many validations run at once, then each gets its own complaint', async () => {
    if (!ready) return console.warn('skipping: XSDs or samples missing');
    const doc = (i: number) => `<MensajeReceptor xmlns="${ns}"><Clave>${i}</Clave></MensajeReceptor>`;
    const outcomes = await Promise.all(Array.from({ length: 60 }, (_, i) => validator.validate(doc(i), MR)));
    for (const [i, o] of outcomes.entries())
      expect(errorsOf(o)).toContain(`The value '${i}' is not accepted`);
  });
});
