// The flat messages (MensajeHacienda, MensajeReceptor) are one root with text children: this reads them
// with the same refusals for both (not well-formed, wrong root, a required child missing).
import type { Document } from '@xmldom/xmldom';
import { HaciendaXmlError } from './errors';
import { parseXml } from './parse-xml';

export interface MessageFields {
  /** A child's text as written (DetalleMensaje keeps its line breaks), or undefined when absent. */
  text(name: string): string | undefined;
  /** A child's trimmed text; throws HaciendaXmlError('malformed_message') when it is absent. */
  required(name: string): string;
}

/** The message's document (parseXml); throws HaciendaXmlError('malformed_message') when not well-formed. */
export function parseMessage(xml: string): Document {
  const parsed = parseXml(xml);
  if ('error' in parsed)
    throw new HaciendaXmlError('malformed_message', `not well-formed XML: ${parsed.error}`);
  return parsed.doc;
}

/** `xml` is the message's text, or its document when the caller already parsed it (parseMessage). */
export function readMessageFields(xml: string | Document, rootName: string): MessageFields {
  const root = (typeof xml === 'string' ? parseMessage(xml) : xml).documentElement!;
  if (root.localName !== rootName) {
    throw new HaciendaXmlError('malformed_message', `root element is ${root.localName}, not ${rootName}`);
  }
  const text = (name: string): string | undefined => {
    for (let n = root.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === 1 && (n as unknown as { localName: string }).localName === name)
        return n.textContent ?? '';
    }
    return undefined;
  };
  const required = (name: string): string => {
    const v = text(name);
    if (v === undefined) throw new HaciendaXmlError('malformed_message', `${rootName} has no ${name}`);
    return v.trim();
  };
  return { text, required };
}
