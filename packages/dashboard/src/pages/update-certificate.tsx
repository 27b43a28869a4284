// Uploads a renewed .p12 for one issuer through POST /api/actualizar/emisor, which replaces the issuer's
// whole registration: the form asks for what the list does not show (address, activity, Hacienda user and
// password) and sends the file and password Base64-encoded, as the API takes them. Nothing is kept here.
import { useState } from 'preact/hooks';
import { call } from '../api';
import { useWords } from '../i18n';
import { ErrorLine } from '../ui';

const FIELDS = [
  ['tipoIdentificacion', 'number'],
  ['codigoActividad', 'text'],
  ['sucursal', 'number'],
  ['nombreComercial', 'text'],
  ['telefono', 'tel'],
  ['correoElectronico', 'email'],
  ['provincia', 'text'],
  ['canton', 'text'],
  ['distrito', 'text'],
  ['barrio', 'text'],
  ['direccion', 'text'],
  ['ambiente', 'number'],
  ['usuarioHacienda', 'text'],
  ['claveHacienda', 'password'],
  ['pinCertificado', 'password'],
] as const;

function base64Of(bytes: ArrayBuffer): string {
  let s = '';
  for (const b of new Uint8Array(bytes)) s += String.fromCharCode(b);
  return btoa(s);
}

export function UpdateCertificate({
  identificacion,
  onDone,
}: {
  identificacion: number;
  onDone: () => void;
}) {
  const t = useWords();
  const [error, setError] = useState<unknown>(undefined);
  const [done, setDone] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const v = (name: string) => String(form.get(name) ?? '');
    const file = form.get('certificado') as File;
    try {
      await call('POST', '/api/actualizar/emisor', {
        identificacion,
        tipoIdentificacion: Number(v('tipoIdentificacion')),
        codigoActividad: Number(v('codigoActividad')),
        sucursal: Number(v('sucursal')),
        nombreComercial: v('nombreComercial'),
        telefono: v('telefono'),
        correoElectronico: v('correoElectronico'),
        ubicacion: {
          provincia: v('provincia'),
          canton: v('canton'),
          distrito: v('distrito'),
          barrio: v('barrio'),
          direccion: v('direccion'),
        },
        ambiente: Number(v('ambiente')),
        usuarioHacienda: v('usuarioHacienda'),
        claveHacienda: btoa(unescape(encodeURIComponent(v('claveHacienda')))),
        pinCertificado: v('pinCertificado'),
        certificadoHacienda: base64Of(await file.arrayBuffer()),
      });
      setDone(true);
      onDone();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <details>
      <summary>{t.updateCert}</summary>
      <form class="grid" onSubmit={submit}>
        {FIELDS.map(([name, type]) => (
          <label key={name}>
            {t.certFields[name]}
            <input name={name} type={type} required autoComplete="off" />
          </label>
        ))}
        <label>
          .p12
          <input name="certificado" type="file" accept=".p12,application/x-pkcs12" required />
        </label>
        <ErrorLine error={error} />
        {done && <p class="ok">✓</p>}
        <button type="submit">{t.updateCert}</button>
      </form>
    </details>
  );
}
