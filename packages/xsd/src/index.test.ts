import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type XsdOutcome, type XsdValidator, containsDtd, createXsdValidator } from './index';
import { launchable, launcherPids } from './xmllint-launcher';
import { spawnedRun } from './xmllint-run';

const XSD_DIR = process.env.HACIENDA_XSD_DIR ?? resolve(__dirname, '../../../../shared/hacienda/xsd');
const SAMPLES_DIR = process.env.HACIENDA_SAMPLES_DIR ?? resolve(XSD_DIR, '../samples');
const FE_SAMPLE = join(SAMPLES_DIR, 'fe-50626052600310295087500100001010000000033159073080.xml');
const ready =
  existsSync(join(XSD_DIR, 'MensajeReceptor_V4.4.xsd')) &&
  existsSync(FE_SAMPLE) &&
  spawnSync('which', ['xmllint']).status === 0;
if (!ready && process.env.CI === 'true')
  throw new Error('CI=true and xmllint, the XSDs or the samples are missing');

// Every validator of this file keeps its private directory under this one, so the tests can look inside.
const TMP = mkdtempSync(join(tmpdir(), 'xsd-test-'));
const validators: XsdValidator[] = [];
function validatorOf(options: Partial<Parameters<typeof createXsdValidator>[0]> = {}): XsdValidator {
  const v = createXsdValidator({ xsdDir: XSD_DIR, tmpDir: TMP, ...options });
  validators.push(v);
  return v;
}
afterAll(async () => {
  await Promise.all(validators.map((v) => v.close()));
  rmSync(TMP, { recursive: true, force: true });
});

/** Files in the validators' private directories. */
function leftFiles(): string[] {
  return readdirSync(TMP).flatMap((d) => readdirSync(join(TMP, d)).map((f) => join(d, f)));
}

const FE = 'FacturaElectronica_V4.4.xsd';
const ns = 'https://cdn.comprobanteselectronicos.go.cr/xml-schemas/v4.4/mensajeReceptor';
const feSample = () => readFileSync(FE_SAMPLE, 'utf8');
/** Invalid, with a complaint naming `mark` (a clave that breaks the 50-digit pattern). */
const badClave = (mark: string) => feSample().replace(/<Clave>\d+<\/Clave>/, `<Clave>${mark}</Clave>`);
/** Not well-formed: parser errors and no verdict line. */
const truncated = () => feSample().slice(0, 3000);
/** Small, but libxml2 2.9 checks duplicate attributes pairwise: seconds of parsing. */
const slowDocument = () =>
  `<FacturaElectronica${Array.from({ length: 100_000 }, (_, i) => ` a${i}=""`).join('')}/>`;
const nextTurn = () => new Promise((r) => setImmediate(r));
/** The validator's load once `done` holds for it (or after 10 s). */
async function loadWhen(v: XsdValidator, done: (load: { running: number; waiting: number }) => boolean) {
  const deadline = Date.now() + 10_000;
  while (!done(v.load()) && Date.now() < deadline) await nextTurn();
  return v.load();
}
async function loadBecomes(v: XsdValidator, expected: { running: number; waiting: number }) {
  return loadWhen(v, (l) => l.running === expected.running && l.waiting === expected.waiting);
}

const errorsOf = (o: XsdOutcome | undefined) => (o && !o.valid ? o.errors.join('\n') : '');

describe('XSD validation of untrusted XML', () => {
  const validator = validatorOf({ maxBytes: 64 * 1024 });

  it('when the document carries a DTD (an XML bomb), then it is refused before xmllint or a file sees it', async () => {
    const bomb = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><MensajeReceptor>&lol2;</MensajeReceptor>`;
    expect(containsDtd(bomb)).toBe(true);
    const before = readdirSync(TMP).length;
    const out = await validator.validate(bomb, 'MensajeReceptor_V4.4.xsd');
    expect(out).toMatchObject({ valid: false, refused: expect.stringMatching(/DTD/) });
    expect(validator.load()).toEqual({ running: 0, waiting: 0 });
    expect(readdirSync(TMP).length).toBe(before);
    // Refused even where no schema or xmllint could run.
    const nowhere = createXsdValidator({ xsdDir: '/nonexistent' });
    expect(await nowhere.validate(bomb, 'x.xsd')).toMatchObject({
      valid: false,
      refused: expect.stringMatching(/DTD/),
    });
  });

  it('when the document is larger than the limit, then it is refused', async () => {
    const out = await validator.validate(`<a>${'x'.repeat(70 * 1024)}</a>`, 'MensajeReceptor_V4.4.xsd');
    expect(out).toMatchObject({ valid: false, refused: expect.stringMatching(/larger/) });
  });

  it('when a lone document breaks the schema, then it runs at once and xmllint names the element by line; a wrong schema name is unavailable', async () => {
    if (!ready) return console.warn('skipping: xmllint, XSDs or samples missing');
    const pending = validator.validate(
      `<MensajeReceptor xmlns="${ns}">\n<Clave>1</Clave></MensajeReceptor>`,
      'MensajeReceptor_V4.4.xsd',
    );
    // It never waits: the first thing the load shows is it running.
    expect(await loadWhen(validator, (l) => l.running + l.waiting > 0)).toEqual({ running: 1, waiting: 0 });
    const out = await pending;
    expect(out?.valid).toBe(false);
    expect(errorsOf(out)).toMatch(/^line 2: element Clave: Schemas validity error/);
    expect(await validator.validate('<a/>', '../etc/passwd')).toBeUndefined();
    expect(await createXsdValidator({ xsdDir: '/nonexistent' }).validate('<a/>', 'x.xsd')).toBeUndefined();
  });

  it('when documents wait for the same schema, then one run judges them together and each gets its own verdict and errors, in any order', async () => {
    if (!ready) return console.warn('skipping: xmllint, XSDs or samples missing');
    const batched = validatorOf({ maxConcurrent: 1 });
    const kinds = {
      valid: () => feSample(),
      bad111: () => badClave('111'),
      bad222: () => badClave('222'),
      broken: () => truncated(),
    } as const;
    type Kind = keyof typeof kinds;
    const orders: Kind[][] = [
      ['valid', 'bad111', 'broken', 'valid', 'bad222'],
      ['broken', 'bad222', 'valid', 'bad111', 'valid'],
      ['bad111', 'valid', 'bad222', 'broken', 'broken', 'valid'],
    ];
    for (const order of orders) {
      // A first document takes the only turn; the rest wait, then share one run.
      const lead = batched.validate(feSample(), FE);
      const pending = order.map((k) => batched.validate(kinds[k](), FE));
      expect(await loadBecomes(batched, { running: 1, waiting: order.length })).toEqual({
        running: 1,
        waiting: order.length,
      });
      expect(await lead).toEqual({ valid: true });
      await nextTurn();
      expect(batched.load()).toEqual({ running: 1, waiting: 0 });
      const outcomes = await Promise.all(pending);
      for (const [i, kind] of order.entries()) {
        const out = outcomes[i];
        const text = errorsOf(out);
        if (kind === 'valid') {
          expect(out).toEqual({ valid: true });
          continue;
        }
        expect(out?.valid).toBe(false);
        expect(text).toMatch(/^line \d+: /);
        expect(text.includes("'111'")).toBe(kind === 'bad111');
        expect(text.includes("'222'")).toBe(kind === 'bad222');
        expect(text.includes('parser error')).toBe(kind === 'broken');
        // A parser error is followed by its context and caret lines, as xmllint prints them; a schema
        // error is one line.
        if (kind === 'broken') expect(text).toMatch(/line 2: parser error : Premature end of data.*\n.+\n\^/);
        else for (const l of text.split('\n')) expect(l).toMatch(/^line \d+: element Clave: /);
      }
    }
    // Once nothing runs or waits, nothing is left on disk.
    expect(leftFiles()).toEqual([]);
    expect(readdirSync(TMP)).toEqual([]);
  });

  it('when a derived schema is given, then xmllint compiles it from a private file with the official imports, gone once idle', async () => {
    if (!ready) return console.warn('skipping: xmllint, XSDs or samples missing');
    const derived = validatorOf({
      maxConcurrent: 1,
      extendSchema: (text, dir) =>
        text
          .replace('<xs:element name="MensajeReceptor">', '<xs:element name="MensajeReceptorDerivado">')
          .replace(
            'schemaLocation="xmldsig-core-schema.xsd"',
            `schemaLocation="${dir}/xmldsig-core-schema.xsd"`,
          ),
    });
    const pending = [
      `<MensajeReceptorDerivado xmlns="${ns}"><Clave>1</Clave></MensajeReceptorDerivado>`,
      `<MensajeReceptor xmlns="${ns}"><Clave>1</Clave></MensajeReceptor>`,
      `<MensajeReceptorDerivado xmlns="${ns}"><Clave>2</Clave></MensajeReceptorDerivado>`,
    ].map((xml) => derived.validate(xml, 'MensajeReceptor_V4.4.xsd'));
    // While xmllint runs: the derived text is a file readable by this user only, in a directory only this
    // user can enter, with the official directory in its imports.
    await loadWhen(derived, (l) => l.running === 1);
    const schemas = leftFiles().filter((f) => f.endsWith('.xsd'));
    expect(schemas).toHaveLength(1);
    const schema = join(TMP, schemas[0]!);
    expect(statSync(schema).mode & 0o777).toBe(0o600);
    expect(statSync(join(schema, '..')).mode & 0o777).toBe(0o700);
    expect(readFileSync(schema, 'utf8')).toContain(`${XSD_DIR}/xmldsig-core-schema.xsd`);
    const [out, official, again] = await Promise.all(pending);
    // The derived root is declared (the complaint is about its content), the official one no longer is.
    expect(errorsOf(out)).toMatch(/'1' is not accepted/);
    expect(errorsOf(again)).toMatch(/'2' is not accepted/);
    expect(errorsOf(official)).toMatch(/No matching global declaration/);
    // Idle: the directory is gone; the next validation writes the schema again.
    await derived.close();
    expect(readdirSync(TMP)).toEqual([]);
    expect(
      errorsOf(await derived.validate(`<MensajeReceptor xmlns="${ns}"/>`, 'MensajeReceptor_V4.4.xsd')),
    ).toMatch(/No matching global declaration/);
    expect(readdirSync(TMP)).toEqual([]);
  });

  it('when the derived schema keeps a relative import, then it does not compile and every document of the run fails with that, none with a verdict', async () => {
    if (!ready) return console.warn('skipping: xmllint, XSDs or samples missing');
    const broken = validatorOf({
      maxConcurrent: 1,
      extendSchema: (text) => text,
    });
    const outcomes = await Promise.allSettled(
      [1, 2, 3].map((i) =>
        broken.validate(
          `<MensajeReceptor xmlns="${ns}"><Clave>${i}</Clave></MensajeReceptor>`,
          'MensajeReceptor_V4.4.xsd',
        ),
      ),
    );
    for (const o of outcomes)
      expect(o).toMatchObject({
        status: 'rejected',
        reason: { message: expect.stringMatching(/could not compile the schema: .*xmldsig#}Signature/) },
      });
  });

  it('when more validations arrive than maxConcurrent, then at most that many xmllint run and the rest wait their turn', async () => {
    if (!ready) return console.warn('skipping: xmllint, XSDs or samples missing');
    const bounded = validatorOf({ maxConcurrent: 2 });
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
        Array.from({ length: 60 }, (_, i) => bounded.validate(doc(i), 'MensajeReceptor_V4.4.xsd')),
      );
      for (const [i, o] of outcomes.entries())
        expect(errorsOf(o)).toContain(`The value '${i}' is not accepted`);
    } finally {
      clearInterval(sample);
    }
    expect(peak).toBe(2);
    expect(sawWaiting).toBe(true);
    expect(bounded.load()).toEqual({ running: 0, waiting: 0 });
  });

  it('when a slow document times out a shared run, then only it fails; the others keep or get their own verdicts', async () => {
    if (!ready) return console.warn('skipping: xmllint, XSDs or samples missing');
    const timed = validatorOf({ maxConcurrent: 1, timeoutMs: 3000 });
    const lead = timed.validate(feSample(), FE);
    const before = timed.validate(badClave('111'), FE);
    const slow = timed.validate(slowDocument(), FE);
    const after = [timed.validate(feSample(), FE), timed.validate(badClave('222'), FE)];
    expect(await loadBecomes(timed, { running: 1, waiting: 4 })).toEqual({ running: 1, waiting: 4 });
    await lead;
    await nextTurn();
    expect(timed.load()).toEqual({ running: 1, waiting: 0 });
    // The shared run is over (its first document was judged); the slow one runs again alone, the others
    // wait behind it. The shared run's files are gone; at most the one being validated is there.
    await before;
    expect(await loadBecomes(timed, { running: 1, waiting: 2 })).toEqual({ running: 1, waiting: 2 });
    expect(leftFiles().filter((f) => f.endsWith('.xml')).length).toBeLessThanOrEqual(1);
    const settled = await Promise.allSettled([before, slow, ...after]);
    const text = (i: number) => {
      const s = settled[i];
      return s?.status === 'fulfilled' ? errorsOf(s.value) : `rejected: ${s?.reason}`;
    };
    expect(settled[1]).toMatchObject({ status: 'rejected', reason: new Error('xmllint timed out') });
    expect(text(0)).toContain("'111'");
    expect(settled[2]).toEqual({ status: 'fulfilled', value: { valid: true } });
    expect(text(3)).toContain("'222'");
    expect(timed.load()).toEqual({ running: 0, waiting: 0 });
    // Once nothing runs or waits, nothing is left on disk.
    expect(leftFiles()).toEqual([]);
    expect(readdirSync(TMP)).toEqual([]);
  }, 60_000);

  it('when runs follow each other, then one long-lived launcher starts each xmllint, not this process', async () => {
    if (!ready) return console.warn('skipping: xmllint, XSDs or samples missing');
    const v = validatorOf();
    expect(await v.validate(feSample(), FE)).toEqual({ valid: true });
    const launchers = launcherPids();
    expect(launchers.length).toBeGreaterThan(0);
    expect(errorsOf(await v.validate(badClave('7'), FE))).toContain("'7'");
    expect(await v.validate(feSample(), FE)).toEqual({ valid: true });
    // The same launcher processes, still alive, and none added for runs that never overlapped.
    expect(launcherPids()).toEqual(launchers);
    for (const pid of launchers) expect(existsSync(`/proc/${pid}`)).toBe(true);
    // Only the launchers are this process's children now: every xmllint was theirs, and has ended.
    const children = readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
    for (const pid of children) expect(launchers).toContain(pid);
    expect(leftFiles()).toEqual([]);
  });

  it('when a launcher dies between runs, then the next run starts a new one', async () => {
    if (!ready) return console.warn('skipping: xmllint, XSDs or samples missing');
    const v = validatorOf();
    expect(await v.validate(feSample(), FE)).toEqual({ valid: true });
    const [first] = launcherPids();
    process.kill(first as number, 'SIGKILL');
    for (let i = 0; i < 100 && launcherPids().includes(first as number); i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(launcherPids()).not.toContain(first);
    expect(errorsOf(await v.validate(badClave('6'), FE))).toContain("'6'");
    expect(launcherPids().length).toBeGreaterThan(0);
    expect(launcherPids()).not.toContain(first);
  });

  it('when a path cannot travel in a launcher request, then this process starts xmllint itself, with the same report', async () => {
    if (!ready) return console.warn('skipping: xmllint, XSDs or samples missing');
    expect(launchable(['/tmp/a b/c.xml'])).toBe(true);
    for (const odd of ['/tmp/a\tb/c.xml', '/tmp/a\nb/c.xml', '/tmp/a\rb/c.xml', ''])
      expect(launchable([odd])).toBe(false);
    const dir = mkdtempSync(join(TMP, 'spawned-'));
    try {
      const good = join(dir, 'good.xml');
      const bad = join(dir, 'bad.xml');
      writeFileSync(good, feSample());
      writeFileSync(bad, badClave('9'));
      const run = await spawnedRun(join(XSD_DIR, FE), [good, bad], 20_000);
      expect(run).toMatchObject({ code: 3, killed: false, truncated: false });
      expect(run.report.files.get(good)).toEqual({ verdict: 'validates', errors: [] });
      expect(run.report.files.get(bad)?.verdict).toBe('fails');
      expect(run.report.files.get(bad)?.errors.join('\n')).toContain("'9'");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
