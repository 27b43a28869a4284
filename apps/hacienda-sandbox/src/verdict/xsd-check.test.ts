// The sandbox's schema check against a real libxml2: the official XSD gives −99 findings, and a schema that does
// not compile (a deployment fault) skips the check and is told, as a missing XSD directory does, instead of
// leaving the document without a verdict.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireResource, samplesDir, xsdDir } from '@cr/testkit';
import { CODES } from './findings';
import { createXsdValidator } from './xsd-check';

const FE = 'FacturaElectronica_V4.4.xsd';
const sample = join(samplesDir(), 'fe-50626052600310295087500100001010000000033159073080.xml');
const ready = requireResource(
  'the official XSDs and samples',
  existsSync(join(xsdDir(), FE)) && existsSync(sample),
);

describe('the sandbox XSD check', () => {
  it('when a document breaks the official schema, then each complaint is a −99 finding with its line', async () => {
    if (!ready) return;
    const xsd = createXsdValidator(xsdDir());
    const xml = readFileSync(sample, 'utf8');
    expect(await xsd.validate(xml, FE)).toEqual([]);
    const findings = await xsd.validate(xml.replace(/<Clave>\d+<\/Clave>/, '<Clave>1</Clave>'), FE);
    expect(findings).toEqual([{ code: CODES.schema, text: expect.stringMatching(/^linea 2: .*Clave/) }]);
  });

  it('when the schema does not compile, then the check is skipped and the fault told once', async () => {
    if (!ready) return;
    const broken = mkdtempSync(join(tmpdir(), 'sandbox-xsd-'));
    try {
      // Without the xmldsig schema it imports.
      copyFileSync(join(xsdDir(), FE), join(broken, FE));
      const told: string[] = [];
      const xsd = createXsdValidator(broken, (file, err) => told.push(`${file}: ${err.message}`));
      const xml = readFileSync(sample, 'utf8');
      expect(await xsd.validate(xml, FE)).toBeUndefined();
      expect(await xsd.validate(xml, FE)).toBeUndefined();
      expect(told).toEqual([
        expect.stringMatching(/^FacturaElectronica_V4.4.xsd: the schema .* does not compile/),
      ]);
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });
});
