// GET /openapi.json (the document built from the contracts) and GET /docs (Swagger UI from the
// swagger-ui-dist package, its files served from here: no CDN). Public, like the health routes.
import path from 'node:path';
import {
  DOCS_ASSETS_PATH,
  DOCS_ASSET_FILES,
  DOCS_INIT_PATH,
  DOCS_PATH,
  type JsonObject,
  OPENAPI_PATH,
  renderDocsInitScript,
  renderDocsPage,
} from '@cr/contracts';
import express, { Router } from 'express';

const ASSETS_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const SERVED = new Set<string>(DOCS_ASSET_FILES);

export function docsRouter(document: JsonObject, title: string): Router {
  // Built once: the document and the page never change while the process runs.
  const documentBody = JSON.stringify(document);
  const page = renderDocsPage(title);
  const script = renderDocsInitScript();
  const router = Router();
  router.get(OPENAPI_PATH, (_req, res) => {
    res.type('application/json').set('Cache-Control', 'public, max-age=300').send(documentBody);
  });
  router.get(DOCS_PATH, (_req, res) => {
    res.type('html').set('Cache-Control', 'no-cache').send(page);
  });
  router.get(DOCS_INIT_PATH, (_req, res) => {
    res.type('application/javascript').set('Cache-Control', 'no-cache').send(script);
  });
  // Only the files the page uses; the rest of the package (its demo index.html…) stays unserved.
  const assets = express.static(ASSETS_DIR, { index: false, fallthrough: false, maxAge: '1d' });
  router.use(DOCS_ASSETS_PATH, (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (!SERVED.has(req.path.slice(1))) return next();
    assets(req, res, next);
  });
  return router;
}
