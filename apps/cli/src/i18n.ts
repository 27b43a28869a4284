// The CLI's words in Spanish and English. The language is --lang, else CR_LANG, else the locale (LC_ALL,
// LC_MESSAGES, LANG): English when it starts with "en", Spanish otherwise (the product's home language).
export type Lang = 'es' | 'en';

export function pickLang(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): Lang {
  const value = flag ?? env.CR_LANG ?? env.LC_ALL ?? env.LC_MESSAGES ?? env.LANG ?? '';
  return value.toLowerCase().startsWith('en') ? 'en' : 'es';
}

const MESSAGES = {
  es: {
    loggedIn: 'Sesión iniciada como {base}; el token vence {exp}.',
    loggedOut: 'Sesión cerrada: el token fue revocado.',
    loggedOutExpired: 'La sesión ya había vencido ({exp}): se olvidó el token; no había nada que revocar.',
    loggedOutRefused:
      'La sesión ya había vencido: el auth-server ya no acepta su token ({message}); se olvidó el token.',
    noSession: 'No hay sesión: ejecute `cr login` (o defina CR_BASE y CR_PASSWORD).',
    sessionExpired: 'La sesión venció ({exp}): ejecute `cr login` de nuevo.',
    sessionRefused: 'El servicio rechazó la sesión (vencida o revocada): ejecute `cr login` de nuevo.',
    missingBase: 'Falta el cliente: use --base o CR_BASE.',
    missingPassword:
      'Falta la contraseña: use --password o CR_PASSWORD, escríbala cuando se le pida o pásela por stdin.',
    askBase: 'Cliente (base): ',
    askPassword: 'Contraseña: ',
    needTenantUrl:
      'Falta la URL del tenant: use --tenant-url o CR_TENANT_URL (p. ej. http://acme.localhost:4001).',
    needAuthUrl: 'Falta la URL del auth-server: use --auth-url o CR_AUTH_URL (p. ej. http://localhost:4000).',
    emisorRegistered: 'Emisor {id} registrado.',
    emisorUpdated: 'Emisor {id} actualizado.',
    warning: 'Aviso: {text}',
    sent: 'Documento enviado. Clave: {clave}',
    waiting: 'Esperando el veredicto de Hacienda… estado {estado} ({s} s)',
    verdict: 'Veredicto de Hacienda: {estado}',
    estado: 'Estado: {estado}',
    clave: 'Clave: {clave}',
    consecutivo: 'Consecutivo: {consecutivo}',
    history: 'Entregas del webhook:',
    mailHistory: 'Correos al receptor:',
    olderNotShown: '  … y {n} anteriores (se muestran los {shown} más recientes)',
    detail: 'Detalle de Hacienda: {text}',
    saved: 'Guardado en {file} ({bytes} bytes).',
    noResults: 'Sin resultados.',
    webhookConfigured: 'Webhook configurado: {url}\nSecreto (guárdelo, no se vuelve a mostrar): {secret}',
    webhookReplayed: 'Evento {id} de {clave} en cola; su entrega aparece en `cr consultar <clave>`.',
    replayNoUrl:
      'no hay una URL de webhook configurada: no se entregará nada. Configure una con `cr webhook configurar <url>`.',
    replayDisabled:
      'el webhook está desactivado{since}{reason}: no se entregará nada. Guarde la URL de nuevo con `cr webhook configurar <url>` para reactivarlo (recibirá un secreto nuevo).',
    replayDisabledSince: ' desde el {at}',
    replayDisabledReason: ' (motivo: {reason})',
    mailPlatform: 'Correo: lo envía el servidor SMTP de la plataforma.',
    mailTenant: 'Correo: lo envía el servidor SMTP del tenant {server} ({tls}), remitente {from}.',
    mailPasswordSealed: 'La contraseña SMTP quedó guardada sellada; no se vuelve a mostrar.',
    mailTlsOptional: 'STARTTLS solo si el servidor la ofrece',
    mailQueued: 'Correo de {clave} en cola (envío {id}); su resultado aparece en `cr consultar <clave>`.',
    listening: 'Escuchando webhooks en {url} (Ctrl+C para terminar).',
    listeningConfigured: 'Webhook del tenant apuntado a {url}; secreto nuevo en uso.',
    eventOk: '✓ {time} {estado} {clave} ({tipo}, id {id})',
    deadlineNear:
      '✓ {time} recepcion.deadline {clave}: responder a más tardar el {vence}, quedan {dias} días hábiles (proveedor {emisor}, receptor {receptor}, id {id})',
    deadlinePassed:
      '✓ {time} recepcion.deadline {clave}: el plazo venció el {vence}, hace {dias} días hábiles (proveedor {emisor}, receptor {receptor}, id {id})',
    eventOther: '✓ {time} {type} {clave} (id {id})',
    eventBad: '✗ {time} entrega rechazada: {reason}',
    error: 'Error ({code}): {message}',
    requestId: 'Id de solicitud: {id}',
    field: '  - {path}: {reason}',
    unknownCommand: 'Comando desconocido: {cmd}. Use `cr --help`.',
    readFailed: 'No se pudo leer {file}: {reason}',
  },
  en: {
    loggedIn: 'Logged in as {base}; the token expires {exp}.',
    loggedOut: 'Logged out: the token was revoked.',
    loggedOutExpired:
      'The session had already expired ({exp}): the token was forgotten; there was nothing to revoke.',
    loggedOutRefused:
      'The session had already expired: the auth-server no longer accepts its token ({message}); the token was forgotten.',
    noSession: 'Not logged in: run `cr login` (or set CR_BASE and CR_PASSWORD).',
    sessionExpired: 'The session expired ({exp}): run `cr login` again.',
    sessionRefused: 'The service refused the session (expired or revoked): run `cr login` again.',
    missingBase: 'The client (base) is missing: use --base or CR_BASE.',
    missingPassword:
      'The password is missing: use --password or CR_PASSWORD, type it when asked or pass it on stdin.',
    askBase: 'Client (base): ',
    askPassword: 'Password: ',
    needTenantUrl:
      'The tenant URL is missing: use --tenant-url or CR_TENANT_URL (e.g. http://acme.localhost:4001).',
    needAuthUrl:
      'The auth-server URL is missing: use --auth-url or CR_AUTH_URL (e.g. http://localhost:4000).',
    emisorRegistered: 'Issuer {id} registered.',
    emisorUpdated: 'Issuer {id} updated.',
    warning: 'Warning: {text}',
    sent: 'Document sent. Clave: {clave}',
    waiting: "Waiting for Hacienda's verdict… estado {estado} ({s} s)",
    verdict: "Hacienda's verdict: {estado}",
    estado: 'Estado: {estado}',
    clave: 'Clave: {clave}',
    consecutivo: 'Consecutivo: {consecutivo}',
    history: 'Webhook deliveries:',
    mailHistory: 'E-mails to the receptor:',
    olderNotShown: '  … and {n} earlier ones (the latest {shown} are shown)',
    detail: "Hacienda's detail: {text}",
    saved: 'Saved to {file} ({bytes} bytes).',
    noResults: 'No results.',
    webhookConfigured: 'Webhook configured: {url}\nSecret (keep it, it is not shown again): {secret}',
    webhookReplayed: 'Event {id} of {clave} queued; its delivery shows in `cr consultar <clave>`.',
    replayNoUrl:
      'no webhook URL is configured: nothing will be delivered. Set one with `cr webhook configurar <url>`.',
    replayDisabled:
      'the webhook is deactivated{since}{reason}: nothing will be delivered. Save the URL again with `cr webhook configurar <url>` to reactivate it (you get a new secret).',
    replayDisabledSince: ' since {at}',
    replayDisabledReason: ' (reason: {reason})',
    mailPlatform: "E-mail: the platform's SMTP server sends it.",
    mailTenant: "E-mail: the tenant's SMTP server {server} ({tls}) sends it, from {from}.",
    mailPasswordSealed: 'The SMTP password is stored sealed; it is not shown again.',
    mailTlsOptional: 'STARTTLS only if the server offers it',
    mailQueued: 'E-mail of {clave} queued (envío {id}); its outcome shows in `cr consultar <clave>`.',
    listening: 'Listening for webhooks on {url} (Ctrl+C to stop).',
    listeningConfigured: "The tenant's webhook now points at {url}; a new secret is in use.",
    eventOk: '✓ {time} {estado} {clave} ({tipo}, id {id})',
    deadlineNear:
      '✓ {time} recepcion.deadline {clave}: answer by {vence}, {dias} business days left (supplier {emisor}, receptor {receptor}, id {id})',
    deadlinePassed:
      '✓ {time} recepcion.deadline {clave}: the deadline was {vence}, {dias} business days ago (supplier {emisor}, receptor {receptor}, id {id})',
    eventOther: '✓ {time} {type} {clave} (id {id})',
    eventBad: '✗ {time} delivery refused: {reason}',
    error: 'Error ({code}): {message}',
    requestId: 'Request id: {id}',
    field: '  - {path}: {reason}',
    unknownCommand: 'Unknown command: {cmd}. Use `cr --help`.',
    readFailed: 'Could not read {file}: {reason}',
  },
} as const;

export type MessageKey = keyof (typeof MESSAGES)['es'];

export type Translate = (key: MessageKey, vars?: Record<string, string | number | undefined>) => string;

export function translator(lang: Lang): Translate {
  return (key, vars = {}) =>
    MESSAGES[lang][key].replace(/\{(\w+)\}/g, (_m, name: string) => String(vars[name] ?? ''));
}
