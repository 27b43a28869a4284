// A tenant that uploads supplier documents near RECEPCION_MAX_XML_BYTES and lists them 200 to a page: the
// listing read every stored XML (the supplier's and Hacienda's answer) only to drop them, measured at 259–407
// MB of tenant-api memory for one 219 KB page of 200 2 MiB documents, 811 MB for four pages at once, past the
// pod's 512 MiB. Only a download needs a stored XML. The proof is the database's own: with the tenant role's
// SELECT on those two columns withdrawn, uploading, listing and showing a received document still work (any
// read of them would be "permission denied"); with it back, the download gives the XML byte for byte.
import { getBytes, post } from './support/client';
import { RECEIVER_ID, b64, registerReceiver, supplierInvoice } from './support/supplier-documents';
import { type TestApp, startTestApp } from './support/test-app';
import { withColumnsWithheld } from './support/withheld-columns';

jest.setTimeout(120_000);

const XML_COLUMNS = ['xml', 'respuesta_hacienda_xml'];

let ctx: TestApp;

beforeAll(async () => {
  ctx = await startTestApp({ checkExonerations: false });
  await registerReceiver(ctx);
});
afterAll(() => ctx?.close());

it('when the stored XMLs cannot be read, then uploads, the listing and a document page still answer; only a download needs them', async () => {
  const first = supplierInvoice(901);
  expect(
    (await post(ctx, 'acme', '/api/recepcion/documentos', { receptor: RECEIVER_ID, xml: b64(first.xml) }))
      .status,
  ).toBe(201);
  await withColumnsWithheld(ctx.db, 'received_documents', XML_COLUMNS, async () => {
    const second = supplierInvoice(902);
    const uploaded = await post(ctx, 'acme', '/api/recepcion/documentos', {
      receptor: RECEIVER_ID,
      xml: b64(second.xml),
    });
    expect(uploaded.status).toBe(201);
    // The same XML again is the idempotent 200, told apart from another XML by its stored digest.
    const again = await post(ctx, 'acme', '/api/recepcion/documentos', {
      receptor: RECEIVER_ID,
      xml: b64(second.xml),
    });
    expect(again.status).toBe(200);

    const listed = await getBytes(ctx, 'acme', '/api/recepcion/documentos?limite=200');
    expect(listed.status).toBe(200);
    const claves = (JSON.parse(listed.body.toString('utf8')) as { data: { clave: string }[] }).data.map(
      (d) => d.clave,
    );
    expect(claves.sort()).toEqual([first.clave, second.clave].sort());

    const shown = await getBytes(ctx, 'acme', `/api/recepcion/documentos/${first.clave}`);
    expect(shown.status).toBe(200);
    expect(JSON.parse(shown.body.toString('utf8')).data).toMatchObject({ clave: first.clave });
  });
  const download = await getBytes(ctx, 'acme', `/api/recepcion/documentos/${first.clave}/xml`);
  expect(download.status).toBe(200);
  expect(download.body.toString('utf8')).toBe(first.xml);
  const noAnswer = await getBytes(ctx, 'acme', `/api/recepcion/documentos/${first.clave}/respuesta-hacienda`);
  expect(noAnswer.status).toBe(404);
});
