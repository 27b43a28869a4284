export CR_AUTH_URL="${CR_AUTH_URL:-http://localhost:4000}" CR_TENANT_URL="${CR_TENANT_URL:-http://acme.localhost:4001}"

cr login --base acme --password "${CR_PASSWORD:-acme-password-123}"
cr emisor registrar emisor.json --p12 llave.p12   # the PIN from CR_P12_PIN, never on the command line
CLAVE=$(cr enviar factura.json --esperar --json | node -pe 'JSON.parse(require("fs").readFileSync(0)).clave')
cr consultar "$CLAVE"
cr descargar "$CLAVE" --xml
cr descargar "$CLAVE" --respuesta
