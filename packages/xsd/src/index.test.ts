import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { containsDtd, createXsdValidator } from './index';

const XSD_DIR = process.env.HACIENDA_XSD_DIR ?? resolve(__dirname, '../../../../shared/hacienda/xsd');
const ready =
  existsSync(join(XSD_DIR, 'MensajeReceptor_V4.4.xsd')) && spawnSync('which', ['xmllint']).status === 0;
if (!ready && process.env.CI === 'true') throw new Error('CI=true and xmllint or the XSDs are missing');

describe('XSD validation of untrusted XML', () => {
  const validator = createXsdValidator({ xsdDir: XSD_DIR, maxBytes: 64 * 1024 });

  it('when the document carries a DTD (an XML bomb), then it is refused before any parsing', async () => {
    const bomb = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><MensajeReceptor>&lol2;</MensajeReceptor>`;
    expect(containsDtd(bomb)).toBe(true);
    const out = await validator.validate(bomb, 'MensajeReceptor_V4.4.xsd');
    expect(out).toMatchObject({ valid: false, refused: expect.stringMatching(/DTD/) });
  });

  it('when the document is larger than the limit, then it is refused', async () => {
    const out = await validator.validate(`<a>${'x'.repeat(70 * 1024)}</a>`, 'MensajeReceptor_V4.4.xsd');
    expect(out).toMatchObject({ valid: false, refused: expect.stringMatching(/larger/) });
  });

  it('when the document breaks the schema, then xmllint names the element; a wrong schema name is unavailable', async () => {
    if (!ready) return console.warn('skipping: xmllint or XSDs missing');
    const out = await validator.validate(
      '<MensajeReceptor xmlns="https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/mensajeReceptor"><Clave>1</Clave></MensajeReceptor>',
      'MensajeReceptor_V4.4.xsd',
    );
    expect(out?.valid).toBe(false);
    expect(out && !out.valid && out.errors.join('\n')).toMatch(/Clave/);
    expect(await validator.validate('<a/>', '../etc/passwd')).toBeUndefined();
    expect(await createXsdValidator({ xsdDir: '/nonexistent' }).validate('<a/>', 'x.xsd')).toBeUndefined();
  });

  it('when a derived schema is given, then xmllint compiles it from a pipe with the official imports', async () => {
    if (!ready) return console.warn('skipping: xmllint or XSDs missing');
    const derived = createXsdValidator({
      xsdDir: XSD_DIR,
      extendSchema: (text, dir) =>
        text
          .replace('<xs:element name="MensajeReceptor">', '<xs:element name="MensajeReceptorDerivado">')
          .replace(
            'schemaLocation="xmldsig-core-schema.xsd"',
            `schemaLocation="${dir}/xmldsig-core-schema.xsd"`,
          ),
    });
    const ns = 'https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/mensajeReceptor';
    const out = await derived.validate(
      `<MensajeReceptorDerivado xmlns="${ns}"><Clave>1</Clave></MensajeReceptorDerivado>`,
      'MensajeReceptor_V4.4.xsd',
    );
    expect(out?.valid).toBe(false);
    // The derived root is declared (the complaint is about its content), the official one no longer is.
    expect(out && !out.valid && out.errors.join('\n')).toMatch(/Clave/);
    const official = await derived.validate(
      `<MensajeReceptor xmlns="${ns}"><Clave>1</Clave></MensajeReceptor>`,
      'MensajeReceptor_V4.4.xsd',
    );
    expect(official && !official.valid && official.errors.join('\n')).toMatch(
      /No matching global declaration/,
    );
  });

  it('when more validations arrive than maxConcurrent, then at most that many xmllint run and the rest wait their turn', async () => {
    if (!ready) return console.warn('skipping: xmllint or XSDs missing');
    const bounded = createXsdValidator({ xsdDir: XSD_DIR, maxConcurrent: 2 });
    const ns = 'https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/mensajeReceptor';
    const doc = (i: number) => `<MensajeReceptor xmlns="${ns}"><Clave>${i}</Clave></MensajeReceptor>`;
    let peak = 0;
    let sawWaiting = false;
    const sample = setInterval(() => {
      const now = bounded.load();
      peak = Math.max(peak, now.running);
      sawWaiting ||= now.waiting > 0;
    }, 1);
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 6 }, (_, i) => bounded.validate(doc(i), 'MensajeReceptor_V4.4.xsd')),
      );
      expect(outcomes.every((o) => o?.valid === false && o.errors.join('\n').includes('Clave'))).toBe(true);
    } finally {
      clearInterval(sample);
    }
    expect(peak).toBe(2);
    expect(sawWaiting).toBe(true);
    expect(bounded.load()).toEqual({ running: 0, waiting: 0 });
  });
});
