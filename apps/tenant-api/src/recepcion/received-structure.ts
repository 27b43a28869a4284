// Where a received comprobante's ds:Signature may be. The signature covers the document minus the
// ds:Signature (URI="" with the enveloped transform), so whatever sits inside it (a ds:Object, say) is
// unsigned. parseComprobante reads exact paths from the root and never looks there; this refuses, besides,
// the shapes no signer produces and only a wrapping attempt does: a second ds:Signature beside the root's,
// or one that is not the root's last element (the v4.4 schemas put it last), so a reader of the document
// meets the signed content before anything unsigned. Cheap (one pass over the root's children) and certain:
// the XSD, which would also say it, is only a finding (docs/receiving.md).
import type { Element } from '@xmldom/xmldom';

const DS_NS = 'http://www.w3.org/2000/09/xmldsig#';

/**
 * Why the root's ds:Signature is misplaced, or undefined when it is the root's one and last element (or when
 * there is none: the signature check refuses that, and says so).
 */
export function signaturePlacementProblem(root: Element): string | undefined {
  const elements: Element[] = [];
  for (let n = root.firstChild; n; n = n.nextSibling) if (n.nodeType === 1) elements.push(n as Element);
  const signatures = elements.filter((e) => e.localName === 'Signature' && e.namespaceURI === DS_NS);
  if (signatures.length === 0) return undefined;
  if (signatures.length > 1) return `the root element has ${signatures.length} ds:Signature elements`;
  if (elements.at(-1) !== signatures[0]) {
    return "ds:Signature is not the root element's last element, where a signed comprobante carries it";
  }
  return undefined;
}
