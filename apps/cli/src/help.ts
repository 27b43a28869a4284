// `cr --help` and `cr <command> --help`, in Spanish and English.
import type { Lang } from './i18n';

const GLOBAL: Record<Lang, string> = {
  es: `cr — facturación electrónica de Costa Rica desde la terminal

Uso: cr <comando> [opciones]

Comandos:
  login                         Inicia sesión (--base, --password o CR_PASSWORD, o se pregunta)
  logout                        Cierra la sesión: revoca el token y lo olvida (uno vencido solo se olvida)
  emisor registrar <emisor.json> --p12 <archivo> --pin <pin> [--usuario u --clave c]
                                Registra un emisor con su llave criptográfica de Hacienda
  emisor actualizar <emisor.json> --p12 <archivo> --pin <pin> [--usuario u --clave c]
                                Reemplaza el registro entero del emisor, llave incluida
  emisor consultar <identificación>
  enviar <documento.json> [--esperar] [--timeout <s>] [--idempotency-key <clave>]
                                Firma y envía un comprobante; con --esperar espera el veredicto
  consultar <clave>             Estado e historial de un documento
  descargar <clave> --xml|--respuesta|--pdf [--salida <archivo>|-]
  cabys <texto> [--limite <n>]  Busca códigos CABYS
  exoneracion <número>          Consulta una exoneración (p. ej. AL-00020402-24)
  contribuyente <identificación>
  webhook configurar <url> | consultar | reenviar <clave>
  webhook escuchar [--puerto <n>] [--secreto <whsec_…>]… [--configurar]
                                Receptor local que verifica e imprime los eventos (desarrollo)
  correo configurar --host <h> --puerto <n> --remitente <correo> [--usuario u] [--password p]
         [--secure|--starttls|--sin-tls] [--nombre-remitente n]  |  correo configurar --predeterminado
                                Servidor SMTP propio para los correos a los receptores (o el de la plataforma)
  correo consultar              Qué servidor envía los correos (nunca la contraseña)
  correo reenviar <clave> [--destinatario <correo>]…
                                Envía de nuevo el correo de un documento aceptado

Opciones globales:
  --json                 Salida JSON para scripts (stdout); el progreso va a stderr
  --lang es|en           Idioma (por defecto: CR_LANG o el locale)
  --auth-url <url>       auth-server (CR_AUTH_URL; se guarda al hacer login)
  --tenant-url <url>     API del tenant, p. ej. https://acme.api.example.com (CR_TENANT_URL)
  -h, --help             Esta ayuda; \`cr <comando> --help\` para un comando

Sesión: \`cr login\` guarda el token (no la contraseña) en $CR_CONFIG_DIR o ~/.config/cr-einvoice.
Con CR_BASE y CR_PASSWORD definidos, cr inicia sesión solo y renueva el token antes de que venza.

Códigos de salida:
  0 éxito · 1 error inesperado · 2 uso incorrecto o archivo ilegible · 3 sesión o credenciales
  4 solicitud rechazada (400/409/413/422) · 5 no encontrado · 6 servicio o Hacienda no disponible
  7 Hacienda rechazó el documento · 8 --esperar agotó el tiempo
`,
  en: `cr — Costa Rica electronic invoicing from the terminal

Usage: cr <command> [options]

Commands:
  login                         Log in (--base, --password or CR_PASSWORD, or asked)
  logout                        Log out: revoke the token and forget it (an expired one is just forgotten)
  emisor registrar <emisor.json> --p12 <file> --pin <pin> [--usuario u --clave c]
                                Register an issuer with its Hacienda signing key
  emisor actualizar <emisor.json> --p12 <file> --pin <pin> [--usuario u --clave c]
                                Replace the issuer's whole registration, key included
  emisor consultar <identificacion>
  enviar <document.json> [--esperar] [--timeout <s>] [--idempotency-key <key>]
                                Sign and send a document; with --esperar wait for the verdict
  consultar <clave>             State and history of a document
  descargar <clave> --xml|--respuesta|--pdf [--salida <file>|-]
  cabys <text> [--limite <n>]   Search CABYS codes
  exoneracion <number>          Look up an exoneration (e.g. AL-00020402-24)
  contribuyente <identificacion>
  webhook configurar <url> | consultar | reenviar <clave>
  webhook escuchar [--puerto <n>] [--secreto <whsec_…>]… [--configurar]
                                Local receiver that verifies and prints events (development)
  correo configurar --host <h> --puerto <n> --remitente <email> [--usuario u] [--password p]
         [--secure|--starttls|--sin-tls] [--nombre-remitente n]  |  correo configurar --predeterminado
                                Your own SMTP server for the e-mails to receptors (or the platform's)
  correo consultar              Which server sends the e-mails (never the password)
  correo reenviar <clave> [--destinatario <email>]…
                                Send an accepted document's e-mail again

Global options:
  --json                 JSON output for scripts (stdout); progress goes to stderr
  --lang es|en           Language (default: CR_LANG or the locale)
  --auth-url <url>       auth-server (CR_AUTH_URL; remembered by login)
  --tenant-url <url>     Your tenant's API, e.g. https://acme.api.example.com (CR_TENANT_URL)
  -h, --help             This help; \`cr <command> --help\` for one command

Session: \`cr login\` stores the token (never the password) in $CR_CONFIG_DIR or ~/.config/cr-einvoice.
With CR_BASE and CR_PASSWORD set, cr logs in by itself and renews the token before it expires.

Exit codes:
  0 success · 1 unexpected error · 2 wrong usage or unreadable file · 3 session or credentials
  4 request refused (400/409/413/422) · 5 not found · 6 service or Hacienda unavailable
  7 Hacienda rejected the document · 8 --esperar ran out of time
`,
};

const COMMANDS: Record<string, Record<Lang, string>> = {
  login: {
    es: 'cr login [--base <cliente>] [--password <contraseña>] [--auth-url <url>] [--tenant-url <url>]\n\nInicia sesión en el auth-server y guarda el token. Sin --password lee CR_PASSWORD o la pregunta.\n',
    en: 'cr login [--base <client>] [--password <password>] [--auth-url <url>] [--tenant-url <url>]\n\nLogs in at the auth-server and stores the token. Without --password it reads CR_PASSWORD or asks.\n',
  },
  emisor: {
    es: 'cr emisor registrar <emisor.json> --p12 <llave.p12> --pin <pin> [--usuario <usuario ATV> --clave <contraseña ATV>]\ncr emisor actualizar <emisor.json> --p12 <llave.p12> --pin <pin> [--usuario <usuario ATV> --clave <contraseña ATV>]\ncr emisor consultar <identificación>\n\nemisor.json lleva los datos del emisor (identificacion, tipoIdentificacion, codigoActividad, ubicacion, ambiente…);\n--p12 y --pin agregan la llave criptográfica, --usuario y --clave las credenciales de Hacienda. actualizar reemplaza el registro\nentero, así que pide la llave como registrar: --p12 y --pin, salvo que emisor.json ya traiga certificadoHacienda y pinCertificado.\nSin --pin se lee CR_P12_PIN (con --p12) y sin --clave CR_CLAVE_HACIENDA (con --usuario): así no quedan en la lista de procesos\nni en el historial.\n',
    en: "cr emisor registrar <emisor.json> --p12 <key.p12> --pin <pin> [--usuario <ATV user> --clave <ATV password>]\ncr emisor actualizar <emisor.json> --p12 <key.p12> --pin <pin> [--usuario <ATV user> --clave <ATV password>]\ncr emisor consultar <identificacion>\n\nemisor.json holds the issuer's data (identificacion, tipoIdentificacion, codigoActividad, ubicacion, ambiente…);\n--p12 and --pin add the signing key, --usuario and --clave the Hacienda credentials. actualizar replaces the whole\nregistration, so it needs the key as registrar does: --p12 and --pin, unless emisor.json already holds certificadoHacienda and\npinCertificado. Without --pin it reads CR_P12_PIN (with --p12), without --clave CR_CLAVE_HACIENDA (with --usuario): kept out\nof the process list and shell history.\n",
  },
  enviar: {
    es: 'cr enviar <documento.json> [--esperar] [--timeout <segundos>] [--idempotency-key <clave>]\n\nEnvía el comprobante. Con --esperar muestra el progreso y espera el veredicto (salida 7 si Hacienda lo rechaza, 8 si se agota el tiempo; 120 s por defecto).\n',
    en: 'cr enviar <document.json> [--esperar] [--timeout <seconds>] [--idempotency-key <key>]\n\nSends the document. With --esperar it shows progress and waits for the verdict (exit 7 if Hacienda rejects it, 8 on timeout; 120 s by default).\n',
  },
  descargar: {
    es: 'cr descargar <clave> --xml|--respuesta|--pdf [--salida <archivo>|-]\n\nGuarda el XML firmado, la respuesta de Hacienda o el PDF (por defecto <clave>.xml, <clave>_respuesta.xml, <clave>.pdf; "-" escribe a stdout).\n',
    en: 'cr descargar <clave> --xml|--respuesta|--pdf [--salida <file>|-]\n\nSaves the signed XML, Hacienda\'s answer or the PDF (default <clave>.xml, <clave>_respuesta.xml, <clave>.pdf; "-" writes to stdout).\n',
  },
  webhook: {
    es: 'cr webhook configurar <url>\ncr webhook consultar\ncr webhook reenviar <clave>\ncr webhook escuchar [--puerto <n>] [--secreto <whsec_…>]… [--configurar]\n\n`escuchar` abre un receptor local (127.0.0.1) que verifica cada entrega (Standard Webhooks) con los secretos dados\n(o CR_WEBHOOK_SECRET) e imprime los eventos. Con --configurar apunta el webhook del tenant al receptor y usa el secreto nuevo.\n`reenviar` pone en cola un evento nuevo con el estado final del documento y avisa cuando no se entregará: sin URL, o con el webhook\ndesactivado porque el receptor respondió 410 Gone.\n',
    en: "cr webhook configurar <url>\ncr webhook consultar\ncr webhook reenviar <clave>\ncr webhook escuchar [--puerto <n>] [--secreto <whsec_…>]… [--configurar]\n\n`escuchar` opens a local receiver (127.0.0.1) that verifies each delivery (Standard Webhooks) with the given secrets\n(or CR_WEBHOOK_SECRET) and prints the events. With --configurar it points the tenant's webhook at the receiver and uses the new secret.\n`reenviar` queues a new event with the document's final state and warns when it will not be delivered: no URL, or the webhook\ndeactivated because the receiver answered 410 Gone.\n",
  },
  correo: {
    es: 'cr correo configurar --host <servidor> --puerto <n> --remitente <correo> [--usuario <usuario>] [--password <contraseña>]\n                      [--secure|--starttls] [--nombre-remitente <nombre>]\ncr correo configurar --predeterminado\ncr correo consultar\ncr correo reenviar <clave> [--destinatario <correo>]…\n\n`configurar` reemplaza el servidor SMTP que envía a los receptores el XML firmado, la respuesta de Hacienda y el PDF de cada documento\naceptado (--secure: TLS desde el inicio, por defecto en el puerto 465; --starttls: STARTTLS). La contraseña se lee de --password o de\nCR_SMTP_PASSWORD, se guarda sellada y no se vuelve a mostrar. --predeterminado vuelve al servidor de la plataforma.\n`reenviar` pone en cola un correo nuevo, a los --destinatario dados o al receptor y las copias del documento.\n',
    en: "cr correo configurar --host <server> --puerto <n> --remitente <email> [--usuario <user>] [--password <password>]\n                      [--secure|--starttls] [--nombre-remitente <name>]\ncr correo configurar --predeterminado\ncr correo consultar\ncr correo reenviar <clave> [--destinatario <email>]…\n\n`configurar` replaces the SMTP server that sends receptors the signed XML, Hacienda's answer and the PDF of each accepted\ndocument (--secure: TLS from the first byte, the default on port 465; --starttls: STARTTLS). The password is read from --password or\nCR_SMTP_PASSWORD, stored sealed and never shown again. --predeterminado goes back to the platform's server.\n`reenviar` queues a new e-mail, to the given --destinatario or to the document's receptor and copias.\n",
  },
};

export function helpText(lang: Lang, command?: string): string {
  return (command && COMMANDS[command]?.[lang]) || GLOBAL[lang];
}
