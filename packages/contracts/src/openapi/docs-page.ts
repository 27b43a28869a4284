// The /docs viewer page: Swagger UI from the `swagger-ui-dist` package, served by the app itself under
// DOCS_ASSETS_PATH (no CDN, nothing loaded from elsewhere), reading the document at /openapi.json. The
// start-up script is a file of its own, not inline, so the page works under helmet's default CSP.

export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';
export const DOCS_ASSETS_PATH = '/docs/assets';
export const DOCS_INIT_PATH = '/docs/init.js';

/** The only files of swagger-ui-dist the page uses; nothing else of the package is served. */
export const DOCS_ASSET_FILES = [
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'favicon-16x16.png',
  'favicon-32x32.png',
] as const;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function renderDocsPage(title: string): string {
  const t = escapeHtml(title);
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>${t} API</title>
    <link rel="stylesheet" type="text/css" href="${DOCS_ASSETS_PATH}/swagger-ui.css">
    <link rel="icon" type="image/png" href="${DOCS_ASSETS_PATH}/favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="${DOCS_ASSETS_PATH}/favicon-16x16.png" sizes="16x16">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${DOCS_ASSETS_PATH}/swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="${DOCS_INIT_PATH}" charset="UTF-8"></script>
  </body>
</html>
`;
}

/**
 * Starts Swagger UI on the document. `validatorUrl: null` keeps it from fetching a badge from the public
 * validator service: the document is validated in CI instead.
 */
export function renderDocsInitScript(): string {
  return `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(OPENAPI_PATH)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;
}
