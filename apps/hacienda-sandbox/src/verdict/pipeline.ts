// The full verdict pipeline, in Hacienda's order (REFERENCE §9): document shape, XSD, signature,
// certificate, clave, code tables, CABYS, registry data, arithmetic.
import {
  arithmeticCheck,
  cabysCheck,
  certificateCheck,
  claveCheck,
  codesCheck,
  registryCheck,
  structureCheck,
  type VerdictCheck,
  xsdCheck,
} from './checks';
import { signatureCheck } from './engine-checks';

export const VERDICT_CHECKS: readonly VerdictCheck[] = [
  structureCheck,
  xsdCheck,
  signatureCheck,
  certificateCheck,
  claveCheck,
  codesCheck,
  cabysCheck,
  registryCheck,
  arithmeticCheck,
];
