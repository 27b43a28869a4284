import { readFileSync, writeFileSync } from 'node:fs';
import { createClient } from '@cr-einvoice/sdk';
import { localhostFetch } from '@cr-einvoice/sdk/localhost';

const cr = createClient({
  authUrl: process.env.CR_AUTH_URL ?? 'http://localhost:4000',
  tenantUrl: process.env.CR_TENANT_URL ?? 'http://acme.localhost:4001',
  credentials: { base: 'acme', password: process.env.CR_PASSWORD ?? 'acme-password-123' },
  fetch: localhostFetch(), // *.localhost → 127.0.0.1 (development only)
});

await cr.emisores.register(JSON.parse(readFileSync('emisor.json', 'utf8')));
const { clave } = await cr.documentos.enviar(JSON.parse(readFileSync('factura.json', 'utf8')));
const { data } = await cr.documentos.esperarVeredicto(clave, {
  onProgress: (p) => console.error(`estado ${p.estado} (${Math.round(p.elapsedMs / 1000)} s)`),
});
process.stdout.write(`${clave} ${data.estado}\n`);
writeFileSync(`${clave}.xml`, await cr.documentos.descargarXml(clave));
